//! How Psych (Ruby's YAML, which the pipeline loads metadata with) reads a plain scalar:
//! a port of `Psych::ScalarScanner#tokenize` (YAML 1.1 rules: `yes`/`on` are booleans,
//! `:sym` is a Symbol, `1_000` and `0755` are integers, `2024-01-01` is a Date).

/// What a plain scalar means to Psych.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// `~`, `null`, `Null`, `NULL`, or nothing.
    Null,
    /// `true/yes/on`, `false/no/off` in any case.
    Bool(bool),
    /// An Integer that fits in 64 bits.
    Int(i64),
    /// A Float (also `.inf`, `-.inf`, `.nan`).
    Float(f64),
    /// A Symbol (`:card`, `:"two words"`), without the colon.
    Symbol(String),
    /// A Date: `YAML.load` refuses it (`Psych::DisallowedClass`).
    Date,
    /// A Time: `YAML.load` refuses it (`Psych::DisallowedClass`).
    Time,
    /// Anything else: a String.
    Str,
}

/// Classifies a plain (unquoted, untagged) scalar the way Psych does.
pub fn tokenize(s: &str) -> Scalar {
    if s.is_empty() {
        return Scalar::Null;
    }
    if starts_like_a_word(s) || s.contains('\n') {
        if s.chars().nth(5).is_some() {
            return Scalar::Str;
        }
        let first = s.chars().next().map(|c| c.to_ascii_lowercase());
        if !matches!(first, Some('y' | 't' | 'o' | 'n' | 'f' | '~')) {
            return Scalar::Str;
        }
        let lower = s.to_ascii_lowercase();
        return match lower.as_str() {
            "~" | "null" => Scalar::Null,
            "yes" | "true" | "on" => Scalar::Bool(true),
            "no" | "false" | "off" => Scalar::Bool(false),
            _ => Scalar::Str,
        };
    }
    if is_time(s) {
        return Scalar::Time;
    }
    if is_valid_date(s) {
        return Scalar::Date;
    }
    let lower = s.to_ascii_lowercase();
    if lower == ".inf" || lower == "+.inf" {
        return Scalar::Float(f64::INFINITY);
    }
    if lower == "-.inf" {
        return Scalar::Float(f64::NEG_INFINITY);
    }
    if lower == ".nan" {
        return Scalar::Float(f64::NAN);
    }
    if let Some(rest) = s.strip_prefix(':') {
        if !rest.is_empty() {
            return Scalar::Symbol(symbol_name(rest));
        }
    }
    if let Some(value) = sexagesimal_int(s) {
        return value;
    }
    if let Some(value) = sexagesimal_float(s) {
        return value;
    }
    if is_float(s) {
        let bare = s.strip_prefix(['-', '+']).unwrap_or(s);
        if bare == "." {
            return Scalar::Str;
        }
        let cleaned: String = s.chars().filter(|&c| c != ',' && c != '_').collect();
        let cleaned = drop_dot_before_exponent(&cleaned);
        return match cleaned.parse::<f64>() {
            Ok(f) => Scalar::Float(f),
            Err(_) => Scalar::Str,
        };
    }
    if is_integer(s) {
        return parse_int(s).map_or(Scalar::Str, Scalar::Int);
    }
    Scalar::Str
}

/// Psych's "looks like a word" test: `/^[^\d.:-]?[[:alpha:]_\s!@#$%\^&*(){}<>|\/\\~;=]+/`.
fn starts_like_a_word(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if in_word_class(first) {
        return true;
    }
    let optional = !(first.is_ascii_digit() || matches!(first, '.' | ':' | '-'));
    optional && chars.next().is_some_and(in_word_class)
}

fn in_word_class(c: char) -> bool {
    c.is_alphabetic()
        || c.is_whitespace()
        || matches!(
            c,
            '_' | '!'
                | '@'
                | '#'
                | '$'
                | '%'
                | '^'
                | '&'
                | '*'
                | '('
                | ')'
                | '{'
                | '}'
                | '<'
                | '>'
                | '|'
                | '/'
                | '\\'
                | '~'
                | ';'
                | '='
        )
}

