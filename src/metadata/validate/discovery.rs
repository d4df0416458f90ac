//! The discovery-agent stage: `source_file`, `class_name`, `spec_path`, `complexity` and
//! `methods_to_analyze`, in the original's order.

use crate::ruby;
use crate::vocab::{MethodMode, Zone};
use crate::yaml::{Mapping, Value};

use super::{field, get, Validator};

impl Validator {
    pub(super) fn discovery_agent(&mut self, map: &Mapping, strict: bool) {
        let automation = self.automation(map);
        self.boolean(
            ruby::index(&automation, "discovery_agent_completed").as_ref(),
            "automation.discovery_agent_completed",
        );
        self.string(get(map, "source_file"), "source_file");
        self.string(get(map, "class_name"), "class_name");
        self.string(get(map, "spec_path"), "spec_path");

        let complexity = get(map, "complexity");
        self.hash(complexity, "complexity");
        if let Some(Value::Mapping(c)) = complexity {
            self.string(get(c, "zone"), "complexity.zone");
            if strict && ruby::is_present_string(get(c, "zone")) {
                self.strict_one_of(get(c, "zone"), "complexity.zone", Zone::NAMES);
            }
        }

        let methods = get(map, "methods_to_analyze");
        self.array(methods, "methods_to_analyze");
        let Some(Value::Sequence(methods)) = methods else {
            return;
        };
        if methods.is_empty() {
            self.errors
                .push("methods_to_analyze must not be empty".to_string());
            return;
        }
        for (idx, m) in methods.iter().enumerate() {
            let label = format!("methods_to_analyze[{idx}]");
            let Value::Mapping(m) = m else {
                self.errors.push(format!("{label} must be a Hash"));
                continue;
            };
            self.string(get(m, "name"), &format!("{label}.name"));
            self.one_of(
                get(m, "method_mode"),
                &format!("{label}.method_mode"),
                MethodMode::NAMES,
            );
            self.boolean(get(m, "selected"), &format!("{label}.selected"));
            let line_range = get(m, "line_range");
            self.array(line_range, &format!("{label}.line_range"));
            if let Some(Value::Sequence(range)) = line_range {
                if let [start, end] = range.as_slice() {
                    self.integer(Some(start), &format!("{label}.line_range[0]"));
                    self.integer(Some(end), &format!("{label}.line_range[1]"));
                    if strict {
                        if let (Some(s), Some(e)) = (ruby::as_f64(start), ruby::as_f64(end)) {
                            if ruby::is_integer(start) && ruby::is_integer(end) && s > e {
                                self.strict
                                    .push(format!("{label}.line_range must have start <= end"));
                            }
                        }
                    }
                } else {
                    self.errors
                        .push(format!("{label}.line_range must be [start, end]"));
                }
            }
            if strict {
                if let Some(reason) = get(m, "skip_reason").filter(|v| !v.is_null()) {
                    if !ruby::is_present_string(Some(reason)) {
                        self.strict
                            .push(format!("{label}.skip_reason must be a non-empty String"));
                    }
                }
            }
        }

        if ruby::to_s(&field(map, "spec_path")).starts_with("spec/controllers/") {
            self.warnings.push(
                "spec_path is under spec/controllers; prefer spec/requests for new Rails controllers tests"
                    .to_string(),
            );
        }
    }
}
