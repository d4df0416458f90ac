//! The validator's wording rules, applied when text is generated so every description
//! passes `validate --stage code-analyzer`: behavior texts have no modal verbs, do not
//! start with `it`, and write `NOT` in capitals; value descriptions do not start with a
//! context word and, at level >= 2 of a binary characteristic, avoid has/have/is/are/was/were.

/// Turns a Ruby identifier into words: `total_cents` → `total cents`, `refundable?` →
/// `refundable`, `PaymentGateway` → `payment gateway`.
pub fn words(identifier: &str) -> String {
    let snake = crate::naming::underscore(
        identifier
            .trim_start_matches('@')
            .trim_end_matches(['?', '!', '=']),
    );
    snake
        .replace(['_', '/', ':'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A snake_case identifier safe for `let(:name)`: `[a-z0-9_]`, not starting with a digit.
pub fn identifier(text: &str) -> String {
    let mut out = String::new();
    for c in crate::naming::underscore(text).chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches('_').to_string();
    if trimmed.is_empty() {
        "condition".to_string()
    } else if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        format!("value_{trimmed}")
    } else {
        trimmed
    }
}

const MODALS: &[(&str, &str)] = &[
    ("cannot", "is unable to"),
    ("can", "is able to"),
    ("should", ""),
    ("could", ""),
    ("would", ""),
    ("may", ""),
    ("might", ""),
    ("must", ""),
];

/// A behavior description the validator accepts.
pub fn behavior(text: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let lower = word.to_ascii_lowercase();
        if lower == "not" {
            words.push("NOT".to_string());
            continue;
        }
        if let Some((_, replacement)) = MODALS.iter().find(|(m, _)| *m == lower) {
            words.extend(replacement.split_whitespace().map(str::to_string));
            continue;
        }
        words.push(word.to_string());
    }
    while words.first().is_some_and(|w| w.eq_ignore_ascii_case("it")) {
        words.remove(0);
    }
    let joined = words.join(" ");
    if joined.is_empty() {
        "works".to_string()
    } else {
        joined
    }
}

const CONTEXT_WORDS: &[&str] = &["when", "with", "and", "but", "without"];
const BINARY_VERBS: &[&str] = &["has", "have", "is", "are", "was", "were"];

/// A value description the validator accepts: no leading context word; for binary
/// characteristics at level >= 2, none of has/have/is/are/was/were; `not` as `NOT`.
pub fn value_description(text: &str, binary_deep: bool) -> String {
    let mut words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            if w.eq_ignore_ascii_case("not") {
                "NOT".to_string()
            } else {
                w.to_string()
            }
        })
        .collect();
    while words
        .first()
        .is_some_and(|w| CONTEXT_WORDS.iter().any(|c| w.eq_ignore_ascii_case(c)))
    {
        words.remove(0);
    }
    if binary_deep {
        words.retain(|w| !BINARY_VERBS.iter().any(|v| w.eq_ignore_ascii_case(v)));
    }
    let joined = words.join(" ");
    if joined.is_empty() {
        "value".to_string()
    } else {
        joined
    }
}

/// A predicate as an adjective phrase: `admin?` → `admin`, `has_subscription?` →
/// `subscription`, `is_active?` → `active`, `can_refund?` → `refund allowed`.
pub fn predicate_phrase(name: &str) -> String {
    let bare = name.trim_end_matches(['?', '!']);
    if let Some(rest) = bare.strip_prefix("can_") {
        return format!("{} allowed", words(rest));
    }
    for prefix in [
        "has_", "have_", "is_", "are_", "was_", "were_", "does_", "did_",
    ] {
        if let Some(rest) = bare.strip_prefix(prefix) {
            return words(rest);
        }
    }
    words(bare)
}

/// The characteristic name for a predicate, avoiding verb forms: `can_refund?` →
/// `refund_allowed`.
pub fn predicate_name(name: &str) -> String {
    let bare = name.trim_end_matches(['?', '!']);
    if let Some(rest) = bare.strip_prefix("can_") {
        return identifier(&format!("{rest}_allowed"));
    }
    for prefix in ["has_", "is_", "are_", "was_", "were_", "does_"] {
        if let Some(rest) = bare.strip_prefix(prefix) {
            return identifier(rest);
        }
    }
    identifier(bare)
}

/// A stable snake_case id for a behavior description (`raises Unauthorized` →
/// `raises_unauthorized`), at most 60 characters, cut at a word boundary.
pub fn behavior_id(description: &str) -> String {
    let id = identifier(
        &description
            .to_ascii_lowercase()
            .replace(['\'', '"', ':'], ""),
    );
    if id.len() <= 60 {
        return id;
    }
    let cut = id.get(..60).and_then(|s| s.rfind('_')).unwrap_or(60);
    id.get(..cut)
        .unwrap_or(&id)
        .trim_end_matches('_')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaviors_lose_modals_and_leading_it_and_capitalise_not() {
        assert_eq!(
            behavior("it should not refund the payment"),
            "NOT refund the payment"
        );
        assert_eq!(behavior("user can refund"), "user is able to refund");
        assert_eq!(behavior("returns nil"), "returns nil");
    }

    #[test]
    fn value_descriptions_follow_the_validator() {
        assert_eq!(value_description("with saved card", false), "saved card");
        assert_eq!(
            value_description("user is not admin", true),
            "user NOT admin"
        );
        assert_eq!(value_description("is", true), "value");
    }

    #[test]
    fn predicates_become_phrases_and_names() {
        assert_eq!(predicate_phrase("has_subscription?"), "subscription");
        assert_eq!(predicate_phrase("can_refund?"), "refund allowed");
        assert_eq!(predicate_phrase("refundable?"), "refundable");
        assert_eq!(predicate_name("can_refund?"), "refund_allowed");
        assert_eq!(predicate_name("is_active?"), "active");
    }

    #[test]
    fn ids_are_snake_case_and_bounded() {
        assert_eq!(behavior_id("raises Unauthorized"), "raises_unauthorized");
        assert_eq!(behavior_id("returns :skipped"), "returns_skipped");
        let long = behavior_id(&"returns a very long description ".repeat(5));
        assert!(long.len() <= 60 && !long.ends_with('_'), "{long}");
        assert_eq!(identifier("2fa_enabled"), "value_2fa_enabled");
    }
}
