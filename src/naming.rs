//! Ruby and Rails naming: `camelize`, `underscore`, the constant a file path should define
//! (Zeitwerk), slugs and spec paths. Pure string functions shared by every stage.

use crate::vocab::ControllerLayout;

/// `payment_gateway` → `PaymentGateway`; `billing/invoice` → `Billing::Invoice`.
pub fn camelize(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len() + 4);
    camelize_into(&mut out, snake);
    out
}

/// [`camelize`], appended to `out` (constant resolution camelizes every variable name of
/// every method into one reused buffer).
pub fn camelize_into(out: &mut String, snake: &str) {
    if snake.is_ascii() {
        camelize_ascii(out, snake);
    } else {
        camelize_words(out, snake);
    }
}

/// [`camelize`] of an ASCII name: each word (between `_` and `/`) copied whole, its first
/// byte upper-cased.
fn camelize_ascii(out: &mut String, snake: &str) {
    let mut rest = snake;
    loop {
        let end = rest
            .bytes()
            .position(|b| b == b'_' || b == b'/')
            .unwrap_or(rest.len());
        let word = rest.get(..end).unwrap_or_default();
        if let Some(first) = word.bytes().next() {
            out.push(char::from(first.to_ascii_uppercase()));
            out.push_str(word.get(1..).unwrap_or_default());
        }
        match rest.as_bytes().get(end) {
            Some(b'/') => out.push_str("::"),
            Some(_) => {}
            None => return,
        }
        rest = rest.get(end + 1..).unwrap_or_default();
    }
}

/// [`camelize`] of any name: segments on `/`, words on `_`, each word's first character
/// in Unicode upper case.
fn camelize_words(out: &mut String, snake: &str) {
    for (i, segment) in snake.split('/').enumerate() {
        if i > 0 {
            out.push_str("::");
        }
        for word in segment.split('_') {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
        }
    }
}

/// `PaymentGateway` → `payment_gateway`; `HTMLParser` → `html_parser`; `API::V1` → `api/v1`
/// (ActiveSupport's rules, without inflection acronyms).
pub fn underscore(camel: &str) -> String {
    if camel.is_ascii() {
        underscore_ascii(camel.as_bytes())
    } else {
        underscore_chars(camel)
    }
}

/// [`underscore`] of an ASCII name (every class name of every file is compared with its
/// path in this form): the same rules, on bytes.
fn underscore_ascii(camel: &[u8]) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    let mut rest = camel;
    let mut prev: Option<u8> = None;
    while let Some((&first, after)) = rest.split_first() {
        let mut c = first;
        rest = after;
        if c == b':' {
            if let Some(after) = rest.strip_prefix(b":") {
                rest = after;
                c = b'/';
            }
        }
        if c.is_ascii_uppercase() {
            let next = rest.first().copied();
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary {
                out.push('_');
            }
            out.push(char::from(c.to_ascii_lowercase()));
        } else if c == b'-' {
            out.push('_');
        } else {
            out.push(char::from(c));
        }
        prev = Some(c);
    }
    out
}

