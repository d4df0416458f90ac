//! Loads YAML exactly as Psych 4's `YAML.load` would, from libyaml's event stream (Psych is
//! built on libyaml, so syntax errors are the same): aliases are refused
//! (`Psych::AliasesNotEnabled`), unquoted dates and times and Ruby object tags are refused
//! (`Psych::DisallowedClass`), and plain scalars are typed by Psych's rules.
//!
//! This is the only module with `unsafe` code: the calls into `unsafe-libyaml`.
#![allow(unsafe_code)]

use std::mem::MaybeUninit;
use std::ptr::addr_of_mut;

use serde_yaml::{Mapping, Number, Value};
#[allow(clippy::unsafe_removed_from_name)]
use unsafe_libyaml as sys;

use super::scalar::{tokenize, Scalar};
use super::{symbol, LoadError, MAX_DEPTH};

/// Loads the first document of `text`. An empty document loads as `Null` (Psych gives
/// `false`; both are "not a Hash" to every caller). `label` names the input in messages,
/// as Psych names the file.
pub fn load(text: &[u8], label: &str) -> Result<Value, LoadError> {
    let mut builder = Builder::default();
    let mut parser = Parser::new(text)?;
    loop {
        let event = parser.next(label)?;
        match event {
            Event::StreamEnd => break,
            Event::DocumentEnd => {
                // `YAML.load` returns the first document.
                break;
            }
            other => builder.push(other, label)?,
        }
    }
    Ok(builder.finish())
}

enum Event {
    Skip,
    StreamEnd,
    DocumentEnd,
    Alias {
        anchor: String,
        line: u64,
    },
    Scalar {
        value: Vec<u8>,
        tag: Option<String>,
        plain: bool,
        line: u64,
    },
    SequenceStart {
        tag: Option<String>,
    },
    SequenceEnd,
    MappingStart {
        tag: Option<String>,
    },
    MappingEnd,
}

struct Parser<'a> {
    sys: Box<MaybeUninit<sys::yaml_parser_t>>,
    _input: &'a [u8],
}

impl<'a> Parser<'a> {
    fn new(input: &'a [u8]) -> Result<Self, LoadError> {
        let mut sys = Box::new(MaybeUninit::<sys::yaml_parser_t>::uninit());
        // SAFETY: `sys` is a heap slot that libyaml initialises; the input slice outlives
        // the parser because both live in `Parser<'a>`.
        unsafe {
            let parser = sys.as_mut_ptr();
            if sys::yaml_parser_initialize(parser).fail {
                return Err(LoadError::new(
                    "Psych::Exception",
                    "libyaml could not initialise a parser",
                ));
            }
            sys::yaml_parser_set_encoding(parser, sys::YAML_UTF8_ENCODING);
            sys::yaml_parser_set_input_string(parser, input.as_ptr(), input.len() as u64);
        }
        Ok(Parser { sys, _input: input })
    }