fn symbol_name(rest: &str) -> String {
    // `:"two words"` and `:'x'` name the quoted text.
    for quote in ['"', '\''] {
        if let Some(inner) = rest.strip_prefix(quote) {
            if let Some(end) = inner.rfind(quote) {
                let name = inner.get(..end).unwrap_or(inner);
                return name.strip_prefix(':').unwrap_or(name).to_string();
            }
        }
    }
    rest.to_string()
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `^-?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?(?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?$`
fn is_time(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let Some((date, rest)) = split_date_time(s) else {
        return false;
    };
    let parts: Vec<&str> = date.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    if !(y.len() == 4
        && digits(y)
        && (1..=2).contains(&m.len())
        && digits(m)
        && (1..=2).contains(&d.len())
        && digits(d))
    {
        return false;
    }
    // Time: h:mm:ss(.frac)?(zone)?
    let time_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
        .unwrap_or(rest.len());
    let (time, zone) = rest.split_at(time_end);
    let (hms, frac) = match time.split_once('.') {
        Some((hms, frac)) => (hms, Some(frac)),
        None => (time, None),
    };
    if frac.is_some_and(|f| !f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let t: Vec<&str> = hms.split(':').collect();
    let [h, mi, se] = t.as_slice() else {
        return false;
    };
    if !((1..=2).contains(&h.len())
        && digits(h)
        && mi.len() == 2
        && digits(mi)
        && se.len() == 2
        && digits(se))
    {
        return false;
    }
    let zone = zone.trim_start();
    if zone.is_empty() || zone == "Z" {
        return true;
    }
    let Some(offset) = zone.strip_prefix(['-', '+']) else {
        return false;
    };
    let (hh, mm) = match offset.split_once(':') {
        Some((hh, mm)) => (hh, mm),
        None if offset.len() > 2 => offset.split_at(offset.len() - 2),
        None => (offset, ""),
    };
    (1..=2).contains(&hh.len()) && digits(hh) && (mm.is_empty() || (mm.len() == 2 && digits(mm)))
}

fn split_date_time(s: &str) -> Option<(&str, &str)> {
    let pos = s.find(['T', 't', ' ', '\t'])?;
    let date = s.get(..pos)?;
    let rest = s.get(pos..)?;
    let rest = rest
        .strip_prefix(['T', 't'])
        .unwrap_or_else(|| rest.trim_start_matches([' ', '\t']));
    Some((date, rest))
}

/// `^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$`. Psych asks its class loader for
/// `Date` before parsing, so even an impossible day (`2024-02-30`) is refused by `YAML.load`.
fn is_valid_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    if !(y.len() == 4 && digits(y) && digits(m) && digits(d)) {
        return false;
    }
    let month_ok = matches!(m.as_bytes(), [_] | [b'0', _] | [b'1', b'0'..=b'2']);
    let day_ok = matches!(
        d.as_bytes(),
        [_] | [b'0' | b'1' | b'2', _] | [b'3', b'0' | b'1']
    );
    month_ok && day_ok
}

fn split_sexagesimal(s: &str) -> Option<Vec<&str>> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let parts: Vec<&str> = body.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let head = parts.first()?;
    if !head.starts_with(|c: char| c.is_ascii_digit())
        || !head.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    Some(s.split(':').collect())
}

fn sixty_ok(part: &str) -> bool {
    // `[0-5]?[0-9]`
    match part.as_bytes() {
        [d] => d.is_ascii_digit(),
        [a, b] => (b'0'..=b'5').contains(a) && b.is_ascii_digit(),
        _ => false,
    }
}

