//! `method_mode`: how each method of a file compares with its base version. A method whose
//! id is not in the base is `new`; one whose normalised text differs is `modified`; a
//! public method whose absorbed private methods are new or changed is `modified` too;
//! everything else is `unchanged`. Moving or re-indenting a method changes nothing.

use crate::index::{FileFacts, MethodFacts};

pub use crate::vocab::MethodMode;

/// The mode of every method of `current` (same order), against `base` (`None`: the file
/// did not exist). `absorbed(i)` lists the methods plan unit `i` absorbs (indices into
/// `current.methods`, as [`crate::index::Absorber`] finds them; empty for methods that are
/// no unit): the caller passes them, so a planner that has already listed them does not
/// walk the calls again.
pub fn method_modes<F, A>(
    current: &FileFacts,
    base: Option<&FileFacts>,
    absorbed: F,
) -> Vec<MethodMode>
where
    F: Fn(usize) -> A,
    A: AsRef<[usize]>,
{
    let Some(base) = base else {
        return vec![MethodMode::New; current.methods.len()];
    };
    let mut modes = own_modes(current, base);
    raise_for_absorbed(&mut modes, current, absorbed);
    modes
}

/// Each method's mode by its own text only (absorbed methods not looked at).
fn own_modes(current: &FileFacts, base: &FileFacts) -> Vec<MethodMode> {
    // Match methods by id, the n-th definition of an id with the n-th in the base.
    let mut used = vec![false; base.methods.len()];
    current
        .methods
        .iter()
        .map(|m| {
            let found = base
                .methods
                .iter()
                .enumerate()
                .find(|(i, b)| !used.get(*i).copied().unwrap_or(true) && same_method(m, b));
            match found {
                Some((i, b)) => {
                    if let Some(slot) = used.get_mut(i) {
                        *slot = true;
                    }
                    if b.body_digest == m.body_digest {
                        MethodMode::Unchanged
                    } else {
                        MethodMode::Modified
                    }
                }
                None => MethodMode::New,
            }
        })
        .collect()
}

/// A public method is as changed as the private methods it absorbs: an unchanged public
/// method whose absorbed methods (`absorbed(i)`, indices into `current.methods`) are new or
/// changed becomes `modified`.
fn raise_for_absorbed<F, A>(modes: &mut [MethodMode], current: &FileFacts, absorbed: F)
where
    F: Fn(usize) -> A,
    A: AsRef<[usize]>,
{
    let snapshot = modes.to_vec();
    for (i, _) in current.methods.iter().enumerate() {
        // Only plan units have absorbed lists (public methods, and private ones Rails
        // calls: callbacks, filters, validations).
        if snapshot.get(i) != Some(&MethodMode::Unchanged) {
            continue;
        }
        let changed = absorbed(i).as_ref().iter().any(|&j| {
            snapshot
                .get(j)
                .is_some_and(|&mode| mode != MethodMode::Unchanged)
        });
        if changed {
            if let Some(slot) = modes.get_mut(i) {
                *slot = MethodMode::Modified;
            }
        }
    }
}

fn same_method(a: &MethodFacts, b: &MethodFacts) -> bool {
    a.kind == b.kind && a.name == b.name && a.owner == b.owner
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::extract;

    fn modes(base: &str, current: &str) -> Vec<(String, MethodMode)> {
        let b = extract("a.rb", base.as_bytes());
        let c = extract("a.rb", current.as_bytes());
        let absorber = crate::index::Absorber::new(&c.methods);
        c.methods
            .iter()
            .map(|m| m.id())
            // As the planner passes them: absorbed lists of the plan's units only.
            .zip(method_modes(&c, Some(&b), |i| {
                if c.methods.get(i).is_some_and(|m| m.is_public_api()) {
                    absorber.absorbed(i)
                } else {
                    Vec::new()
                }
            }))
            .collect()
    }

    #[test]
    fn new_modified_unchanged_by_text() {
        let base = "class A\n  def a\n    1\n  end\n  def b\n    2\n  end\nend\n";
        let current = "class A\n  def a\n    1\n  end\n  def b\n    3\n  end\n  def c; end\nend\n";
        assert_eq!(
            modes(base, current),
            vec![
                ("A#a".into(), MethodMode::Unchanged),
                ("A#b".into(), MethodMode::Modified),
                ("A#c".into(), MethodMode::New)
            ]
        );
    }

    #[test]
    fn moving_and_reindenting_is_unchanged() {
        let base = "class A\n  def a\n    x = 1\n    x\n  end\n\n  def b; end\nend\n";
        let current =
            "class A\n  def b; end\n\n      def a\n\n          x = 1\n        x\n      end\nend\n";
        assert!(modes(base, current)
            .iter()
            .all(|(_, m)| *m == MethodMode::Unchanged));
    }

    #[test]
    fn changed_private_helper_makes_its_public_callers_modified() {
        let base = "class A\n  def a\n    helper\n  end\n  def b; end\n  private\n  def helper\n    deeper\n  end\n  def deeper\n    1\n  end\nend\n";
        let current = base.replace("    1\n", "    2\n");
        assert_eq!(
            modes(base, &current),
            vec![
                ("A#a".into(), MethodMode::Modified),
                ("A#b".into(), MethodMode::Unchanged),
                ("A#helper".into(), MethodMode::Unchanged),
                ("A#deeper".into(), MethodMode::Modified)
            ]
        );
    }

    #[test]
    fn instance_and_singleton_methods_with_one_name_are_different_methods() {
        let base = "class S\n  def self.call = new.call\nend\n";
        let current = "class S\n  def self.call = new.call\n  def call; end\nend\n";
        assert_eq!(
            modes(base, current),
            vec![
                ("S.call".into(), MethodMode::Unchanged),
                ("S#call".into(), MethodMode::New)
            ]
        );
    }

    #[test]
    fn a_file_without_base_is_all_new() {
        let c = extract("a.rb", b"class A; def a; end; def b; end; end");
        assert_eq!(
            method_modes(&c, None, |_| Vec::new()),
            vec![MethodMode::New, MethodMode::New]
        );
    }
}
