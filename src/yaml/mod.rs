//! YAML the way the pipeline's Ruby scripts see it. Every metadata file and config file is
//! read by Psych 4 (`YAML.load`), so we read with the same libyaml events and Psych's scalar
//! rules ([`load`]), and write only what Psych reads back unchanged ([`to_string`]).
//!
//! Values are `serde_yaml::Value` (serde_yaml_ng); Ruby Symbols are `Value::Tagged` with the
//! tag `!ruby/symbol`, so `:card` and `"card"` stay different, as they are in Ruby.

mod emit;
mod load;
pub(crate) mod scalar;

use std::fmt;

pub use emit::{string_text, to_string, Block, Writer};
pub use load::load;
pub use serde_yaml::{Mapping, Number, Value};

/// Deepest nesting [`load`] accepts; deeper documents are refused with an error instead of
/// risking the stack (no metadata file comes near it).
pub const MAX_DEPTH: usize = 256;

const SYMBOL_TAG: &str = "!ruby/symbol";

/// Any serializable value as a YAML value (serialization of our own types cannot fail; a
/// failure would be a bug, reported in the value rather than by a panic).
pub fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_yaml::to_value(value).unwrap_or_else(|e| Value::String(format!("internal error: {e}")))
}

/// A Ruby Symbol value.
pub fn symbol(name: &str) -> Value {
    Value::Tagged(Box::new(serde_yaml::value::TaggedValue {
        tag: serde_yaml::value::Tag::new(SYMBOL_TAG),
        value: Value::String(name.to_string()),
    }))
}

/// The name of a Symbol value.
pub fn as_symbol(value: &Value) -> Option<&str> {
    match value {
        Value::Tagged(tagged) if tagged.tag == serde_yaml::value::Tag::new(SYMBOL_TAG) => {
            tagged.value.as_str()
        }
        _ => None,
    }
}

/// Why a YAML text does not load, as Psych would say it: the exception class and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// Psych's exception class (`Psych::SyntaxError`, `Psych::DisallowedClass`, ...).
    pub class: &'static str,
    /// Psych's message.
    pub message: String,
    /// 1-based line of the problem, when known.
    pub line: Option<u64>,
}

impl LoadError {
    fn new(class: &'static str, message: &str) -> Self {
        LoadError {
            class,
            message: message.to_string(),
            line: None,
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class, self.message)
    }
}

impl std::error::Error for LoadError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(value: &Value) -> Value {
        let text = to_string(value);
        load(text.as_bytes(), "test").unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn strings_psych_would_retype_are_quoted_and_survive() {
        for s in [
            "2024-01-15",
            "yes",
            "No",
            "on",
            "~",
            "null",
            "1_000",
            "0755",
            "1:30",
            ":card",
            "1.5",
            "true",
            "",
            " padded",
            "a: b",
            "x #y",
            "- item",
            "[x]",
            "line\nbreak",
            "tab\there",
            "quote\"d",
            "back\\slash",
            ".inf",
            "-",
            "12",
            "2024-01-15 10:20:30",
            "@handle",
            "%percent",
            "unicode ✓",
            "\u{7}bell",
        ] {
            let v = Value::String(s.to_string());
            assert_eq!(round_trip(&v), v, "{s:?} became {}", to_string(&v));
        }
    }

    #[test]
    fn plain_words_stay_plain() {
        assert_eq!(to_string(&Value::String("present".into())), "present\n");
        assert_eq!(to_string(&Value::String("nil".into())), "nil\n");
        assert_eq!(
            to_string(&Value::String("returns the payment".into())),
            "returns the payment\n"
        );
        assert_eq!(
            to_string(&Value::String("Payment#charge".into())),
            "Payment#charge\n"
        );
    }

    #[test]
    fn nested_documents_round_trip() {
        let text = "source_file: app/models/payment.rb\nmethods_to_analyze:\n  - name: charge\n    line_range: [10, 24]\n    selected: true\n    when_parent: [true, 1, nil]\n    symbols:\n      - :card\n  - name: refund\ncomplexity: {}\nempty: []\nfloat: 1.5\n";
        let v = load(text.as_bytes(), "t").expect("loads");
        assert_eq!(round_trip(&v), v);
        assert_eq!(to_string(&v), text);
    }

