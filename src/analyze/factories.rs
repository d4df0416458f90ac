//! `factories_detected`: the seeds' factory_detector. For an analyzed file, the factories
//! that build its class and each characteristic's setup class, and for every
//! characteristic value a trait would set up (a boolean, a presence, an enum value), the
//! trait that does or a warning that it is missing (`Factory trait :premium not found`).
//!
//! Why it matters for specs: the spec writer sets a context up with
//! `create(:payment, :completed)` when the trait exists and with attributes when it does
//! not; the factory optimizer adds the missing trait. Both read this instead of reading
//! every factory file again.
//!
//! Which trait sets a value up, first match wins:
//! 1. a trait named for it (below) that sets the attribute;
//! 2. any trait of the factory that sets the attribute to that value
//!    (`trait :paid do status { :completed } end`);
//! 3. a trait named for it that is not an enum trait of another attribute (a predicate such
//!    as `admin?` is often a method, not a column: `trait :admin` is taken on its name;
//!    `premium?`, the enum predicate, takes the enum's `premium` trait);
//! 4. another factory of the class whose defaults set the value (`:refunded_payment`).
//!
//! Otherwise the value is the factory's `default` when the factory already gives it (a
//! literal default equal to it; for a false or absent value, nothing set), else `missing`
//! with a warning naming the trait a spec writer would add.
//!
//! Names tried for a value of attribute `a` (`?` dropped): true → `a`, `a` without `is_`
//! or `has_`, `x` for `x_at`; false → `not_a`, `non_a`, `una`, `without_a`; present →
//! `with_a`, `a`, `has_a`, `x` for `x_at`; nil → `without_a`, `no_a`; an enum value `v` →
//! `v`, `a_v`, `v_a`; and `v` for `a` spelled `e_v` or `v_e` with `e` an enum of the class
//! (Rails' prefixed and suffixed predicates, `status_completed?`).

use crate::rails::factories::{Factory, FactoryIndex, Literal, TraitOrigin};
use crate::yaml::Value;

use super::model::{CharType, MethodAnalysis};

/// What `factories_detected` holds for a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Detected {
    /// The library of the factories found (`factory_bot`, `fabrication`).
    pub library: Option<&'static str>,
    /// One per class the file's tests set up: the file's class first, then each setup
    /// class in the order the characteristics name them.
    pub classes: Vec<ClassFactory>,
    /// One per characteristic value a trait would set up.
    pub values: Vec<ValueTrait>,
    /// `Factory trait :x not found ...`, one per missing trait.
    pub warnings: Vec<String>,
    /// The factory files read for it (the analysis cache depends on them).
    pub files: Vec<String>,
}

/// The factories of one class.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassFactory {
    /// The class.
    pub class: String,
    /// The factory a spec builds it with (`None`: no factory builds it).
    pub factory: Option<String>,
    /// Its file and line.
    pub file: Option<String>,
    /// The line.
    pub line: Option<u32>,
    /// Every trait it can be built with.
    pub traits: Vec<String>,
    /// Other factories that build the class.
    pub other_factories: Vec<String>,
}

/// How a characteristic value is set up with factories.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueTrait {
    /// `#name` or `.name`.
    pub method: String,
    /// The characteristic's name.
    pub characteristic: String,
    /// The value.
    pub value: Value,
    /// The class set up.
    pub class: String,
    /// The attribute the condition reads.
    pub attribute: String,
    /// The factory to build with.
    pub factory: String,
    /// The trait, when one sets the value up.
    pub trait_name: Option<String>,
    /// `trait` (a trait sets it up), `factory` (another factory does), `default` (the
    /// factory already gives it), `missing` (nothing does: a warning).
    pub status: &'static str,
    /// For `missing`: the trait a spec writer would add.
    pub suggested_trait: Option<String>,
}

