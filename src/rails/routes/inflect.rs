//! English singular and plural as ActiveSupport's default inflections make them
//! (`activesupport/lib/active_support/inflections.rb`), for the names routes derive from a
//! resource: `resources :categories` nests under `:category_id`, `resource :profile` routes to
//! `ProfilesController`. An app's own rules (`config/initializers/inflections.rb`) are not read.
//!
//! ActiveSupport tries the rules newest first and stops at the first that matches, even when
//! it changes nothing; irregular words are the newest, so they come first here. The rules
//! match the end of the whole string (`issue_statuses` → `issue_status`).

/// The singular of a plural name: `categories` → `category`, `news` → `news`.
pub(crate) fn singularize(word: &str) -> String {
    inflect(word, false)
}

/// The plural of a singular name: `profile` → `profiles`, `search` → `searches`.
pub(crate) fn pluralize(word: &str) -> String {
    inflect(word, true)
}

/// Words that are their own plural: a whole name or its last word after a non-word byte.
const UNCOUNTABLE: &[&str] = &[
    "equipment",
    "information",
    "rice",
    "money",
    "species",
    "series",
    "fish",
    "sheep",
    "jeans",
    "police",
];

/// `irregular(singular, plural)`, in the order ActiveSupport defines them.
const IRREGULAR: &[(&str, &str)] = &[
    ("person", "people"),
    ("man", "men"),
    ("child", "children"),
    ("sex", "sexes"),
    ("move", "moves"),
    ("zombie", "zombies"),
];

fn inflect(word: &str, plural: bool) -> String {
    if word.is_empty() || uncountable(word) {
        return word.to_string();
    }
    let lower = word.to_ascii_lowercase();
    // Irregulars, newest first. Each adds two rules per direction and the one for the
    // plural form is the newer: `(p)eople$` is tried before `(p)erson$`. A rule keeps the
    // first letter as written and replaces the rest.
    for (singular, plural_form) in IRREGULAR.iter().rev() {
        let target = if plural { *plural_form } else { *singular };
        for from in [*plural_form, *singular] {
            if lower.ends_with(from) {
                let first = word.len() - from.len() + 1;
                let mut out = word.get(..first).unwrap_or(word).to_string();
                out.push_str(target.get(1..).unwrap_or(""));
                return out;
            }
        }
    }
    let rules = if plural { PLURAL } else { SINGULAR };
    for rule in rules {
        if let Some(out) = rule(&lower) {
            return out;
        }
    }
    word.to_string()
}

