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
    let parts: Vec<&str> = snake
        .split(['_', '/', ':'])
        .filter(|p| !p.is_empty())
        .collect();
    // `keep_or_discards`, `find_or_create`: one name, not two things joined by `or` (in
    // a context, `NOT keep or discards including x` would read as a compound).
    let mut out = String::with_capacity(snake.len());
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            let joined = *part == "or" || parts.get(i - 1) == Some(&"or");
            let inner = (*part == "or" && i + 1 < parts.len())
                || (parts.get(i - 1) == Some(&"or") && i >= 2);
            out.push(if joined && inner { '-' } else { ' ' });
        }
        out.push_str(part);
    }
    out
}

/// The indefinite article of a word as it is read aloud: `an order`, `an update`, but
/// `a user`, `a unit` ("you").
pub fn indefinite_article(word: &str) -> &'static str {
    let b = word.as_bytes();
    let you = b.first() == Some(&b'u')
        && b.get(1).is_some_and(|c| !b"aeiou".contains(c))
        && b.get(2).is_some_and(|c| b"aeiou".contains(c));
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) && !you {
        "an"
    } else {
        "a"
    }
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

/// Whether [`behavior`] rewrites `word` (a modal, or `not`): text that must keep its
/// words (a quoted string) cannot hold it.
pub fn rewritten(word: &str) -> bool {
    let lower = word.to_lowercase();
    lower == "not" || MODALS.iter().any(|(m, _)| *m == lower)
}

/// Splits text into runs of word characters and the rest, the way a regex `\b` sees it
/// (letters, digits and `_` are word characters, in any script).
fn runs(text: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut current: Option<bool> = None;
    for (i, c) in text.char_indices() {
        let word = c.is_alphanumeric() || c == '_';
        match current {
            Some(w) if w == word => {}
            Some(w) => {
                out.push((w, text.get(start..i).unwrap_or("")));
                start = i;
                current = Some(word);
            }
            None => current = Some(word),
        }
    }
    if let Some(w) = current {
        out.push((w, text.get(start..).unwrap_or("")));
    }
    out
}

