//! Fuzz target: arbitrary bytes as a Ruby file, planned by discovery against a base
//! version made from the same bytes with a few lines dropped: modes, absorbed methods,
//! references packed on the parsing side (`discover::prepare`), resolution, waves and the
//! rendered answer. Nothing may panic, overflow the stack or hang (run with `-timeout`).
#![no_main]

use libfuzzer_sys::fuzz_target;

use rspec_scout::discover::ZoneThresholds;
use rspec_scout::discover::{self, select::Filter, BaseVersion, Settings, Source};
use rspec_scout::index::extract;
use rspec_scout::vocab::ControllerLayout;

fuzz_target!(|data: &[u8]| {
    let (path, source) = match data.split_first() {
        Some((b, rest)) if b % 2 == 1 => ("app/controllers/fuzz_controller.rb", rest),
        Some((_, rest)) => ("app/models/fuzz.rb", rest),
        None => ("app/models/fuzz.rb", data),
    };
    // The base: every third line dropped, so methods come out new, modified and unchanged.
    let base: Vec<u8> = source
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(i, _)| i % 3 != 2)
        .flat_map(|(_, line)| line.iter().copied().chain(std::iter::once(b'\n')))
        .collect();
    let sources = vec![
        Source {
            facts: extract(path, source),
            base: BaseVersion::Facts(extract(path, &base)),
            change: None,
            old_path: None,
        },
        // A second file referencing the first one's classes by name.
        Source {
            facts: extract("app/services/other.rb", &base),
            base: BaseVersion::Missing,
            change: None,
            old_path: None,
        },
    ];
    let settings = Settings {
        select_all: data.len() % 2 == 0,
        filter: Filter::default(),
        zones: ZoneThresholds::default(),
        spec_policy: ControllerLayout::Request,
        allow_red: true,
    };
    let plan = discover::plan(sources, &settings);
    for item in &plan.items {
        let _ = (item.class_name(), item.method_name(), item.deps.keys().count());
    }
});