fn uncountable(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    UNCOUNTABLE.iter().any(|u| {
        lower.strip_suffix(u).is_some_and(|head| {
            head.is_empty()
                || head
                    .bytes()
                    .last()
                    .is_some_and(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
        })
    })
}

type Rule = fn(&str) -> Option<String>;

/// `w` with its last `n` bytes replaced by `with`.
fn swap(w: &str, n: usize, with: &str) -> Option<String> {
    let head = w.get(..w.len().checked_sub(n)?)?;
    Some(format!("{head}{with}"))
}

/// The byte before the last `n` bytes.
fn before(w: &str, n: usize) -> Option<u8> {
    w.len()
        .checked_sub(n + 1)
        .and_then(|i| w.as_bytes().get(i).copied())
}

fn vowel_or_y(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}

/// Singular rules, newest first (the reverse of their order in `inflections.rb`).
const SINGULAR: &[Rule] = &[
    // (database)s$
    |w| w.strip_suffix("databases").map(|h| format!("{h}database")),
    // (quiz)zes$
    |w| w.strip_suffix("quizzes").map(|h| format!("{h}quiz")),
    // (matr)ices$
    |w| w.strip_suffix("matrices").map(|h| format!("{h}matrix")),
    // (vert|ind)ices$
    |w| {
        ["vertices", "indices"]
            .iter()
            .find(|s| w.ends_with(*s))
            .and_then(|s| swap(w, s.len() - 4, "ex"))
    },
    // ^(ox)en
    |w| w.strip_prefix("oxen").map(|t| format!("ox{t}")),
    // (alias|status)(es)?$
    |w| {
        for stem in ["alias", "status"] {
            if w.ends_with(stem) {
                return Some(w.to_string());
            }
            if w.strip_suffix("es").is_some_and(|h| h.ends_with(stem)) {
                return swap(w, 2, "");
            }
        }
        None
    },
    // (octop|vir)(us|i)$
    |w| {
        for stem in ["octop", "vir"] {
            for end in ["us", "i"] {
                if w.strip_suffix(end).is_some_and(|h| h.ends_with(stem)) {
                    return swap(w, end.len(), "us");
                }
            }
        }
        None
    },
    // ^(a)x[ie]s$
    |w| (w == "axis" || w == "axes").then(|| "axis".to_string()),
    // (cris|test)(is|es)$
    |w| {
        for stem in ["cris", "test"] {
            for end in ["is", "es"] {
                if w.strip_suffix(end).is_some_and(|h| h.ends_with(stem)) {
                    return swap(w, 2, "is");
                }
            }
        }
        None
    },
    // (shoe)s$
    |w| w.ends_with("shoes").then(|| swap(w, 1, "")).flatten(),
    // (o)es$
    |w| w.ends_with("oes").then(|| swap(w, 2, "")).flatten(),
    // (bus)(es)?$
    |w| {
        if w.ends_with("buses") {
            swap(w, 2, "")
        } else if w.ends_with("bus") {
            Some(w.to_string())
        } else {
            None
        }
    },
    // ^(m|l)ice$
    |w| match w {
        "mice" => Some("mouse".to_string()),
        "lice" => Some("louse".to_string()),
        _ => None,
    },
    // (x|ch|ss|sh)es$
    |w| {
        ["xes", "ches", "sses", "shes"]
            .iter()
            .any(|s| w.ends_with(s))
            .then(|| swap(w, 2, ""))
            .flatten()
    },
    // (m)ovies$
    |w| w.ends_with("movies").then(|| swap(w, 1, "")).flatten(),
    // (s)eries$
    |w| w.ends_with("series").then(|| w.to_string()),
    // ([^aeiouy]|qu)ies$
    |w| {
        let consonant = before(w, 3).is_some_and(|b| !vowel_or_y(b));
        (w.ends_with("ies") && (consonant || w.ends_with("quies")))
            .then(|| swap(w, 3, "y"))
            .flatten()
    },
    // ([lr])ves$
    |w| {
        (w.ends_with("ves") && matches!(before(w, 3), Some(b'l' | b'r')))
            .then(|| swap(w, 3, "f"))
            .flatten()
    },
    // (tive)s$
    |w| w.ends_with("tives").then(|| swap(w, 1, "")).flatten(),
    // (hive)s$
    |w| w.ends_with("hives").then(|| swap(w, 1, "")).flatten(),
    // ([^f])ves$
    |w| {
        (w.ends_with("ves") && before(w, 3).is_some_and(|b| b != b'f'))
            .then(|| swap(w, 3, "fe"))
            .flatten()
    },
    // (^analy)(sis|ses)$
    |w| (w == "analysis" || w == "analyses").then(|| "analysis".to_string()),
    // ((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)(sis|ses)$
    |w| {
        for stem in [
            "analy", "ba", "diagno", "parenthe", "progno", "synop", "the",
        ] {
            for end in ["sis", "ses"] {
                if w.strip_suffix(end).is_some_and(|h| h.ends_with(stem)) {
                    return swap(w, 3, "sis");
                }
            }
        }
        None
    },
    // ([ti])a$
    |w| {
        (w.ends_with('a') && matches!(before(w, 1), Some(b't' | b'i')))
            .then(|| swap(w, 1, "um"))
            .flatten()
    },
    // (n)ews$
    |w| w.ends_with("news").then(|| w.to_string()),
    // (ss)$
    |w| w.ends_with("ss").then(|| w.to_string()),
    // s$
    |w| w.strip_suffix('s').map(str::to_string),
];

/// Plural rules, newest first.
const PLURAL: &[Rule] = &[
    // (quiz)$
    |w| w.ends_with("quiz").then(|| format!("{w}zes")),
    // ^(oxen)$, ^(ox)$
    |w| (w == "oxen" || w == "ox").then(|| "oxen".to_string()),
    // ^(m|l)ice$, ^(m|l)ouse$
    |w| match w {
        "mice" | "mouse" => Some("mice".to_string()),
        "lice" | "louse" => Some("lice".to_string()),
        _ => None,
    },
    // (matr|vert|ind)(?:ix|ex)$
    |w| {
        for stem in ["matr", "vert", "ind"] {
            for end in ["ix", "ex"] {
                if w.strip_suffix(end).is_some_and(|h| h.ends_with(stem)) {
                    return swap(w, 2, "ices");
                }
            }
        }
        None
    },
    // (x|ch|ss|sh)$
    |w| {
        ["x", "ch", "ss", "sh"]
            .iter()
            .any(|s| w.ends_with(s))
            .then(|| format!("{w}es"))
    },
    // ([^aeiouy]|qu)y$
    |w| {
        let consonant = before(w, 1).is_some_and(|b| !vowel_or_y(b));
        (w.ends_with('y') && (consonant || w.ends_with("quy")))
            .then(|| swap(w, 1, "ies"))
            .flatten()
    },
    // (hive)$
    |w| w.ends_with("hive").then(|| format!("{w}s")),
    // (?:([^f])fe|([lr])f)$
    |w| {
        if w.ends_with("fe") && before(w, 2).is_some_and(|b| b != b'f') {
            return swap(w, 2, "ves");
        }
        if w.ends_with('f') && matches!(before(w, 1), Some(b'l' | b'r')) {
            return swap(w, 1, "ves");
        }
        None
    },
    // sis$
    |w| w.ends_with("sis").then(|| swap(w, 3, "ses")).flatten(),
    // ([ti])a$
    |w| (w.ends_with('a') && matches!(before(w, 1), Some(b't' | b'i'))).then(|| w.to_string()),
    // ([ti])um$
    |w| {
        (w.ends_with("um") && matches!(before(w, 2), Some(b't' | b'i')))
            .then(|| swap(w, 2, "a"))
            .flatten()
    },
    // (buffal|tomat)o$
    |w| (w.ends_with("buffalo") || w.ends_with("tomato")).then(|| format!("{w}es")),
    // (bu)s$
    |w| w.ends_with("bus").then(|| format!("{w}es")),
    // (alias|status)$
    |w| (w.ends_with("alias") || w.ends_with("status")).then(|| format!("{w}es")),
    // (octop|vir)i$, (octop|vir)us$
    |w| {
        for stem in ["octop", "vir"] {
            if w.strip_suffix('i').is_some_and(|h| h.ends_with(stem)) {
                return Some(w.to_string());
            }
            if w.strip_suffix("us").is_some_and(|h| h.ends_with(stem)) {
                return swap(w, 2, "i");
            }
        }
        None
    },
    // ^(ax|test)is$
    |w| match w {
        "axis" => Some("axes".to_string()),
        "testis" => Some("testes".to_string()),
        _ => None,
    },
    // s$
    |w| w.ends_with('s').then(|| w.to_string()),
    // $
    |w| Some(format!("{w}s")),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singular_of_resource_names_seen_in_routes() {
        let cases = [
            ("projects", "project"),
            ("categories", "category"),
            ("issue_categories", "issue_category"),
            ("time_entries", "time_entry"),
            ("issue_statuses", "issue_status"),
            ("email_addresses", "email_address"),
            ("boxes", "box"),
            ("branches", "branch"),
            ("wishes", "wish"),
            ("news", "news"),
            ("wiki", "wiki"),
            ("data", "datum"),
            ("media", "medium"),
            ("people", "person"),
            ("salespeople", "salesperson"),
            ("children", "child"),
            ("men", "man"),
            ("human", "human"),
            ("series", "series"),
            ("police", "police"),
            ("leaves", "leafe"),
            ("wolves", "wolf"),
            ("wives", "wife"),
            ("movies", "movie"),
            ("quizzes", "quiz"),
            ("analyses", "analysis"),
            ("diagnoses", "diagnosis"),
            ("heroes", "hero"),
            ("buses", "bus"),
            ("mice", "mouse"),
            ("vertices", "vertex"),
            ("matrices", "matrix"),
            ("octopi", "octopus"),
            ("aliases", "alias"),
            ("databases", "database"),
            ("caches", "cach"),
            ("traces", "trace"),
            ("status", "status"),
            ("address", "address"),
            ("oxen", "ox"),
            ("zombies", "zombie"),
            ("moves", "move"),
            ("equipment", "equipment"),
            ("user_preferences", "user_preference"),
            ("", ""),
        ];
        let got: Vec<(&str, String)> = cases.iter().map(|(p, _)| (*p, singularize(p))).collect();
        let want: Vec<(&str, String)> = cases.iter().map(|(p, s)| (*p, s.to_string())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn plural_of_singular_resource_names() {
        let cases = [
            ("profile", "profiles"),
            ("search", "searches"),
            ("company", "companies"),
            ("status", "statuses"),
            ("inbox", "inboxes"),
            ("reply", "replies"),
            ("day", "days"),
            ("data", "data"),
            ("terms", "terms"),
            ("directions", "directions"),
            ("capabilities", "capabilities"),
            ("person", "people"),
            ("child", "children"),
            ("woman", "women"),
            ("sheep", "sheep"),
            ("half", "halves"),
            ("knife", "knives"),
            ("hive", "hives"),
            ("basis", "bases"),
            ("medium", "media"),
            ("buffalo", "buffaloes"),
            ("bus", "buses"),
            ("virus", "viri"),
            ("axis", "axes"),
            ("quiz", "quizzes"),
            ("index", "indices"),
            ("mouse", "mice"),
            ("ox", "oxen"),
            ("account", "accounts"),
        ];
        let got: Vec<(&str, String)> = cases.iter().map(|(s, _)| (*s, pluralize(s))).collect();
        let want: Vec<(&str, String)> = cases.iter().map(|(s, p)| (*s, p.to_string())).collect();
        assert_eq!(got, want);
    }
}