/// `factories_detected` for an analysis; `None` when the project has no factories.
pub fn detect(
    class_name: &str,
    methods: &[MethodAnalysis],
    index: &FactoryIndex,
) -> Option<Detected> {
    if index.factories.is_empty() {
        return None;
    }
    let mut classes: Vec<String> = vec![class_name.to_string()];
    for m in methods {
        for c in &m.characteristics {
            if let Some(class) = &c.setup.class {
                if !classes.contains(class) {
                    classes.push(class.clone());
                }
            }
        }
    }
    let mut files: Vec<String> = Vec::new();
    let mut library = None;
    let class_factories: Vec<ClassFactory> = classes
        .iter()
        .map(|class| {
            let found = index.for_class(class);
            let first = found.first();
            if let Some(f) = first {
                library.get_or_insert(f.library.as_str());
            }
            for f in &found {
                files.push(f.file.clone());
                files.extend(f.model_file.iter().cloned());
                files.extend(
                    f.traits
                        .iter()
                        .map(|t| t.file.clone())
                        .filter(|p| !p.is_empty()),
                );
            }
            ClassFactory {
                class: class.clone(),
                factory: first.map(|f| f.name.clone()),
                file: first.map(|f| f.file.clone()),
                line: first.map(|f| f.line),
                traits: first
                    .map(|f| f.traits.iter().map(|t| t.name.clone()).collect())
                    .unwrap_or_default(),
                other_factories: found.iter().skip(1).map(|f| f.name.clone()).collect(),
            }
        })
        .collect();
    let mut values = Vec::new();
    let mut warnings = Vec::new();
    for m in methods {
        let method = format!("{}{}", if m.kind == "class" { "." } else { "#" }, m.name);
        for c in &m.characteristics {
            let (Some(class), Some(attribute)) = (&c.setup.class, &c.attribute) else {
                continue;
            };
            if !matches!(
                c.kind,
                CharType::Boolean | CharType::Presence | CharType::Enum
            ) {
                continue;
            }
            let found = index.for_class(class);
            let Some(base) = found.first() else { continue };
            let attr = attribute.trim_end_matches('?');
            for v in &c.values {
                let Some(want) = Wanted::of(c.kind, &v.value) else {
                    continue;
                };
                let (status, trait_name, factory, suggested) = decide(base, &found, attr, &want);
                if status == "missing" {
                    if let Some(t) = &suggested {
                        warnings.push(format!(
                            "Factory trait :{t} not found (factory :{}, for {method} {} {})",
                            base.name,
                            c.name,
                            crate::ruby::inspect(&v.value)
                        ));
                    }
                }
                values.push(ValueTrait {
                    method: method.clone(),
                    characteristic: c.name.clone(),
                    value: v.value.clone(),
                    class: class.clone(),
                    attribute: attr.to_string(),
                    factory,
                    trait_name,
                    status,
                    suggested_trait: suggested,
                });
            }
        }
    }
    files.sort();
    files.dedup();
    Some(Detected {
        library,
        classes: class_factories,
        values,
        warnings,
        files,
    })
}

/// The value a context needs.
#[derive(Debug, Clone, PartialEq)]
enum Wanted {
    /// A boolean.
    Bool(bool),
    /// Present (`true`) or absent.
    Present(bool),
    /// An enum value (its text).
    Enum(String),
}

impl Wanted {
    fn of(kind: CharType, value: &Value) -> Option<Wanted> {
        let text = crate::ruby::to_s(value);
        match kind {
            CharType::Boolean => match value {
                Value::Bool(b) => Some(Wanted::Bool(*b)),
                _ => None,
            },
            CharType::Presence => Some(Wanted::Present(text != "nil" && !text.is_empty())),
            // `other`: any other value; no trait sets that up.
            CharType::Enum if text != "other" && !text.is_empty() => Some(Wanted::Enum(text)),
            _ => None,
        }
    }

    /// Whether a literal default gives this value.
    fn given_by(&self, literal: &Option<Literal>) -> bool {
        match (self, literal) {
            (Wanted::Bool(b), Some(Literal::Bool(l))) => b == l,
            (Wanted::Present(true), Some(Literal::Nil)) => false,
            (Wanted::Present(true), _) => true,
            (Wanted::Present(false), Some(Literal::Nil)) => true,
            (Wanted::Enum(v), Some(Literal::Str(s) | Literal::Sym(s))) => v == s,
            (Wanted::Enum(v), Some(Literal::Int(i))) => *v == i.to_string(),
            _ => false,
        }
    }

    /// The value's natural default when a factory does not set the attribute: false and
    /// absent.
    fn is_blank(&self) -> bool {
        matches!(self, Wanted::Bool(false) | Wanted::Present(false))
    }
}