/// `^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$`, summed the way Psych sums it.
fn sexagesimal_int(s: &str) -> Option<Scalar> {
    let parts = split_sexagesimal(s)?;
    if !parts.iter().skip(1).all(|p| sixty_ok(p)) {
        return None;
    }
    let mut total: i64 = 0;
    for (e, n) in parts.iter().enumerate() {
        let weight = 60i64.checked_pow(u32::try_from((e as i64 - 2).unsigned_abs()).ok()?)?;
        total = total.checked_add(ruby_to_i(n).checked_mul(weight)?)?;
    }
    Some(Scalar::Int(total))
}

/// `^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}\.[0-9_]*$`
fn sexagesimal_float(s: &str) -> Option<Scalar> {
    let parts = split_sexagesimal(s)?;
    let (last, init) = parts.split_last()?;
    let (whole, frac) = last.split_once('.')?;
    if !frac.bytes().all(|b| b.is_ascii_digit() || b == b'_') || !sixty_ok(whole) {
        return None;
    }
    if !init.iter().skip(1).all(|p| sixty_ok(p)) {
        return None;
    }
    let mut total = 0.0f64;
    for (e, n) in parts.iter().enumerate() {
        let weight = 60f64.powi(i32::try_from((e as i64 - 2).abs()).ok()?);
        total += ruby_to_f(n) * weight;
    }
    Some(Scalar::Float(total))
}

/// Ruby's `String#to_i`: leading sign and digits (underscores between digits allowed).
fn ruby_to_i(s: &str) -> i64 {
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let mut value: i64 = 0;
    for c in body.chars() {
        if let Some(d) = c.to_digit(10) {
            value = value.saturating_mul(10).saturating_add(i64::from(d));
        } else if c != '_' {
            break;
        }
    }
    if neg {
        -value
    } else {
        value
    }
}

fn ruby_to_f(s: &str) -> f64 {
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit() || c == '.' || c == '_' || (i == 0 && (c == '-' || c == '+')))
        })
        .map_or(s.len(), |(i, _)| i);
    let cleaned: String = s
        .get(..end)
        .unwrap_or(s)
        .chars()
        .filter(|&c| c != '_')
        .collect();
    cleaned.parse().unwrap_or(0.0)
}

/// `^(?:[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`
fn is_float(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let Some((int, rest)) = body.split_once('.') else {
        return false;
    };
    let int_ok = int.is_empty()
        || (int.starts_with(|c: char| c.is_ascii_digit())
            && int
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'_' || b == b','));
    if !int_ok {
        return false;
    }
    let (frac, exp) = match rest.find(['e', 'E']) {
        Some(pos) => (rest.get(..pos).unwrap_or(""), rest.get(pos + 1..)),
        None => (rest, None),
    };
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    match exp {
        None => true,
        Some(e) => {
            let Some(digits_part) = e.strip_prefix(['-', '+']) else {
                return false;
            };
            digits(digits_part)
        }
    }
}

/// Psych's `.gsub(/\.([Ee]|$)/, '\1')`.
fn drop_dot_before_exponent(s: &str) -> String {
    if let Some(stripped) = s.strip_suffix('.') {
        return stripped.to_string();
    }
    s.replace(".e", "e").replace(".E", "E")
}

/// Psych's INTEGER: binary, octal, decimal (with `_` or `,` between digits) or hex.
fn is_integer(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if let Some(bin) = body.strip_prefix("0b") {
        return !bin.is_empty() && bin.bytes().all(|b| matches!(b, b'0' | b'1' | b'_' | b','));
    }
    if let Some(hex) = body.strip_prefix("0x") {
        return !hex.is_empty()
            && hex
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b'_' || b == b',');
    }
    if body == "0" {
        return true;
    }
    if let Some(oct) = body.strip_prefix('0') {
        return !oct.is_empty() && oct.bytes().all(|b| matches!(b, b'0'..=b'7' | b'_' | b','));
    }
    // [1-9](?:[0-9]|,[0-9]|_[0-9])*
    let bytes = body.as_bytes();
    let Some((&first, rest)) = bytes.split_first() else {
        return false;
    };
    if !(b'1'..=b'9').contains(&first) {
        return false;
    }
    let mut i = 0;
    while let Some(&b) = rest.get(i) {
        if b.is_ascii_digit() {
            i += 1;
        } else if (b == b',' || b == b'_') && rest.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 2;
        } else {
            return false;
        }
    }
    true
}