    fn next(&mut self, label: &str) -> Result<Event, LoadError> {
        let mut event = MaybeUninit::<sys::yaml_event_t>::uninit();
        // SAFETY: the parser was initialised in `new`; the event is deleted before return.
        unsafe {
            let parser = self.sys.as_mut_ptr();
            if (&*parser).error != sys::YAML_NO_ERROR
                || sys::yaml_parser_parse(parser, event.as_mut_ptr()).fail
            {
                return Err(syntax_error(parser, label));
            }
            let event = event.as_mut_ptr();
            let converted = convert(&*event);
            sys::yaml_event_delete(event);
            Ok(converted)
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: initialised in `new` (a failed initialise returns before a Parser exists).
        unsafe { sys::yaml_parser_delete(addr_of_mut!(*self.sys.as_mut_ptr())) }
    }
}

/// SAFETY: `event` comes from a successful `yaml_parser_parse`.
unsafe fn convert(event: &sys::yaml_event_t) -> Event {
    let line = event.start_mark.line + 1;
    match event.type_ {
        sys::YAML_STREAM_END_EVENT => Event::StreamEnd,
        sys::YAML_DOCUMENT_END_EVENT => Event::DocumentEnd,
        sys::YAML_ALIAS_EVENT => Event::Alias {
            anchor: unsafe { c_string(event.data.alias.anchor) }.unwrap_or_default(),
            line,
        },
        sys::YAML_SCALAR_EVENT => {
            let data = unsafe { event.data.scalar };
            let value = if data.value.is_null() {
                Vec::new()
            } else {
                unsafe { std::slice::from_raw_parts(data.value, data.length as usize) }.to_vec()
            };
            Event::Scalar {
                value,
                tag: unsafe { c_string(data.tag) },
                plain: data.style == sys::YAML_PLAIN_SCALAR_STYLE,
                line,
            }
        }
        sys::YAML_SEQUENCE_START_EVENT => Event::SequenceStart {
            tag: unsafe { c_string(event.data.sequence_start.tag) },
        },
        sys::YAML_SEQUENCE_END_EVENT => Event::SequenceEnd,
        sys::YAML_MAPPING_START_EVENT => Event::MappingStart {
            tag: unsafe { c_string(event.data.mapping_start.tag) },
        },
        sys::YAML_MAPPING_END_EVENT => Event::MappingEnd,
        _ => Event::Skip,
    }
}

/// SAFETY: `ptr` is null or a NUL-terminated string owned by the event.
unsafe fn c_string(ptr: *const u8) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    let cstr = unsafe { std::ffi::CStr::from_ptr(ptr.cast()) };
    Some(String::from_utf8_lossy(cstr.to_bytes()).into_owned())
}

/// Psych::SyntaxError's message: `(file): problem context at line L column C`, where the
/// position is libyaml's context mark.
unsafe fn syntax_error(parser: *mut sys::yaml_parser_t, label: &str) -> LoadError {
    let p = unsafe { &*parser };
    let problem = unsafe { c_string(p.problem.cast()) };
    let context = unsafe { c_string(p.context.cast()) };
    let err = [problem, context]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let message = format!(
        "({label}): {err} at line {} column {}",
        p.context_mark.line + 1,
        p.context_mark.column + 1
    );
    LoadError {
        class: "Psych::SyntaxError",
        message,
        line: Some(p.problem_mark.line + 1),
    }
}

#[derive(Default)]
struct Builder {
    /// Open collections: a sequence, or a mapping with its pending key.
    stack: Vec<Open>,
    root: Option<Value>,
}

enum Open {
    Seq(Vec<Value>),
    Map(Mapping, Option<Value>),
}

impl Builder {
    fn push(&mut self, event: Event, label: &str) -> Result<(), LoadError> {
        match event {
            Event::Skip | Event::StreamEnd | Event::DocumentEnd => Ok(()),
            // Psych 4.0 (Ruby 3.1) says this; later versions raise its subclass
            // AliasesNotEnabled with a longer text.
            Event::Alias { anchor, line } => Err(LoadError {
                class: "Psych::BadAlias",
                message: format!("Unknown alias: {anchor}"),
                line: Some(line),
            }),
            Event::Scalar {
                value,
                tag,
                plain,
                line,
            } => {
                let text = String::from_utf8_lossy(&value).into_owned();
                let v = scalar_value(text, tag.as_deref(), plain, line, label)?;
                self.add(v);
                Ok(())
            }
            Event::SequenceStart { tag } => {
                check_collection_tag(tag.as_deref(), false)?;
                self.open(Open::Seq(Vec::new()))
            }
            Event::MappingStart { tag } => {
                check_collection_tag(tag.as_deref(), true)?;
                self.open(Open::Map(Mapping::new(), None))
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let value = match self.stack.pop() {
                    Some(Open::Seq(items)) => Value::Sequence(items),
                    Some(Open::Map(map, _)) => Value::Mapping(map),
                    None => return Ok(()),
                };
                self.add(value);
                Ok(())
            }
        }
    }

    fn open(&mut self, open: Open) -> Result<(), LoadError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(LoadError::new(
                "Psych::Exception",
                &format!("document nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.stack.push(open);
        Ok(())
    }

    fn add(&mut self, value: Value) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(value);
                }
            }
            Some(Open::Seq(items)) => items.push(value),
            Some(Open::Map(map, pending)) => match pending.take() {
                None => *pending = Some(value),
                Some(key) => {
                    // Later duplicate keys win, as in Ruby's Hash.
                    map.insert(key, value);
                }
            },
        }
    }

    fn finish(self) -> Value {
        self.root.unwrap_or(Value::Null)
    }
}