/// [`underscore`] of any name, character by character.
fn underscore_chars(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    // One pass, `::` read as `/` on the way (no copy of the text, no list of chars).
    let mut chars = camel.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(mut c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            c = '/';
        }
        // The next character as the `/`-form would show it: only whether it is lowercase
        // is asked, and neither `:` nor `/` is.
        let next = chars.peek().copied();
        if c.is_uppercase() {
            let boundary = match prev {
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(char::is_lowercase),
                _ => false,
            };
            if boundary {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else if c == '-' {
            out.push('_');
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    out
}

/// The roots Zeitwerk autoloads from, relative to a component root, longest first.
const AUTOLOAD_PREFIXES: &[&str] = &["app/models/concerns/", "app/controllers/concerns/", "lib/"];

/// Splits a project-relative path into its component prefix (`""` for the main app,
/// `packs/billing/` in a packwerk monorepo) and the rest (`app/models/x.rb`).
pub fn split_component(path: &str) -> (&str, &str) {
    if path.starts_with("app/") || path.starts_with("lib/") {
        return ("", path);
    }
    for marker in ["/app/", "/lib/"] {
        if let Some(pos) = path.find(marker) {
            let split = pos + 1;
            return (
                path.get(..split).unwrap_or(""),
                path.get(split..).unwrap_or(path),
            );
        }
    }
    ("", path)
}

/// The constant a file should define by Rails naming: `app/models/billing/invoice.rb` →
/// `Billing::Invoice`, `app/models/concerns/billable.rb` → `Billable`, `lib/x/y.rb` → `X::Y`.
pub fn expected_constant(path: &str) -> Option<String> {
    let (_, rest) = split_component(path);
    let stem = rest.strip_suffix(".rb")?;
    let relative = AUTOLOAD_PREFIXES
        .iter()
        .find_map(|p| stem.strip_prefix(p))
        .or_else(|| {
            // app/<anything>/x → x
            let after_app = stem.strip_prefix("app/")?;
            after_app.split_once('/').map(|(_, r)| r)
        })?;
    if relative.is_empty() {
        return None;
    }
    Some(camelize(relative))
}

/// Whether `constant` (as written in code, maybe with acronyms such as `API::V1`) is the
/// constant `path` should define. Compared in underscored form so inflection acronyms match.
pub fn constant_matches_path(constant: &str, path: &str) -> bool {
    PathConstant::of(path).matches(constant)
}

/// The constant a path should define, in the form [`constant_matches_path`] compares: made
/// once per file when many constants are compared with one path.
#[derive(Debug, Clone)]
pub struct PathConstant(Option<String>);

impl PathConstant {
    /// The expected constant of `path`, underscored.
    pub fn of(path: &str) -> Self {
        PathConstant(expected_constant(path).map(|e| underscore(&e)))
    }

    /// Whether `constant` is it.
    pub fn matches(&self, constant: &str) -> bool {
        self.0
            .as_deref()
            .is_some_and(|expected| expected == underscore(constant))
    }
}

/// The metadata slug of a source path: `/` → `_`, no `.rb` (the contract's rule).
pub fn slug(path: &str) -> String {
    path.strip_suffix(".rb").unwrap_or(path).replace('/', "_")
}

/// The `n`th slug a source path may take, in order of preference: 0 is the contract's
/// [`slug`]; when another file already has it (`app/controllers/mod/mails_controller.rb`
/// and `app/controllers/mod_mails_controller.rb` both slug to
/// `app_controllers_mod_mails_controller`), 1 is the path with `/` → `__`, 2 that with a
/// hash of the path appended, and later ones that with `_n`. Each is a function of the
/// path alone, so a file's slug never depends on which other files a run looks at.
pub fn slug_candidate(path: &str, n: usize) -> String {
    let stem = path.strip_suffix(".rb").unwrap_or(path);
    match n {
        0 => slug(path),
        // A path without folders has no second form: it is marked as one.
        1 if stem.contains('/') => stem.replace('/', "__"),
        1 => format!("{stem}__"),
        _ => {
            let hashed = format!(
                "{}__{:08x}",
                stem.replace('/', "__"),
                fnv1a(path.as_bytes()) & 0xffff_ffff
            );
            if n == 2 {
                hashed
            } else {
                format!("{hashed}_{}", n - 1)
            }
        }
    }
}

/// FNV-1a, 64 bits: a hash with a fixed definition, so a slug made from it is the same
/// on every machine and in every version.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The spec path of a source path: `app/X.rb` → `spec/X_spec.rb`, `lib/X.rb` →
/// `spec/lib/X_spec.rb`, controllers by `policy`. Components keep their prefix
/// (`packs/billing/app/models/x.rb` → `packs/billing/spec/models/x_spec.rb`).
/// Other paths have no conventional spec path.
pub fn spec_path(path: &str, policy: ControllerLayout) -> Option<String> {
    let (component, rest) = split_component(path);
    let stem = rest.strip_suffix(".rb")?;
    if let Some(controller) = stem.strip_prefix("app/controllers/") {
        return Some(match policy {
            ControllerLayout::Request => {
                let base = controller.strip_suffix("_controller").unwrap_or(controller);
                format!("{component}spec/requests/{base}_spec.rb")
            }
            ControllerLayout::Controller => {
                format!("{component}spec/controllers/{controller}_spec.rb")
            }
        });
    }
    if let Some(app) = stem.strip_prefix("app/") {
        return Some(format!("{component}spec/{app}_spec.rb"));
    }
    if let Some(lib) = stem.strip_prefix("lib/") {
        return Some(format!("{component}spec/lib/{lib}_spec.rb"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camelize_and_underscore_round_trip_rails_names() {
        assert_eq!(camelize("payment_gateway"), "PaymentGateway");
        assert_eq!(camelize("billing/invoice_item"), "Billing::InvoiceItem");
        assert_eq!(underscore("PaymentGateway"), "payment_gateway");
        assert_eq!(underscore("HTMLParser"), "html_parser");
        assert_eq!(
            underscore("API::V1::UsersController"),
            "api/v1/users_controller"
        );
        assert_eq!(underscore("OAuth2Client"), "o_auth2_client");
    }

    #[test]
    fn ascii_camelize_matches_the_general_form() {
        for input in [
            "",
            "_",
            "__",
            "a",
            "a_b",
            "a__b",
            "_x",
            "x_",
            "a//b",
            "/a",
            "a/",
            "v1_api",
            "1abc",
            "billing/invoice_item",
            "HTML_parser",
            "already_Camel",
            "x-y",
            "a.b_c",
            "payment_gateway/v2_client",
        ] {
            let (mut ascii, mut words) = (String::from("X"), String::from("X"));
            camelize_ascii(&mut ascii, input);
            camelize_words(&mut words, input);
            assert_eq!(ascii, words, "{input:?}");
            // Appended after what the buffer holds.
            assert_eq!(ascii, format!("X{}", camelize(input)), "{input:?}");
        }
        assert_eq!(camelize("über_grün"), "ÜberGrün");
    }

    #[test]
    fn underscore_of_ascii_names_is_the_character_rules() {
        // Every pair of characters that the rules look at: case, digits, `::`, `-`, `_`.
        let alphabet = ["A", "b", "C", "d", "1", "::", ":", "-", "_", "/", "Z", "z"];
        let mut names = vec![String::new()];
        for _ in 0..4 {
            names = names
                .iter()
                .flat_map(|n| alphabet.iter().map(move |a| format!("{n}{a}")))
                .collect();
            for name in &names {
                assert_eq!(
                    underscore_ascii(name.as_bytes()),
                    underscore_chars(name),
                    "{name:?}"
                );
            }
        }
    }

    #[test]
    fn underscore_edge_cases() {
        // What ActiveSupport's rules (and this function before its one-pass form) give.
        for (input, expected) in [
            ("", ""),
            ("A", "a"),
            ("AB", "ab"),
            ("ABc", "a_bc"),
            ("A::B", "a/b"),
            ("ABC::Def", "abc/def"),
            ("HTTPServer2", "http_server2"),
            ("V1::API", "v1/api"),
            (":::", "/:"),
            ("::", "/"),
            (":", ":"),
            ("A:B", "a:b"),
            ("A::", "a/"),
            ("::Y", "/y"),
            ("A:::B", "a/:b"),
            ("Foo-Bar", "foo_bar"),
            ("ÄÖÜber", "äö_über"),
            ("a1B2C", "a1_b2_c"),
            ("XMLHttp::Request::JSONBody", "xml_http/request/json_body"),
            ("K::V::", "k/v/"),
        ] {
            assert_eq!(underscore(input), expected, "{input:?}");
        }
    }

    #[test]
    fn expected_constant_follows_zeitwerk_roots() {
        assert_eq!(
            expected_constant("app/models/billing/invoice.rb").as_deref(),
            Some("Billing::Invoice")
        );
        assert_eq!(
            expected_constant("app/models/concerns/billable.rb").as_deref(),
            Some("Billable")
        );
        assert_eq!(
            expected_constant("app/controllers/concerns/authn.rb").as_deref(),
            Some("Authn")
        );
        assert_eq!(
            expected_constant("lib/tasks_helper/runner.rb").as_deref(),
            Some("TasksHelper::Runner")
        );
        assert_eq!(
            expected_constant("packs/billing/app/services/charge.rb").as_deref(),
            Some("Charge")
        );
        assert_eq!(expected_constant("script/x.rb"), None);
    }

    #[test]
    fn acronym_constants_match_their_path() {
        assert!(constant_matches_path(
            "API::V1::UsersController",
            "app/controllers/api/v1/users_controller.rb"
        ));
        assert!(!constant_matches_path(
            "Api::V2::UsersController",
            "app/controllers/api/v1/users_controller.rb"
        ));
    }

    #[test]
    fn spec_paths_follow_the_pipeline_rules() {
        let p = ControllerLayout::Request;
        assert_eq!(
            spec_path("app/models/payment.rb", p).as_deref(),
            Some("spec/models/payment_spec.rb")
        );
        assert_eq!(
            spec_path("lib/money/parser.rb", p).as_deref(),
            Some("spec/lib/money/parser_spec.rb")
        );
        assert_eq!(
            spec_path("app/controllers/admin/users_controller.rb", p).as_deref(),
            Some("spec/requests/admin/users_spec.rb")
        );
        assert_eq!(
            spec_path(
                "app/controllers/admin/users_controller.rb",
                ControllerLayout::Controller
            )
            .as_deref(),
            Some("spec/controllers/admin/users_controller_spec.rb")
        );
        assert_eq!(
            spec_path("packs/billing/app/models/invoice.rb", p).as_deref(),
            Some("packs/billing/spec/models/invoice_spec.rb")
        );
        assert_eq!(spec_path("script/x.rb", p), None);
    }

    #[test]
    fn colliding_paths_have_distinct_fallback_slugs() {
        let nested: Vec<String> = (0..4)
            .map(|n| slug_candidate("app/controllers/mod/mails_controller.rb", n))
            .collect();
        assert_eq!(
            nested,
            vec![
                "app_controllers_mod_mails_controller",
                "app__controllers__mod__mails_controller",
                "app__controllers__mod__mails_controller__cc08735f",
                "app__controllers__mod__mails_controller__cc08735f_2",
            ]
        );
        let flat = |n| slug_candidate("app/controllers/mod_mails_controller.rb", n);
        assert_eq!(flat(0), nested[0]);
        assert_eq!(flat(1), "app__controllers__mod_mails_controller");
        assert_eq!(slug_candidate("x.rb", 1), "x__");
    }

    #[test]
    fn slug_replaces_slashes_and_drops_extension() {
        assert_eq!(
            slug("app/services/payments/processor.rb"),
            "app_services_payments_processor"
        );
    }
}