/// Rewrites whole words (as `\b...\b` finds them): `f` returns the replacement.
fn rewrite_words(text: &str, f: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    for (word, part) in runs(text) {
        match (word, f(part)) {
            (true, Some(replacement)) => out.push_str(&replacement),
            _ => out.push_str(part),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first words of the noun phrases the analyzer writes with their own article (`a
/// hash`, `an empty list`, `a link to the user`, `a new record`, `a list of words`).
const ARTICLE_NOUNS: &[&str] = &[
    "hash", "list", "link", "new", "empty", "string", "text", "time", "span", "script", "image",
];

/// One article before a noun: a text put together from parts (`returns a link to the`
/// and a noun that has its own article, `a hash`) reads `a link to a hash`, not `the a
/// hash`. Only outside quoted text.
fn single_article(text: &str) -> String {
    let parts = runs(text);
    let mut out = String::with_capacity(text.len());
    let mut quoted = false;
    for (i, &(word, part)) in parts.iter().enumerate() {
        if !word {
            quoted ^= part.matches('"').count() % 2 == 1;
        }
        let next_word = parts
            .get(i + 2)
            .filter(|_| parts.get(i + 1).is_some_and(|(w, gap)| !w && *gap == " "));
        // `the a` is only a doubled article before a noun phrase that carries its own
        // (`a hash`, `an empty list`, `a link to`): a variable named `a` keeps `the a`.
        let after = parts
            .get(i + 4)
            .filter(|_| parts.get(i + 3).is_some_and(|(w, gap)| !w && *gap == " "));
        let doubled = word
            && !quoted
            && part.eq_ignore_ascii_case("the")
            && next_word.is_some_and(|(w, n)| {
                *w && (*n == "the"
                    || (matches!(*n, "a" | "an")
                        && after.is_some_and(|(w, noun)| *w && ARTICLE_NOUNS.contains(noun))))
            });
        // The doubled article goes; the spaces around it are joined below.
        if !doubled {
            out.push_str(part);
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Words that may stand twice in a row in English (`that that`, `had had`).
const DOUBLED_ON_PURPOSE: &[&str] = &["that", "had"];

/// A text put together from parts says a word once where two parts meet on it
/// (`payment` + `payment method` → `payment method`, `sends test email` + `email`,
/// `responding to` + `to unsafe hash`). Quoted text is kept as written.
pub fn single_words(text: &str) -> String {
    let parts = runs(text);
    let mut out = String::with_capacity(text.len());
    let mut quoted = false;
    let mut last_word: Option<&str> = None;
    for &(word, part) in &parts {
        if !word {
            quoted ^= part.matches('"').count() % 2 == 1;
            if part != " " {
                last_word = None;
            }
            out.push_str(part);
            continue;
        }
        let repeated = !quoted
            && last_word.is_some_and(|w| {
                w.eq_ignore_ascii_case(part)
                    && !DOUBLED_ON_PURPOSE.contains(&part.to_lowercase().as_str())
            });
        if !repeated {
            out.push_str(part);
        }
        last_word = Some(part);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` with each whole word `word` (outside quotes and parentheses: `(as v)` names a
/// block's own variable) said as `with`.
pub fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    let mut quoted = false;
    let mut depth = 0usize;
    for (is_word, part) in runs(text) {
        if !is_word {
            quoted ^= part.matches('"').count() % 2 == 1;
            depth = (depth + part.matches('(').count()).saturating_sub(part.matches(')').count());
            out.push_str(part);
        } else if !quoted && depth == 0 && part == word {
            out.push_str(with);
        } else {
            out.push_str(part);
        }
    }
    out
}

/// A behavior description the validator accepts.
pub fn behavior(text: &str) -> String {
    let text = single_words(text);
    let text = text.as_str();
    let mut out = rewrite_words(text, &|w| {
        let lower = w.to_lowercase();
        if lower == "not" {
            return Some("NOT".to_string());
        }
        MODALS
            .iter()
            .find(|(m, _)| *m == lower)
            .map(|(_, r)| (*r).to_string())
    });
    out = single_article(&out);
    while runs(&out)
        .first()
        .is_some_and(|(w, part)| *w && part.eq_ignore_ascii_case("it"))
    {
        out = out.get(2..).unwrap_or("").trim_start().to_string();
    }
    if out.is_empty() {
        "works".to_string()
    } else {
        out
    }
}

const CONTEXT_WORDS: &[&str] = &["when", "with", "and", "but", "without"];
const BINARY_VERBS: &[&str] = &["has", "have", "is", "are", "was", "were"];

/// A value description the validator accepts: no leading context word; for binary
/// characteristics at level >= 2, none of has/have/is/are/was/were; `not` as `NOT`.
pub fn value_description(text: &str, binary_deep: bool) -> String {
    let text = single_words(text);
    let text = text.as_str();
    let mut out = rewrite_words(text, &|w| {
        let lower = w.to_lowercase();
        if lower == "not" {
            Some("NOT".to_string())
        } else if binary_deep && BINARY_VERBS.contains(&lower.as_str()) {
            Some(String::new())
        } else {
            None
        }
    });
    loop {
        let first = runs(&out).into_iter().next();
        match first {
            Some((true, word)) if CONTEXT_WORDS.iter().any(|c| word.eq_ignore_ascii_case(c)) => {
                out = out.get(word.len()..).unwrap_or("").trim_start().to_string();
            }
            _ => break,
        }
    }
    if out.is_empty() {
        "value".to_string()
    } else {
        out
    }
}

/// A predicate as an adjective phrase: `admin?` → `admin`, `has_subscription?` →
/// `subscription`, `is_active?` → `active`, `can_refund?` → `refund allowed`.
pub fn predicate_phrase(name: &str) -> String {
    let bare = name.trim_end_matches(['?', '!']);
    if let Some(rest) = bare.strip_prefix("can_") {
        return format!("{} allowed", words(rest));
    }
    // Nested sets' `is_or_is_ancestor_of?(other)`: the record itself or its ancestor.
    if let Some(rest) = bare.strip_prefix("is_or_is_") {
        return format!("same-or-{}", words(rest));
    }
    for prefix in [
        "has_", "have_", "is_", "are_", "was_", "were_", "does_", "did_",
    ] {
        if let Some(rest) = bare.strip_prefix(prefix) {
            return words(rest);
        }
    }
    // Rails' query on a timestamp: `deleted_at?` asks whether it was deleted.
    if let Some(rest) = bare
        .strip_suffix("_at")
        .or_else(|| bare.strip_suffix("_on"))
    {
        if !rest.is_empty() {
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
    // `identifier` splits CamelCase words (`SomeError` → `some_error`), so the
    // description keeps its case until then.
    let id = identifier(&description.replace(['\'', '"'], ""));
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
    fn a_word_where_two_parts_meet_is_said_once() {
        assert_eq!(
            single_words("payment payment method presence"),
            "payment method presence"
        );
        assert_eq!(single_words("sends test email email"), "sends test email");
        assert_eq!(
            single_words("attrs responding to to unsafe hash"),
            "attrs responding to unsafe hash"
        );
        // Quoted text and words doubled on purpose stay.
        assert_eq!(single_words("returns \"no no\""), "returns \"no no\"");
        assert_eq!(single_words("says that that works"), "says that that works");
        // Only words side by side: a comma between them keeps both.
        assert_eq!(single_words("red, red"), "red, red");
        assert_eq!(
            behavior("renders index template with with subprojects set"),
            "renders index template with subprojects set"
        );
    }

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
    fn names_with_an_inner_or_read_as_one() {
        assert_eq!(words("keep_or_discards"), "keep-or-discards");
        assert_eq!(
            words("redirect_back_or_default"),
            "redirect back-or-default"
        );
        assert_eq!(words("redirect_to_referer_or"), "redirect to referer or");
        assert_eq!(words("order_total"), "order total");
        assert_eq!(
            predicate_phrase("is_or_is_ancestor_of?"),
            "same-or-ancestor of"
        );
    }

    #[test]
    fn behaviors_keep_one_article_before_a_noun() {
        assert_eq!(
            behavior("returns a link to the a hash"),
            "returns a link to a hash"
        );
        assert_eq!(
            behavior("adds to the an empty list"),
            "adds to an empty list"
        );
        assert_eq!(
            behavior("redirects to the the params"),
            "redirects to the params"
        );
        // A lone `the` before another word, and quoted text, stay.
        assert_eq!(behavior("returns the answer"), "returns the answer");
        assert_eq!(
            behavior("renders \"the a\" then the note"),
            "renders \"the a\" then the note"
        );
        assert_eq!(behavior("sets the other"), "sets the other");
        // A variable named `a`.
        assert_eq!(behavior("returns the a"), "returns the a");
        assert_eq!(
            behavior("returns the a with a set to a plus 1"),
            "returns the a with a set to a plus 1"
        );
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
    fn word_boundaries_are_regex_word_boundaries() {
        assert_eq!(
            behavior("returns scope.where.not(id: 1)"),
            "returns scope.where.NOT(id: 1)"
        );
        assert_eq!(
            behavior("returns x.add(\"cannot be\")"),
            "returns x.add(\"is unable to be\")"
        );
        assert_eq!(behavior("returns :not_found"), "returns :not_found");
        assert_eq!(
            value_description("!@story.is resubmit", true),
            "!@story. resubmit"
        );
        assert_eq!(value_description("and then", false), "then");
        assert_eq!(value_description("android", false), "android");
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
        assert_eq!(behavior_id("raises SomeError"), "raises_some_error");
        assert_eq!(
            behavior_id("raises Billing::CardError"),
            "raises_billing_card_error"
        );
        assert_eq!(
            behavior_id("returns NOT refundable result"),
            "returns_not_refundable_result"
        );
        assert_eq!(
            behavior_id("returns JSON response"),
            "returns_json_response"
        );
        let long = behavior_id(&"returns a very long description ".repeat(5));
        assert!(long.len() <= 60 && !long.ends_with('_'), "{long}");
        assert_eq!(identifier("2fa_enabled"), "value_2fa_enabled");
    }
}