/// The trait names tried for a value of `attr`, in order.
fn candidates(attr: &str, want: &Wanted, base: &Factory) -> Vec<String> {
    let stem = attr
        .strip_prefix("is_")
        .or_else(|| attr.strip_prefix("has_"))
        .unwrap_or(attr);
    let at = attr.strip_suffix("_at");
    let mut out: Vec<String> = match want {
        Wanted::Bool(true) => [
            Some(attr.to_string()),
            Some(stem.to_string()),
            at.map(str::to_string),
        ]
        .into_iter()
        .flatten()
        .collect(),
        Wanted::Bool(false) => vec![
            format!("not_{stem}"),
            format!("non_{stem}"),
            format!("un{stem}"),
            format!("without_{stem}"),
        ],
        Wanted::Present(true) => [
            Some(format!("with_{attr}")),
            Some(attr.to_string()),
            Some(format!("has_{stem}")),
            at.map(str::to_string),
        ]
        .into_iter()
        .flatten()
        .collect(),
        Wanted::Present(false) => vec![format!("without_{attr}"), format!("no_{attr}")],
        Wanted::Enum(v) => vec![v.clone(), format!("{attr}_{v}"), format!("{v}_{attr}")],
    };
    // `status_completed?` / `completed_status?`: Rails' prefixed enum predicates.
    if matches!(want, Wanted::Bool(true)) {
        for t in &base.traits {
            if let TraitOrigin::Enum(e) = &t.origin {
                if attr == format!("{e}_{}", t.name) || attr == format!("{}_{e}", t.name) {
                    out.push(t.name.clone());
                }
            }
        }
    }
    out.dedup();
    out
}

