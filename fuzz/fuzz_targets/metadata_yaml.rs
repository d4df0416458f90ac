//! Fuzz target: arbitrary bytes as a metadata file → `yaml::load`; what loads must survive
//! `yaml::to_string` → `yaml::load` unchanged (the round trip every metadata write relies
//! on), and must go through every consumer of metadata without a panic: the stage
//! validators (plain and `--strict`), the test-config decisions and the skeleton generator.
#![no_main]

use libfuzzer_sys::fuzz_target;

use rspec_scout::metadata::validate::{validate, Checks, SpecFile, Stage};
use rspec_scout::spec::test_config::{apply, decide, Inputs};
use rspec_scout::spec::{generate, Mode};
use rspec_scout::vocab::ProjectType;
use rspec_scout::yaml::{self, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = yaml::load(data, "fuzz.yml") else {
        return;
    };
    let text = yaml::to_string(&value);
    // Deeply nested collection keys and lines past 1024 columns go beyond libyaml's limits
    // (a simple key must be found within 1024 characters); the product refuses such a
    // write (metadata::write_atomic loads its text back first and keeps the old file), so
    // only data within those limits must round-trip here.
    if depth(&value) > 100 || text.lines().any(|l| l.len() > 1000) {
        return;
    }
    match yaml::load(text.as_bytes(), "round-trip.yml") {
        Ok(again) => assert!(
            same(&value, &again),
            "round trip changed the value\n--- written\n{text}\n--- first {value:?}\n--- again {again:?}"
        ),
        Err(e) => panic!("written YAML does not load: {e}\n--- written\n{text}"),
    }

    let spec_text = |_: &str| SpecFile::Text("RSpec.describe Fuzz do\n  # rspec-testing: x\nend\n".to_string());
    let missing = |_: &str| SpecFile::Missing;
    for stage in [Stage::DiscoveryAgent, Stage::CodeAnalyzer, Stage::SpecWriter] {
        for strict in [false, true] {
            let _ = validate(stage, &value, &Checks { strict, spec_file: &spec_text });
            let _ = validate(stage, &value, &Checks { strict, spec_file: &missing });
        }
    }
    let Value::Mapping(map) = value else {
        return;
    };
    for project_type in [ProjectType::Rails, ProjectType::Library] {
        let inputs = Inputs {
            project_type,
            detected: None,
        };
        if let Ok(mut decisions) = decide(&map, &inputs) {
            decisions.resolve(rspec_scout::vocab::TestLevel::Integration);
            let mut copy = map.clone();
            let _ = apply(&mut copy, &decisions);
        }
    }
    for mode in [Mode::Full, Mode::Blocks, Mode::Outline] {
        for threshold in [0, 2] {
            let _ = generate(&map, mode, threshold, &[]);
        }
    }
});

/// How deeply collections nest (keys included).
fn depth(v: &Value) -> usize {
    match v {
        Value::Sequence(s) => 1 + s.iter().map(depth).max().unwrap_or(0),
        Value::Mapping(m) => {
            1 + m
                .iter()
                .map(|(k, v)| depth(k).max(depth(v)))
                .max()
                .unwrap_or(0)
        }
        Value::Tagged(t) => 1 + depth(&t.value),
        _ => 0,
    }
}

/// Equality where NaN equals NaN (a `.nan` must round-trip as `.nan`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(f), Some(g)) if f.is_nan() && g.is_nan() => true,
            _ => x == y,
        },
        (Value::Sequence(x), Value::Sequence(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Mapping(x), Value::Mapping(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|((k1, v1), (k2, v2))| same(k1, k2) && same(v1, v2))
        }
        (Value::Tagged(x), Value::Tagged(y)) => x.tag == y.tag && same(&x.value, &y.value),
        _ => a == b,
    }
}