fn disallowed(class: &str) -> LoadError {
    LoadError::new(
        "Psych::DisallowedClass",
        &format!("Tried to load unspecified class: {class}"),
    )
}

/// The Ruby class a `!ruby/...` tag would instantiate, if it is one `YAML.load` refuses.
fn ruby_tag_class(tag: &str) -> Option<String> {
    let rest = tag.strip_prefix("!ruby/")?;
    let (kind, class) = rest.split_once(':').unwrap_or((rest, ""));
    match kind {
        "symbol" | "sym" => None,
        "object" | "struct" | "hash" | "array" | "string" | "exception" | "data"
            if !class.is_empty() =>
        {
            Some(class.to_string())
        }
        "object" => Some("Object".to_string()),
        "struct" => Some("Struct".to_string()),
        "regexp" => Some("Regexp".to_string()),
        "range" => Some("Range".to_string()),
        "class" => Some("Class".to_string()),
        "module" => Some("Module".to_string()),
        "exception" => Some("Exception".to_string()),
        "marshalable" => Some(class.to_string()),
        "set" => Some("Set".to_string()),
        "complex" => Some("Complex".to_string()),
        "rational" => Some("Rational".to_string()),
        "encoding" => Some("Encoding".to_string()),
        _ => Some(if class.is_empty() {
            kind.to_string()
        } else {
            class.to_string()
        }),
    }
}

fn check_collection_tag(tag: Option<&str>, mapping: bool) -> Result<(), LoadError> {
    let Some(tag) = tag else { return Ok(()) };
    if let Some(class) = ruby_tag_class(tag) {
        return Err(disallowed(&class));
    }
    if mapping && (tag == "tag:yaml.org,2002:omap" || tag == "!omap") {
        return Err(disallowed("Psych::Omap"));
    }
    if mapping && (tag == "tag:yaml.org,2002:set" || tag == "!set") {
        return Err(disallowed("Psych::Set"));
    }
    Ok(())
}

fn scalar_value(
    text: String,
    tag: Option<&str>,
    plain: bool,
    line: u64,
    _label: &str,
) -> Result<Value, LoadError> {
    if let Some(tag) = tag {
        if tag.starts_with("!ruby/sym") {
            return Ok(symbol(&text));
        }
        if let Some(class) = ruby_tag_class(tag) {
            return Err(disallowed(&class));
        }
        match tag {
            "tag:yaml.org,2002:str" | "!str" => return Ok(Value::String(text)),
            "tag:yaml.org,2002:int" | "!int" => {
                return match tokenize(&text) {
                    Scalar::Int(i) => Ok(Value::Number(Number::from(i))),
                    _ => Err(LoadError::new(
                        "ArgumentError",
                        &format!("invalid value for Integer(): {text:?}"),
                    )),
                };
            }
            "tag:yaml.org,2002:float" | "!float" => {
                return match tokenize(&text) {
                    Scalar::Float(f) => Ok(Value::Number(Number::from(f))),
                    Scalar::Int(i) => Ok(Value::Number(Number::from(i as f64))),
                    _ => Err(LoadError::new(
                        "ArgumentError",
                        &format!("invalid value for Float(): {text:?}"),
                    )),
                };
            }
            "tag:yaml.org,2002:binary" | "!binary" => return Ok(Value::String(text)),
            "tag:yaml.org,2002:timestamp" | "!timestamp" => return Err(disallowed("Time")),
            _ => {}
        }
        // Unknown tags on scalars are ignored by Psych: the value is read as if untagged.
    }
    if !plain && tag.is_none() {
        return Ok(Value::String(text));
    }
    let _ = line;
    Ok(match tokenize(&text) {
        Scalar::Null => Value::Null,
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(i) => Value::Number(Number::from(i)),
        Scalar::Float(f) => Value::Number(Number::from(f)),
        Scalar::Symbol(name) => symbol(&name),
        Scalar::Date => return Err(disallowed("Date")),
        Scalar::Time => return Err(disallowed("Time")),
        Scalar::Str => Value::String(text),
    })
}
