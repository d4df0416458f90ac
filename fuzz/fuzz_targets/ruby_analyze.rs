//! Fuzz target: arbitrary bytes as a Ruby file → index (facts with method bodies) →
//! the analyzer for every public method of every class. Nothing may panic, overflow the
//! stack or hang (run with `-timeout`).
#![no_main]

use libfuzzer_sys::fuzz_target;

use rspec_scout::analyze::{analyze, Request, Selected};
use rspec_scout::analyze::SideEffectRule;
use rspec_scout::index::{extract_with, ExtractOptions, Visibility};

fuzz_target!(|data: &[u8]| {
    // The first byte picks the path, so the controller and model rules both run.
    let (path, source) = match data.split_first() {
        Some((b, rest)) if b % 2 == 1 => ("app/controllers/fuzz_controller.rb", rest),
        Some((_, rest)) => ("app/models/fuzz.rb", rest),
        None => ("app/models/fuzz.rb", data),
    };
    let facts = extract_with(path, source, &ExtractOptions { bodies: true });
    let rules = [SideEffectRule {
        pattern: "Notifier.*".to_string(),
        kind: "webhook".to_string(),
        description: None,
    }];
    let mut classes: Vec<&str> = facts
        .methods
        .iter()
        .filter(|m| !m.dynamic)
        .map(|m| m.owner.as_str())
        .collect();
    classes.sort_unstable();
    classes.dedup();
    for class in classes {
        let methods = facts
            .methods
            .iter()
            .filter(|m| m.owner == class && !m.dynamic && m.visibility == Visibility::Public)
            .map(|m| Selected {
                name: m.name.clone(),
                kind: Some(m.kind),
                method_mode: "new".to_string(),
            })
            .collect();
        let request = Request {
            facts: &facts,
            class_name: class.to_string(),
            methods,
            root: None,
            rules: &rules,
            // The file as its own parent controller exercises the inherited-filter path.
            parent_controller: Some(&facts),
        };
        let _ = analyze(&request);
    }
});