/// `(status, trait, factory, suggested trait)` for one value.
fn decide(
    base: &Factory,
    all: &[&Factory],
    attr: &str,
    want: &Wanted,
) -> (&'static str, Option<String>, String, Option<String>) {
    let names = candidates(attr, want, base);
    let sets_it = |t: &crate::rails::factories::Trait, value_too: bool| {
        t.sets.iter().any(|(a, lit)| {
            (a == attr || a.trim_end_matches('?') == attr)
                && (!value_too || want.given_by(lit) || lit.is_none() && !want.is_blank())
        })
    };
    let found = |t: &crate::rails::factories::Trait| {
        ("trait", Some(t.name.clone()), base.name.clone(), None)
    };
    // 1. Named for it and setting the attribute.
    for n in &names {
        if let Some(t) = base.trait_named(n).filter(|t| sets_it(t, false)) {
            return found(t);
        }
    }
    // 2. Any trait setting the attribute to the value (a literal that matches; for a
    // truthy value, a computed one counts).
    if let Some(t) = base.traits.iter().find(|t| {
        t.sets.iter().any(|(a, lit)| {
            (a == attr) && (want.given_by(lit) || (lit.is_none() && !want.is_blank()))
        })
    }) {
        return found(t);
    }
    // 3. Named for it, unless it is an enum trait of another attribute (but the enum's own
    // predicate: `premium?` takes `premium`).
    for n in &names {
        if let Some(t) = base.trait_named(n) {
            let other_enum = matches!(&t.origin, TraitOrigin::Enum(e)
                if e != attr
                    && t.name != attr
                    && attr != format!("{e}_{}", t.name)
                    && attr != format!("{}_{e}", t.name));
            if !other_enum {
                return found(t);
            }
        }
    }
    // The base factory already gives it.
    let default = base.default_of(attr);
    let gives = match default {
        Some(lit) => want.given_by(lit),
        None => want.is_blank(),
    };
    if gives {
        return ("default", None, base.name.clone(), None);
    }
    // 4. Another factory of the class gives it by default.
    if let Some(other) = all.iter().skip(1).find(|f| {
        f.default_of(attr)
            .is_some_and(|lit| want.given_by(lit) || (lit.is_none() && !want.is_blank()))
    }) {
        return ("factory", None, other.name.clone(), None);
    }
    let suggested = match want {
        Wanted::Bool(true) => Some(
            attr.strip_suffix("_at")
                .unwrap_or(attr.strip_prefix("is_").unwrap_or(attr))
                .to_string(),
        ),
        Wanted::Present(true) => Some(format!("with_{attr}")),
        Wanted::Enum(v) => Some(v.clone()),
        // Setting `attr: false` or `attr: nil` inline is all a test needs; no warning.
        Wanted::Bool(false) | Wanted::Present(false) => None,
    };
    match suggested {
        Some(s) => ("missing", None, base.name.clone(), Some(s)),
        None => ("attribute", None, base.name.clone(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rails::factories::{parse, FactoryIndex, Resolve};

    fn index(src: &str) -> FactoryIndex {
        let enums = |class: &str| match class {
            "Payment" => (
                Some("app/models/payment.rb".to_string()),
                vec![(
                    "status".to_string(),
                    vec![
                        "pending".to_string(),
                        "completed".to_string(),
                        "refunded".to_string(),
                    ],
                )],
            ),
            _ => (None, Vec::new()),
        };
        FactoryIndex::build(
            vec![parse("spec/factories/f.rb", src.as_bytes())],
            &Resolve {
                enums: &enums,
                automatic_enum_traits: true,
            },
        )
    }

    fn decide_for(
        idx: &FactoryIndex,
        class: &str,
        attr: &str,
        want: Wanted,
    ) -> (&'static str, Option<String>, String, Option<String>) {
        let all = idx.for_class(class);
        decide(all[0], &all, attr, &want)
    }

    const FACTORIES: &str = "FactoryBot.define do\n  factory :user do\n    admin { false }\n    confirmed_at { 1.day.ago }\n    trait :admin do\n      is_admin { true }\n    end\n    trait :banned do\n      banned_at { Time.current }\n    end\n  end\n  factory :payment do\n    status { :pending }\n    trait :paid do\n      status { :completed }\n    end\n    factory :refunded_payment do\n      refunded_at { 1.hour.ago }\n    end\n  end\nend\n";

    #[test]
    fn a_trait_named_for_the_value_or_setting_it() {
        let idx = index(FACTORIES);
        // `user.admin?`: the trait named admin (it sets is_admin: taken on its name).
        assert_eq!(
            decide_for(&idx, "User", "admin", Wanted::Bool(true))
                .1
                .as_deref(),
            Some("admin")
        );
        // `user.is_admin?`: the stem's trait, which sets it.
        assert_eq!(
            decide_for(&idx, "User", "is_admin", Wanted::Bool(true))
                .1
                .as_deref(),
            Some("admin")
        );
        // `banned_at.present?`: the trait that sets it.
        assert_eq!(
            decide_for(&idx, "User", "banned_at", Wanted::Present(true))
                .1
                .as_deref(),
            Some("banned")
        );
        // `status == "completed"`: the enum trait, and `paid` sets it too; the name wins.
        assert_eq!(
            decide_for(&idx, "Payment", "status", Wanted::Enum("completed".into()))
                .1
                .as_deref(),
            Some("completed")
        );
        // `status_completed?`: Rails' prefixed predicate.
        assert_eq!(
            decide_for(&idx, "Payment", "status_completed", Wanted::Bool(true))
                .1
                .as_deref(),
            Some("completed")
        );
    }

    #[test]
    fn defaults_other_factories_and_missing_traits() {
        let idx = index(FACTORIES);
        // The factory's default is false: `admin: false` needs nothing.
        assert_eq!(
            decide_for(&idx, "User", "admin", Wanted::Bool(false)).0,
            "default"
        );
        // A trait named for the value is named even when the factory's default gives it.
        assert_eq!(
            decide_for(&idx, "Payment", "status", Wanted::Enum("pending".into()))
                .1
                .as_deref(),
            Some("pending")
        );
        // `refunded_at` is set by another factory of the class, not by the enum's
        // `refunded` trait (which sets status).
        let d = decide_for(&idx, "Payment", "refunded_at", Wanted::Present(true));
        assert_eq!((d.0, d.2.as_str()), ("factory", "refunded_payment"));
        // Nothing sets `premium`: missing, with the trait to add.
        let d = decide_for(&idx, "User", "premium", Wanted::Bool(true));
        assert_eq!((d.0, d.3.as_deref()), ("missing", Some("premium")));
        let d = decide_for(&idx, "User", "locked_at", Wanted::Present(true));
        assert_eq!((d.0, d.3.as_deref()), ("missing", Some("with_locked_at")));
        // The factory sets confirmed_at: absent needs `confirmed_at: nil`, no warning.
        assert_eq!(
            decide_for(&idx, "User", "confirmed_at", Wanted::Present(false)).0,
            "attribute"
        );
    }
}
