//! Answers and errors in the three output formats: YAML (the agent contract, default), JSON,
//! and text for people. Answer types live here, separate from internal types.

pub(crate) mod discover;
pub(crate) mod status;
pub(crate) mod symbols;

use serde::Serialize;
use serde_yaml::Value;

use crate::error::Error;
use crate::yaml;

pub use crate::vocab::{Format, Progress};

/// Where a long command reports each phase it enters (`parse`, `metadata`) with the number
/// of files it covers. The binary decides what to print (`--progress`); the library never
/// writes to stderr itself. The default reports nothing.
#[derive(Clone, Default)]
pub struct OnPhase(Option<std::sync::Arc<PhaseFn>>);

/// A phase's name and its number of files.
type PhaseFn = dyn Fn(&str, usize) + Send + Sync;

impl OnPhase {
    /// Reports phases to `report`.
    pub fn new(report: impl Fn(&str, usize) + Send + Sync + 'static) -> Self {
        OnPhase(Some(std::sync::Arc::new(report)))
    }

    /// Reports that phase `name` starts, over `total` files.
    pub fn phase(&self, name: &str, total: usize) {
        if let Some(report) = &self.0 {
            report(name, total);
        }
    }
}

impl std::fmt::Debug for OnPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "OnPhase(..)"
        } else {
            "OnPhase(none)"
        })
    }
}

/// An answer too large to hold as a value: written straight to the output in the format
/// asked for, when it is printed (`discover`'s plan can hold hundreds of thousands of
/// methods).
pub trait Streamed: std::fmt::Debug + Send + Sync {
    /// Writes the whole answer in `format`.
    fn write(&self, format: Format, out: &mut dyn std::io::Write) -> std::io::Result<()>;
}

/// What a command produced: the structured answer, its text rendering and the exit code.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The structured answer (rendered as YAML or JSON); `Null` for a [`Streamed`] answer,
    /// which only exists as its rendering ([`Answer::render`], [`Answer::write`]).
    pub value: Value,
    /// The rendering for `--format text` (empty for a [`Streamed`] answer).
    pub text: String,
    /// Process exit code.
    pub exit_code: u8,
    /// One-line messages for stderr (a summary of an error, warnings for people).
    pub stderr: Vec<String>,
    /// The answer written on demand, when it is one.
    streamed: Option<std::sync::Arc<dyn Streamed>>,
}

impl Answer {
    /// An answer from any serializable value; `text` is the people's rendering.
    pub fn new<T: Serialize>(answer: &T, text: String, exit_code: u8) -> Self {
        Answer {
            value: to_value(answer),
            text,
            exit_code,
            stderr: Vec::new(),
            streamed: None,
        }
    }

    /// An answer written straight to the output when it is printed.
    pub fn streamed(answer: impl Streamed + 'static, exit_code: u8) -> Self {
        Answer {
            value: Value::Null,
            text: String::new(),
            exit_code,
            stderr: Vec::new(),
            streamed: Some(std::sync::Arc::new(answer)),
        }
    }

    /// Writes the answer in `format` to `out` (a streamed answer without building it).
    pub fn write(&self, format: Format, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        match &self.streamed {
            Some(streamed) => streamed.write(format, out),
            None => out.write_all(self.render(format).as_bytes()),
        }
    }

    /// The answer for an error: `status: error` with `error`, `details`, `suggestion`,
    /// `error_code`, `recoverable`; exit 1.
    pub fn from_error(err: &Error) -> Self {
        let body = ErrorAnswer {
            status: "error",
            error: err.message(),
            details: err.details(),
            suggestion: err.suggestion(),
            error_code: err.code(),
            recoverable: err.recoverable(),
        };
        let text = format!(
            "error: {}\n  details: {}\n  suggestion: {}\n",
            body.error, body.details, body.suggestion
        );
        Answer {
            value: to_value(&body),
            text,
            exit_code: 1,
            stderr: vec![format!("rspec-scout: {} ({})", err.message(), err.code())],
            streamed: None,
        }
    }

    /// The answer rendered in `format`.
    pub fn render(&self, format: Format) -> String {
        if let Some(streamed) = &self.streamed {
            let mut out = Vec::new();
            // Writing to memory does not fail; the text is UTF-8 by construction.
            let _ = streamed.write(format, &mut out);
            return String::from_utf8(out)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        }
        match format {
            Format::Yaml => yaml::to_string(&self.value),
            Format::Json => {
                let mut s = serde_json::to_string_pretty(&JsonView(&self.value))
                    .unwrap_or_else(|_| "{}".to_string());
                s.push('\n');
                s
            }
            Format::Text => self.text.clone(),
        }
    }
}

/// The error shape of the contract.
#[derive(Debug, Serialize)]
pub struct ErrorAnswer {
    /// Always `error`.
    pub status: &'static str,
    /// One line.
    pub error: String,
    /// More detail.
    pub details: String,
    /// What to do.
    pub suggestion: String,
    /// Stable code.
    pub error_code: &'static str,
    /// Whether fixing the input and re-running can succeed.
    pub recoverable: bool,
}

pub use crate::yaml::to_value;

/// Milliseconds since `since`, for the `timings` of an answer.
pub fn millis(since: std::time::Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A YAML value written as JSON in its own key order (the order of the answer types, as
/// the pipeline's scripts print them): symbols become their names, non-string keys their
/// text.
struct JsonView<'a>(&'a Value);

impl Serialize for JsonView<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self.0 {
            Value::Mapping(map) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (k, v) in map {
                    let key = match k {
                        Value::String(s) => s.clone(),
                        other => crate::ruby::to_s(other),
                    };
                    out.serialize_entry(&key, &JsonView(v))?;
                }
                out.end()
            }
            Value::Sequence(items) => serializer.collect_seq(items.iter().map(JsonView)),
            Value::Tagged(t) => match yaml::as_symbol(self.0) {
                Some(name) => serializer.serialize_str(name),
                None => JsonView(&t.value).serialize(serializer),
            },
            scalar => to_json(scalar).serialize(serializer),
        }
    }
}

/// A YAML value as JSON: symbols become their names, non-string keys their text.
pub fn to_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                serde_json::Value::from(i)
            } else if let Some(u) = n.as_u64() {
                serde_json::Value::from(u)
            } else {
                serde_json::Number::from_f64(n.as_f64().unwrap_or(0.0))
                    .map_or(serde_json::Value::Null, serde_json::Value::Number)
            }
        }
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Sequence(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Mapping(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                let key = match k {
                    Value::String(s) => s.clone(),
                    other => crate::ruby::to_s(other),
                };
                out.insert(key, to_json(v));
            }
            serde_json::Value::Object(out)
        }
        Value::Tagged(t) => match yaml::as_symbol(value) {
            Some(name) => serde_json::Value::String(name.to_string()),
            None => to_json(&t.value),
        },
    }
}

/// `1 file`, `2 files`: counts in text output read as English.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}