    #[test]
    fn collection_keys_round_trip_in_the_explicit_form() {
        // Found by the metadata_yaml fuzzer: a hand-edited `? ` key holding a mapping was
        // written back as `null: null`, losing the key.
        let text = "methods:\n  - name: total\n? line_range: [6, 8]\n  selected: true\n: null\n? - a\n  - b: 1\n: [1]\nlist:\n  - ? [x, y]\n    : z\n";
        let v = load(text.as_bytes(), "t").expect("loads");
        let keys: Vec<&Value> = v.as_mapping().expect("mapping").keys().collect();
        assert!(keys[1].is_mapping() && keys[2].is_sequence(), "{keys:?}");
        let written = to_string(&v);
        assert!(!written.contains("null: null"), "{written}");
        assert_eq!(round_trip(&v), v, "{written}");
    }

    #[test]
    fn symbols_are_not_strings() {
        let v = load(b"a: :card\nb: card\nc: :\"two words\"\n", "t").expect("loads");
        let a = v.get("a").expect("a");
        assert_eq!(as_symbol(a), Some("card"));
        assert_ne!(a, v.get("b").expect("b"));
        assert_eq!(as_symbol(v.get("c").expect("c")), Some("two words"));
        assert_eq!(round_trip(&v), v);
    }

    #[test]
    fn any_symbol_name_round_trips() {
        // Found by the metadata_yaml fuzzer: `:":0}"` reads back as `:"0}"` (Psych drops a
        // leading colon of the quoted text), and escapes in `:"..."` are not processed.
        for name in [
            ":0}", "a\"b", "a\nb", "a: b", "x #y", "", " pad", "tab\t", "::", "ok name",
        ] {
            let v = symbol(name);
            let written = to_string(&v);
            assert_eq!(round_trip(&v), v, "{name:?} became {written}");
        }
        assert_eq!(to_string(&symbol("two words")), ":\"two words\"\n");
    }

    #[test]
    fn floats_round_trip_with_a_dot_and_a_signed_exponent() {
        // Found by the metadata_yaml fuzzer: 8000000000000000080.000 was written `8e+18`,
        // which reads back (in Psych too) as the string "8e+18".
        for (f, text) in [
            (8.0e18, "8.0e+18\n"),
            (1.5e-7, "1.5e-7\n"),
            (2.0, "2.0\n"),
            (-0.25, "-0.25\n"),
        ] {
            let v = Value::Number(Number::from(f));
            assert_eq!(to_string(&v), text);
            assert_eq!(round_trip(&v), v, "{f} became {}", to_string(&v));
        }
        let v = load(b"8000000000000000080.000\n", "t").expect("loads");
        assert_eq!(round_trip(&v), v);
    }

    #[test]
    fn document_markers_are_quoted() {
        // Found by the metadata_yaml fuzzer: the string "..." (from ` ... `) was written
        // plain at the top level, where it ends the document and the file no longer loads.
        for s in ["...", "---", "... more", "--- x", "...x"] {
            let v = Value::String(s.to_string());
            let written = to_string(&v);
            assert!(written.starts_with('"'), "{s:?} written {written:?}");
            assert_eq!(round_trip(&v), v, "{s:?} became {written}");
            let mut map = Mapping::new();
            map.insert(v.clone(), Value::Sequence(vec![v.clone()]));
            let v = Value::Mapping(map);
            assert_eq!(round_trip(&v), v);
        }
        let v = load(b" ... \n", "t").expect("loads");
        assert_eq!(round_trip(&v), v);
    }