/// Ruby's `Integer(s.delete(',_'))` for the forms `is_integer` accepts.
fn parse_int(s: &str) -> Option<i64> {
    let cleaned: String = s.chars().filter(|&c| c != ',' && c != '_').collect();
    let (neg, body) = match cleaned.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (
            false,
            cleaned.strip_prefix('+').unwrap_or(&cleaned).to_string(),
        ),
    };
    let magnitude = if let Some(bin) = body.strip_prefix("0b") {
        i64::from_str_radix(bin, 2).ok()?
    } else if let Some(hex) = body.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        i64::from_str_radix(body.get(1..)?, 8).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(if neg { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_yaml_1_1_booleans() {
        assert_eq!(tokenize("present"), Scalar::Str);
        assert_eq!(tokenize("nil"), Scalar::Str);
        assert_eq!(tokenize("yes"), Scalar::Bool(true));
        assert_eq!(tokenize("On"), Scalar::Bool(true));
        assert_eq!(tokenize("off"), Scalar::Bool(false));
        assert_eq!(tokenize("y"), Scalar::Str);
        assert_eq!(tokenize("NULL"), Scalar::Null);
        assert_eq!(tokenize("~"), Scalar::Null);
        assert_eq!(tokenize(""), Scalar::Null);
        assert_eq!(tokenize("false_positive"), Scalar::Str);
    }

    #[test]
    fn numbers() {
        assert_eq!(tokenize("42"), Scalar::Int(42));
        assert_eq!(tokenize("-7"), Scalar::Int(-7));
        assert_eq!(tokenize("1_000"), Scalar::Int(1000));
        assert_eq!(tokenize("1,000"), Scalar::Int(1000));
        assert_eq!(tokenize("0755"), Scalar::Int(493));
        assert_eq!(tokenize("0x1F"), Scalar::Int(31));
        assert_eq!(tokenize("0b101"), Scalar::Int(5));
        assert_eq!(tokenize("08"), Scalar::Str);
        assert_eq!(tokenize("1.5"), Scalar::Float(1.5));
        assert_eq!(tokenize("1."), Scalar::Float(1.0));
        assert_eq!(tokenize("1.0e+3"), Scalar::Float(1000.0));
        assert_eq!(tokenize("1e3"), Scalar::Str);
        assert_eq!(tokenize("."), Scalar::Str);
        assert_eq!(tokenize(".inf"), Scalar::Float(f64::INFINITY));
        assert_eq!(tokenize("-.inf"), Scalar::Float(f64::NEG_INFINITY));
    }

    #[test]
    fn sexagesimal_numbers_use_psychs_weights() {
        // Psych weighs part e by 60 ** (e - 2).abs
        assert_eq!(tokenize("1:30"), Scalar::Int(3600 + 30 * 60));
        assert_eq!(tokenize("1:02:03"), Scalar::Int(3600 + 2 * 60 + 3));
    }

    #[test]
    fn symbols() {
        assert_eq!(tokenize(":card"), Scalar::Symbol("card".into()));
        assert_eq!(
            tokenize(":\"two words\""),
            Scalar::Symbol("two words".into())
        );
        assert_eq!(tokenize(":"), Scalar::Str);
    }

    #[test]
    fn dates_and_times_are_recognised() {
        assert_eq!(tokenize("2024-01-15"), Scalar::Date);
        assert_eq!(tokenize("2024-02-30"), Scalar::Date);
        assert_eq!(tokenize("2024-13-01"), Scalar::Str);
        assert_eq!(tokenize("2024-1-5"), Scalar::Date);
        assert_eq!(tokenize("2024-01-15T10:20:30Z"), Scalar::Time);
        assert_eq!(tokenize("2024-01-15 10:20:30.5 +02:00"), Scalar::Time);
        assert_eq!(tokenize("2024-01-15x"), Scalar::Str);
    }
}
