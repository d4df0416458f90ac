//! The spec-writer stage: every method's `test_config`, then the spec file itself (no
//! placeholders, no markers left).

use crate::ruby;
use crate::vocab::{Confidence, IsolationMode, TestLevel};
use crate::yaml::{Mapping, Value};

use super::{get, Checks, SpecFile, Validator};

impl Validator {
    pub(super) fn spec_writer(&mut self, map: &Mapping, checks: &Checks<'_>) {
        let automation = self.automation(map);
        for stage in ["code_analyzer", "isolation_decider", "spec_writer"] {
            let key = format!("{stage}_completed");
            self.boolean(
                ruby::index(&automation, &key).as_ref(),
                &format!("automation.{key}"),
            );
        }
        let methods = get(map, "methods");
        self.array(methods, "methods");
        let Some(Value::Sequence(methods)) = methods else {
            return;
        };
        for (idx, m) in methods.iter().enumerate() {
            let Value::Mapping(m) = m else { continue };
            let label = format!("methods[{idx}].test_config");
            let test_config = get(m, "test_config");
            self.hash(test_config, &label);
            let Some(Value::Mapping(tc)) = test_config else {
                continue;
            };
            self.one_of(
                get(tc, "test_level"),
                &format!("{label}.test_level"),
                TestLevel::NAMES,
            );
            self.one_of(
                get(tc, "confidence"),
                &format!("{label}.confidence"),
                Confidence::NAMES,
            );
            if checks.strict && get(tc, "confidence").and_then(Value::as_str) == Some("low") {
                self.strict.push(format!(
                    "{label}.confidence must not be low (answer the decision: test-config --low-confidence)"
                ));
            }
            let isolation = get(tc, "isolation");
            self.hash(isolation, &format!("{label}.isolation"));
            if let Some(Value::Mapping(isolation)) = isolation {
                for knob in ["db", "external_http", "queue"] {
                    self.one_of(
                        get(isolation, knob),
                        &format!("{label}.isolation.{knob}"),
                        IsolationMode::NAMES,
                    );
                }
            }
            self.array(
                get(tc, "decision_trace"),
                &format!("{label}.decision_trace"),
            );
        }

        let spec_path = get(map, "spec_path");
        self.string(spec_path, "spec_path");
        let Some(Value::String(spec_path)) = spec_path else {
            return;
        };
        if ruby::strip(spec_path).is_empty() {
            return;
        }
        let content = match (checks.spec_file)(spec_path) {
            SpecFile::Missing => {
                self.errors
                    .push(format!("spec_path does not exist: {spec_path}"));
                return;
            }
            SpecFile::Unreadable(reason) => {
                self.errors
                    .push(format!("spec_path cannot be read: {spec_path}: {reason}"));
                return;
            }
            SpecFile::Text(text) => text,
        };
        let placeholders = placeholders(&content);
        if !placeholders.is_empty() {
            self.errors.push(format!(
                "Spec still contains placeholders: {}",
                placeholders.join(", ")
            ));
        }
        if has_marker(&content) {
            self.errors.push(
                "Spec still contains rspec-testing markers (# rspec-testing:...)".to_string(),
            );
        }
    }
}

/// The `{PLACEHOLDER}`s of a spec (`/\{[A-Z0-9_]+\}/`), unique and sorted.
pub fn placeholders(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = std::collections::BTreeSet::new();
    let mut i = 0;
    while let Some(offset) = bytes.get(i..).and_then(|rest| memchr::memchr(b'{', rest)) {
        let start = i + offset;
        let body = bytes
            .get(start + 1..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_')
            .count();
        let close = start + 1 + body;
        if body > 0 && bytes.get(close) == Some(&b'}') {
            if let Some(p) = text.get(start..=close) {
                found.insert(p.to_string());
            }
            i = close + 1;
        } else {
            i = start + 1;
        }
    }
    found.into_iter().collect()
}

/// Whether a spec still holds a marker line (`/^\s*#\s*rspec-testing:/`; Ruby's `\s` also
/// crosses line ends).
pub fn has_marker(text: &str) -> bool {
    let bytes = text.as_bytes();
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c');
    let line_starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
    for start in line_starts {
        let rest = bytes.get(start..).unwrap_or_default();
        let skip = rest.iter().take_while(|b| is_space(b)).count();
        let Some(rest) = rest.get(skip..) else {
            continue;
        };
        let Some(rest) = rest.strip_prefix(b"#") else {
            continue;
        };
        let skip = rest.iter().take_while(|b| is_space(b)).count();
        if rest
            .get(skip..)
            .is_some_and(|r| r.starts_with(b"rspec-testing:"))
        {
            return true;
        }
    }
    false
}