    #[test]
    fn colon_question_mark_is_quoted_in_flow_lists() {
        // Found by the metadata_yaml fuzzer: `[h;c:? ? us]` does not load (libyaml reads
        // `:?` in a flow list as an unexpected `:`).
        let v = load(b"! A\n ? ? - h;c:? ? us\n", "t")
            .unwrap_or_else(|_| Value::Sequence(vec![Value::String("h;c:? ? us".into())]));
        let written = to_string(&v);
        assert_eq!(round_trip(&v), v, "{written}");
        let list = Value::Sequence(vec![
            Value::String("a:?b".into()),
            Value::String("Foo::Bar".into()),
        ]);
        let mut map = Mapping::new();
        map.insert(Value::String("list".into()), list.clone());
        assert_eq!(
            to_string(&Value::Mapping(map)),
            "list: [\"a:?b\", Foo::Bar]\n"
        );
        assert_eq!(round_trip(&list), list);
    }

    #[test]
    fn characters_outside_yamls_printable_set_are_escaped() {
        // Found by the metadata_yaml fuzzer: "bcf^\uffff..." was written with a raw U+FFFF,
        // which libyaml refuses ("control characters are not allowed").
        for s in [
            "bcf^\u{ffff}fff",
            "\u{fffe}",
            "a\u{7f}b",
            "\u{9f}",
            "ok \u{fffd} \u{1f600}",
        ] {
            let v = Value::String(s.to_string());
            let written = to_string(&v);
            assert!(
                !written.contains('\u{ffff}') && !written.contains('\u{fffe}'),
                "{written:?}"
            );
            assert_eq!(round_trip(&v), v, "{s:?} became {written}");
        }
        assert_eq!(
            to_string(&Value::String("ok \u{fffd} \u{1f600}".into())),
            "ok \u{fffd} \u{1f600}\n"
        );
    }

    #[test]
    fn keys_over_a_thousand_characters_use_the_explicit_form() {
        // libyaml does not find a simple key's `:` past 1024 characters; Psych writes such a
        // key as `? key`.
        let long = "x".repeat(1100);
        let mut map = Mapping::new();
        map.insert(Value::String(long.clone()), Value::from(1));
        map.insert(Value::String("short".into()), Value::from(2));
        let v = Value::Mapping(map);
        let written = to_string(&v);
        assert!(
            written.starts_with(&format!("? {long}\n: 1\n")),
            "{written}"
        );
        assert_eq!(round_trip(&v), v);
        let psych = load(format!("? {long}\n: 1\n").as_bytes(), "t").expect("loads");
        assert_eq!(psych.get(long.as_str()), Some(&Value::from(1)));
    }

    #[test]
    fn aliases_dates_and_ruby_objects_are_refused_like_psych() {
        let err = load(b"a: &x 1\nb: *x\n", "m.yml").expect_err("alias");
        assert_eq!(err.to_string(), "Psych::BadAlias: Unknown alias: x");
        let err = load(b"initialized_at: 2024-01-15\n", "m.yml").expect_err("date");
        assert_eq!(
            err.to_string(),
            "Psych::DisallowedClass: Tried to load unspecified class: Date"
        );
        let err = load(b"x: !ruby/object:OpenStruct\n  a: 1\n", "m.yml").expect_err("object");
        assert_eq!(
            err.to_string(),
            "Psych::DisallowedClass: Tried to load unspecified class: OpenStruct"
        );
        assert!(load(b"quoted: \"2024-01-15\"\nanchor_only: &a 1\n", "m.yml").is_ok());
    }

    #[test]
    fn syntax_errors_read_like_psych() {
        let err = load(b"a: 1\n b: 2\n", "m.yml").expect_err("bad indent");
        assert_eq!(err.class, "Psych::SyntaxError");
        assert!(err.message.starts_with("(m.yml): "), "{}", err.message);
        assert!(err.message.contains(" at line "), "{}", err.message);
    }

    #[test]
    fn empty_and_deep_documents() {
        assert_eq!(load(b"", "t").expect("empty"), Value::Null);
        assert_eq!(
            load(b"# only a comment\n", "t").expect("comment"),
            Value::Null
        );
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(load(deep.as_bytes(), "t").is_err());
    }
}
