//! One condition → one characteristic: its type, name, descriptions and the two values
//! (truthy, falsy), following the contract's type decision tree (§5 rule 9):
//! 1. presence: `if x`, `x.present?`, `x.nil?`, `x.blank?`, `x.empty?` → `present`/`nil`;
//! 2. a predicate (`?`) → boolean `true`/`false`;
//! 3. a comparison (`>=`, `>`, `<=`, `<`) → range with `threshold_value`/`threshold_operator`;
//! 4. an equality with a literal → enum (the literal, and `other`).
//!
//! Compound conditions (`!`, `&&`, `||`, `&.`) are split by the walker before they get
//! here. Guessed (\[J\]): a call with arguments tested for truthiness is read as
//! "succeeds/fails"; any other expression as a boolean.
//!
//! Example: `if user.admin?` → boolean `user_admin`, values `admin user` / `NOT admin user`.

use crate::index::body::{Call, Node};
use crate::yaml::Value;

use super::grammar::{self, identifier, predicate_name, words};
use super::model::CharType;
use super::phrase;
use super::rules::Rule;
use super::types::{Lookup, TypeEnv, VarType};

/// A value before it is placed.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueSpec {
    /// The raw value.
    pub value: Value,
    /// The description (the grammar is applied when placed, knowing the level).
    pub description: String,
}

/// A characteristic before it is placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Type.
    pub kind: CharType,
    /// The value when the condition holds.
    pub truthy: ValueSpec,
    /// The value when it does not.
    pub falsy: ValueSpec,
    /// Range threshold and operator.
    pub threshold: Option<(Option<Value>, &'static str)>,
    /// A judgement rule applied, with its detail, for the notes.
    pub note: Option<(Rule, String)>,
}

/// The operands of `a || b || c` in order, however it nests.
pub fn or_operands(node: &Node) -> Vec<&Node> {
    match node {
        Node::Or(a, b, _) => {
            let mut out = or_operands(a);
            out.extend(or_operands(b));
            out
        }
        other => vec![other],
    }
}

/// `url.match(A) || url.match(B) || ...` (one subject, one predicate, several
/// arguments, three or more): one boolean, `url matching one of 8 patterns` / `url NOT
/// matching any of the 8 patterns`. `None` unless every operand is such a call on the
/// same receiver with a predicate that reads so.
pub fn any_of(operands: &[&Node]) -> Option<Spec> {
    // Two tests read as they are (`obj a Hash or obj a String`).
    if operands.len() < 3 {
        return None;
    }
    let calls: Vec<&Call> = operands
        .iter()
        .map(|n| match n {
            Node::Call(c) if c.args.len() == 1 && c.block.is_none() && c.recv.is_some() => {
                Some(&**c)
            }
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let first = calls.first()?;
    let recv = first.recv.as_ref()?.render();
    if !calls
        .iter()
        .all(|c| c.name == first.name && c.recv.as_ref().is_some_and(|r| r.render() == recv))
    {
        return None;
    }
    let subject = first.recv.as_ref().map(subject_words).unwrap_or_default();
    let predicate = match first.name.as_str() {
        "match" | "match?" | "=~" => "matching",
        "include?" | "includes?" => "including",
        "start_with?" => "starting with",
        "end_with?" => "ending with",
        _ => return None,
    };
    let n = calls.len();
    let what = if predicate == "matching" {
        "patterns"
    } else {
        "values"
    };
    let name = identifier(&format!("{subject} {predicate} any"));
    Some(Spec {
        name,
        description: format!("{subject} {predicate} one of {n} {what}"),
        kind: CharType::Boolean,
        truthy: value(
            Value::Bool(true),
            format!("{subject} {predicate} one of {n} {what}"),
        ),
        falsy: value(
            Value::Bool(false),
            format!("{subject} NOT {predicate} any of the {n} {what}"),
        ),
        threshold: None,
        note: None,
    })
}

/// One value of a condition as a clause that reads alone, split into its subject and what
/// it says of it, for joining with another condition (`a || b`): `("needs view param",
/// "missing")`, `("kind", "equal to \"a\"")`; `("", "admin user")` when the value's words say
/// it all.
pub fn clause(spec: &Spec, holds: bool) -> (String, String) {
    let v = if holds { &spec.truthy } else { &spec.falsy };
    match spec.kind {
        CharType::Presence => {
            let present = v.value.as_str() == Some("present");
            let subject = v
                .description
                .strip_suffix(" present")
                .or_else(|| v.description.strip_suffix(" missing"))
                .unwrap_or(&v.description)
                .to_string();
            (
                subject,
                if present { "present" } else { "missing" }.to_string(),
            )
        }
        CharType::Enum if spec.truthy.value.as_str() != Some("other") => {
            let literal = match &spec.truthy.value {
                Value::String(s) => format!("\"{s}\""),
                _ => spec.truthy.description.clone(),
            };
            let state = if holds {
                format!("equal to {literal}")
            } else {
                format!("NOT equal to {literal}")
            };
            (spec.description.clone(), state)
        }
        _ => (String::new(), v.description.clone()),
    }
}

fn value(v: Value, description: impl Into<String>) -> ValueSpec {
    ValueSpec {
        value: v,
        description: description.into(),
    }
}

/// Words for the object a node stands for: `payment`, `current user`, `payment gateway
/// charge` (for a local holding a call result).
pub fn subject_words(node: &Node) -> String {
    match node {
        Node::Lvar(n) | Node::Ivar(n) => words(n),
        Node::Const { path, .. } => words(path),
        Node::SelfRef => "self".to_string(),
        Node::Call(c) => match (&c.recv, c.name.as_str()) {
            (None, name) if c.args.is_empty() && name != "params" => words(name),
            (Some(Node::Call(inner)), "call" | "allowed?" | "valid?") if inner.name == "new" => {
                subject_words(&Node::Call(inner.clone()))
            }
            (Some(Node::Const { path, .. }), "new") => words(path),
            _ => without_article(&phrase::noun(node)),
        },
        Node::Array(items) => items
            .iter()
            .map(subject_words)
            .collect::<Vec<_>>()
            .join(" and "),
        other => without_article(&phrase::noun(other)),
    }
}

/// `the matching users` → `matching users` (a subject inside a longer phrase).
fn without_article(text: &str) -> String {
    for article in ["the ", "a ", "an "] {
        if let Some(rest) = text.strip_prefix(article) {
            return rest.to_string();
        }
    }
    text.to_string()
}

fn literal(node: &Node) -> Option<(Value, String)> {
    match node {
        Node::Str(s) => Some((Value::String(s.clone()), string_words(s))),
        Node::Sym(s) => Some((crate::yaml::symbol(s), words(s))),
        Node::Int(i) => Some((Value::from(*i), i.to_string())),
        Node::True => Some((Value::Bool(true), "true".to_string())),
        Node::False => Some((Value::Bool(false), "false".to_string())),
        _ => None,
    }
}

/// A string literal as a value's words: an identifier-like one in words (`"due_date"` →
/// `due date`), anything else quoted (`"!*"`).
fn string_words(s: &str) -> String {
    let identifier_like = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ' || c == '-');
    if identifier_like {
        s.replace(['_', '-'], " ")
    } else {
        format!("\"{s}\"")
    }
}

fn number(node: &Node) -> Option<Value> {
    match node {
        Node::Int(i) => Some(Value::from(*i)),
        Node::Float(f) => Some(Value::from(*f)),
        _ => None,
    }
}

fn is_time(node: &Node) -> bool {
    let text = node.render();
    [
        "ago",
        "from_now",
        "Time.",
        "Date.",
        "DateTime.",
        "today",
        "yesterday",
        "tomorrow",
        ".current",
    ]
    .iter()
    .any(|t| text.contains(t))
}

/// The characteristic for a simple condition (no `!`, `&&`, `||`, `&.` at its top).
pub fn spec(cond: &Node, env: &TypeEnv, lookup: &Lookup) -> Spec {
    match cond {
        Node::Not(inner) => flip_negated(spec(inner, env, lookup)),
        // `children.length == 1 && children[0].text?`; any other `&&` as a whole.
        Node::And(a, b) => single_element(a, b).unwrap_or_else(|| truthiness(cond)),
        // `options.delete(:include_subprojects)` reads (and removes) the option: the
        // option's presence, as `options[:include_subprojects]` is.
        Node::Call(call)
            if call.name == "delete"
                && call.recv.is_some()
                && call.block.is_none()
                && matches!(call.args.as_slice(), [Node::Sym(_)]) =>
        {
            let mut read = (**call).clone();
            read.name = "[]".to_string();
            spec(&Node::Call(Box::new(read)), env, lookup)
        }
        // `instance_variable_defined?(:@client_authentication)`: whether the option was
        // set at all (a configuration DSL's "configured" test).
        Node::Call(call)
            if call.name == "instance_variable_defined?"
                && matches!(call.recv, None | Some(Node::SelfRef))
                && matches!(call.args.as_slice(), [Node::Sym(_)]) =>
        {
            let ivar = match call.args.as_slice() {
                [Node::Sym(ivar)] => ivar.trim_start_matches('@'),
                _ => "",
            };
            let said = format!("{} set", words(ivar));
            yes_no(identifier(&said), format!("whether {said}"), said)
        }
        // A boolean column (`if prerelease`, `if user.admin`): Rails defines its `?`
        // reader, and a spec sets it to true or false, not to nil.
        Node::Call(call)
            if call.args.is_empty()
                && call.block.is_none()
                && !call.name.ends_with(['?', '!', '='])
                && boolean_column(call, env, lookup) =>
        {
            let mut predicate = (**call).clone();
            predicate.name.push('?');
            spec(&Node::Call(Box::new(predicate)), env, lookup)
        }
        Node::Call(call) => call_spec(call, env, lookup).unwrap_or_else(|| truthiness(cond)),
        Node::Or(..) => any_of(&or_operands(cond)).unwrap_or_else(|| truthiness(cond)),
        // A keyword or parameter whose default is `true`/`false` is a flag.
        Node::Lvar(name) if flag_like(name) || env.is_flag(name) => flag(name),
        Node::Lvar(_) | Node::Ivar(_) => presence(cond),
        Node::Assign { target, .. } => {
            let var = match target {
                crate::index::body::Target::Lvar(n)
                | crate::index::body::Target::Ivar(n)
                | crate::index::body::Target::Other(n) => n.clone(),
            };
            let noun = words(&var);
            Spec {
                name: identifier(&noun),
                description: format!("{noun} presence"),
                kind: CharType::Presence,
                truthy: value(Value::String("present".into()), noun.clone()),
                falsy: value(Value::String("nil".into()), noun),
                threshold: None,
                note: None,
            }
        }
        _ => truthiness(cond),
    }
}

/// Whether `call` reads a boolean column: an attribute of the method's own model (no
/// receiver, or `self`) or of a variable typed as a model.
fn boolean_column(call: &Call, env: &TypeEnv, lookup: &Lookup) -> bool {
    let class = match &call.recv {
        None | Some(Node::SelfRef) => Some(env.own().to_string()),
        Some(recv) => env.class_of(recv, lookup, env.own()),
    };
    class.is_some_and(|c| lookup.boolean_column(&c, &call.name))
}

/// Class methods that return one of the class's records (or a relation of them), not a
/// result object: ActiveRecord's finders and constructors.
pub(super) fn makes_a_record(method: &str) -> bool {
    matches!(
        method,
        "new"
            | "create"
            | "create!"
            | "build"
            | "find"
            | "find_by"
            | "find_by!"
            | "first"
            | "last"
            | "take"
            | "where"
            | "find_or_create_by"
            | "find_or_initialize_by"
    ) || method.starts_with("find_by_")
        || method.starts_with("find_or_")
}

/// `items.length == 1 && items[0].type == :text`: the collection holds one element, and
/// it passes the second test. An expert sets up "a single text child", not a size and
/// then its first element: one boolean (`single_child`: `a single child with type
/// equal to text`). `None` unless the second test reads the collection's first element.
pub fn single_element(a: &Node, b: &Node) -> Option<Spec> {
    let collection = single_size(a)?;
    let whole = collection.render();
    let owner = match collection {
        Node::Call(c) => c.name.as_str(),
        Node::Lvar(n) | Node::Ivar(n) => n.as_str(),
        _ => return None,
    };
    let one = singular(owner);
    let element = Node::Lvar(one.clone());
    let mut found = false;
    let test = first_element_as(b, &whole, &element, &mut found);
    if !found {
        return None;
    }
    let words_of_one = words(&one);
    let said = phrase::predicate(&test);
    let rest = said
        .strip_prefix(&format!("{words_of_one} "))
        .unwrap_or(&said)
        .to_string();
    // `option equal to selected` → `a single option equal to selected`; `child type
    // equal to text` → `a single child with type equal to text`.
    let relation = rest.split_whitespace().next().is_some_and(|w| {
        matches!(
            w,
            "equal"
                | "of"
                | "matching"
                | "including"
                | "NOT"
                | "responding"
                | "in"
                | "above"
                | "below"
                | "at"
                | "present"
                | "missing"
        )
    });
    let truthy = if relation {
        format!("a single {words_of_one} {rest}")
    } else {
        format!("a single {words_of_one} with {rest}")
    };
    Some(yes_no(
        identifier(&format!("single_{one}")),
        format!("whether {} holds {truthy}", subject_words(collection)),
        truthy,
    ))
}

/// `x.length == 1` (`size`, `count`): the collection `x`.
fn single_size(node: &Node) -> Option<&Node> {
    let Node::Call(eq) = node else { return None };
    if eq.name != "==" || !matches!(eq.args.as_slice(), [Node::Int(1)]) {
        return None;
    }
    let Some(Node::Call(size)) = eq.recv.as_ref() else {
        return None;
    };
    if !matches!(size.name.as_str(), "length" | "size" | "count") || !size.args.is_empty() {
        return None;
    }
    size.recv.as_ref()
}

/// `test` with `x[0]` and `x.first` (`x` rendered as `whole`) read as `element`.
fn first_element_as(test: &Node, whole: &str, element: &Node, found: &mut bool) -> Node {
    if let Node::Call(c) = test {
        let first = match c.name.as_str() {
            "[]" => matches!(c.args.as_slice(), [Node::Int(0)]),
            "first" => c.args.is_empty() && c.block.is_none(),
            _ => false,
        };
        if first && c.recv.as_ref().is_some_and(|r| r.render() == whole) {
            *found = true;
            return element.clone();
        }
    }
    test.map_children(&mut |child| first_element_as(child, whole, element, found))
}

/// `children` → `child`, `entries` → `entry`, `items` → `item`.
fn singular(name: &str) -> String {
    let name = name.trim_start_matches('@');
    if let Some(stem) = name.strip_suffix("children") {
        return format!("{stem}child");
    }
    if let Some(stem) = name.strip_suffix("ies") {
        return format!("{stem}y");
    }
    match name.strip_suffix('s') {
        Some(stem) if !stem.ends_with('s') && !stem.is_empty() => stem.to_string(),
        _ => format!("{name}_element"),
    }
}

/// A variable named like a yes/no flag (`linked`, `force`, `is_admin`, `notify`): its
/// truthiness is a boolean, not the presence of a value.
fn flag_like(name: &str) -> bool {
    const FLAGS: &[&str] = &[
        "force",
        "notify",
        "visible",
        "active",
        "strict",
        "silent",
        "quiet",
        "recursive",
        "raw",
        "async",
        "inline",
        "preview",
        "verbose",
        "dry_run",
        "all",
        "only_path",
        "include_private",
        "required",
        "allow_nil",
        "html",
        "escape",
        "public",
        "private",
    ];
    FLAGS.contains(&name)
        || [
            "is_", "has_", "can_", "should_", "with_", "allow_", "skip_", "show_", "use_",
        ]
        .iter()
        .any(|p| name.starts_with(p))
        || (name.ends_with("ed") && !name.ends_with("eed") && name.len() > 3)
}

pub(super) fn flag(name: &str) -> Spec {
    let phrase = super::grammar::predicate_phrase(name);
    yes_no(identifier(name), format!("whether {phrase}"), phrase)
}

/// A boolean whose true value reads `truthy` and whose false value reads `NOT truthy`.
fn yes_no(name: String, description: String, truthy: String) -> Spec {
    let falsy = not_phrase(&truthy);
    boolean(name, description, truthy, falsy)
}

/// `NOT truthy`; a predicate that says NOT itself (`value_not_text?`: "value NOT text")
/// loses its one NOT instead ("value text"), never "NOT value NOT text".
pub(crate) fn not_phrase(truthy: &str) -> String {
    let is_not = |w: &str| w.eq_ignore_ascii_case("not");
    let words: Vec<&str> = truthy.split(' ').collect();
    if words.len() > 1 && words.iter().filter(|w| is_not(w)).count() == 1 {
        words
            .into_iter()
            .filter(|w| !is_not(w))
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        format!("NOT {truthy}")
    }
}

/// A boolean with the words of each value.
pub(crate) fn boolean(name: String, description: String, truthy: String, falsy: String) -> Spec {
    Spec {
        name,
        description,
        kind: CharType::Boolean,
        truthy: value(Value::Bool(true), truthy),
        falsy: value(Value::Bool(false), falsy),
        threshold: None,
        note: None,
    }
}

fn presence(subject: &Node) -> Spec {
    let noun = subject_words(subject);
    Spec {
        name: identifier(&noun),
        description: format!("{noun} presence"),
        kind: CharType::Presence,
        truthy: value(Value::String("present".into()), noun.clone()),
        falsy: value(Value::String("nil".into()), noun),
        threshold: None,
        note: None,
    }
}

/// The value an equality with the empty string tests (`x.to_s == ""`, `"" == x.strip`),
/// without the conversion: the test is whether it is blank.
fn blank_test(call: &Call) -> Option<&Node> {
    let other = match (call.recv.as_ref()?, call.args.first()?) {
        (Node::Str(s), other) | (other, Node::Str(s)) if s.is_empty() && call.args.len() == 1 => {
            other
        }
        _ => return None,
    };
    let mut subject = other;
    while let Node::Call(c) = subject {
        match (&c.recv, c.name.as_str()) {
            (Some(inner), "to_s" | "to_str" | "strip" | "squish" | "chomp")
                if c.args.is_empty() && c.block.is_none() =>
            {
                subject = inner;
            }
            _ => break,
        }
    }
    Some(subject)
}

/// `!x` as a characteristic of `x` whose truthy value is `x`'s falsy one.
fn flip_negated(s: Spec) -> Spec {
    flip(s)
}

fn flip(mut s: Spec) -> Spec {
    std::mem::swap(&mut s.truthy, &mut s.falsy);
    s
}

fn call_spec(call: &Call, env: &TypeEnv, lookup: &Lookup) -> Option<Spec> {
    let name = call.name.as_str();
    let recv = call.recv.as_ref();
    match name {
        "present?" | "exists?" | "any?" | "presence"
            if call.args.is_empty() && call.block.is_none() =>
        {
            return recv.map(presence)
        }
        "nil?" | "blank?" | "empty?" | "none?" if call.args.is_empty() && call.block.is_none() => {
            return recv.map(|r| flip(presence(r)))
        }
        // `%w(data javascript).none?(scheme)`: the scheme is not one of them. Asked as
        // the membership (`scheme in "data" and "javascript"`), its values swapped, so the
        // context that sets a listed scheme up says so without a negation.
        "none?" | "any?"
            if call.block.is_none()
                && call.args.len() == 1
                && matches!(recv, Some(Node::Array(_) | Node::Const { .. }))
                && !matches!(call.args.first(), Some(Node::Other { .. })) =>
        {
            let mut member = call.clone();
            member.name = "include?".to_string();
            let spec = call_spec(&member, env, lookup)?;
            return Some(if name == "none?" { flip(spec) } else { spec });
        }
        // `args.any? { |s| RE.match?(s) }`: some element of the collection satisfies the
        // block; `all?`, `none?` alike.
        "any?" | "all?" | "none?" | "one?" if call.block.is_some() || !call.args.is_empty() => {
            let subject = recv.map_or_else(|| "records".to_string(), subject_words);
            let test = element_test(call);
            let quantifier = match name {
                "any?" => "some",
                "all?" => "all",
                "none?" => "no",
                _ => "exactly one",
            };
            let truthy = format!("{quantifier} {subject}{test}");
            // The other value in words (De Morgan): "no users active" for `any?`, "all
            // watchables allowed" for `any? { |w| !allowed }`, "some ..." for `none?`.
            let negated = negated_block(call).map(|inner| {
                let mut positive = call.clone();
                if let Some(b) = positive.block.as_mut() {
                    b.body = inner;
                }
                element_test(&positive)
            });
            let falsy = match (name, negated) {
                ("any?", Some(positive)) => format!("all {subject}{positive}"),
                ("any?", None) => format!("no {subject}{test}"),
                ("none?", None) => format!("some {subject}{test}"),
                _ => not_phrase(&truthy),
            };
            return Some(Spec {
                name: identifier(&format!("{quantifier}_{subject}")),
                description: format!("whether {truthy}"),
                kind: CharType::Boolean,
                truthy: value(Value::Bool(true), truthy.clone()),
                falsy: value(Value::Bool(false), falsy),
                threshold: None,
                note: None,
            });
        }
        // `params.key?(:auth_uid)`: the param is given.
        "key?" | "has_key?" | "include?" | "member?" if matches!(recv, Some(Node::Call(p)) if p.name == "params" && p.recv.is_none()) => {
            if let Some(Node::Sym(k) | Node::Str(k)) = call.args.first() {
                let noun = format!("{} param", words(k));
                return Some(yes_no(
                    identifier(&noun),
                    format!("whether the {noun} is given"),
                    format!("{noun} given"),
                ));
            }
        }
        // `params[:bbox]`, `options[:title]`: a value read from a hash is there or not.
        "[]" if call.args.len() == 1 && !matches!(recv, Some(Node::Lvar(_))) => {
            return Some(presence(&Node::Call(Box::new(call.clone()))))
        }
        // `user.try(:moderator?)`: the predicate on a receiver that may be nil.
        "try" if matches!(call.args.first(), Some(Node::Sym(s)) if s.ends_with('?')) => {
            if let Some(Node::Sym(s)) = call.args.first() {
                let plain = Call {
                    recv: call.recv.clone(),
                    name: s.clone(),
                    args: call.args.get(1..).unwrap_or_default().to_vec(),
                    block: None,
                    safe_nav: false,
                    line: call.line,
                };
                return call_spec(&plain, env, lookup);
            }
        }
        "=~" | "match?" | "match" | "!~" => {
            let subject = recv.map_or_else(String::new, subject_words);
            let truthy = phrase::predicate(&Node::Call(Box::new(call.clone())));
            let (truthy, falsy) = if name == "!~" {
                (
                    truthy.clone(),
                    truthy.replacen(" NOT matching ", " matching ", 1),
                )
            } else {
                (truthy.clone(), not_phrase(&truthy))
            };
            return Some(Spec {
                name: identifier(&format!("{subject}_matches")),
                description: format!("whether {truthy}"),
                kind: CharType::Boolean,
                truthy: value(Value::Bool(true), truthy),
                falsy: value(Value::Bool(false), falsy),
                threshold: None,
                note: None,
            });
        }
        ">=" | ">" | "<=" | "<" => return hierarchy(call).or_else(|| range(call)),
        // Numeric's sign predicates are a number against 0: a range, as `x > 0` is.
        "positive?" | "negative?" if call.args.is_empty() && call.block.is_none() => {
            let compared = Call {
                name: if name == "positive?" { ">" } else { "<" }.to_string(),
                args: vec![Node::Int(0)],
                ..call.clone()
            };
            return range(&compared);
        }
        "zero?" | "nonzero?" if call.args.is_empty() && call.block.is_none() => {
            let subject = recv.map_or_else(String::new, subject_words);
            let spec = Spec {
                name: identifier(&subject),
                description: subject.clone(),
                kind: CharType::Range,
                truthy: value(Value::String("zero".into()), "zero".to_string()),
                falsy: value(Value::String("non_zero".into()), "non-zero".to_string()),
                threshold: None,
                note: None,
            };
            return Some(if name == "nonzero?" { flip(spec) } else { spec });
        }
        "==" | "===" | "eql?" | "!=" => {
            // `cookie.to_s == ""`: whether the value is blank, a presence, not an enum
            // with an empty name.
            let spec = match blank_test(call).filter(|_| name != "===") {
                Some(blank) => flip(presence(blank)),
                None => equality(call)?,
            };
            return Some(if name == "!=" { flip(spec) } else { spec });
        }
        _ => {}
    }
    // `result[:success]` where `result = Processor.new.refund(...)`: the call's outcome.
    if let (Some(Node::Lvar(var)), "[]") = (recv, name) {
        let key = call.args.first().and_then(|k| match k {
            Node::Sym(s) | Node::Str(s) => Some(s.clone()),
            _ => None,
        });
        if let (Some(VarType::ResultOf { class, method }), Some(key)) =
            (env.var(var), key.as_deref())
        {
            if ["success", "ok", "succeeded", "successful"].contains(&key) {
                let base = format!("{} {}", words(class), words(method));
                return Some(Spec {
                    name: identifier(&format!("{}_result", words(method))),
                    description: format!("{base} result"),
                    kind: CharType::Boolean,
                    truthy: value(Value::Bool(true), format!("{base} succeeds")),
                    falsy: value(Value::Bool(false), format!("{base} fails")),
                    threshold: None,
                    note: None,
                });
            }
        }
        if call.args.len() == 1 {
            return Some(presence(&Node::Call(Box::new(call.clone()))));
        }
    }
    // `result.success?` where `result = @gateway.charge(...)`: the seed's gateway result.
    if let (Some(Node::Lvar(var)), true) = (recv, name.ends_with('?')) {
        if let Some(VarType::ResultOf { class, method }) = env.var(var).filter(|t| {
            // A record a finder or a constructor gave (`Attachment.find_by_token(t)`,
            // `User.new(...)`): its `invalid?` is its validation, not the call failing.
            !matches!(t, VarType::ResultOf { method, .. } if makes_a_record(method))
        }) {
            let outcome = [
                "success?",
                "successful?",
                "succeeded?",
                "ok?",
                "valid?",
                "paid?",
            ]
            .contains(&name);
            let failure = ["failure?", "failed?", "error?", "errors?", "invalid?"].contains(&name);
            if outcome || failure {
                let base = format!("{} {}", words(class), words(method));
                let s = Spec {
                    name: identifier(&format!("{}_result", words(method))),
                    description: format!("{base} result"),
                    kind: CharType::Boolean,
                    truthy: value(Value::Bool(true), format!("{base} succeeds")),
                    falsy: value(Value::Bool(false), format!("{base} fails")),
                    threshold: None,
                    note: None,
                };
                return Some(if failure { flip(s) } else { s });
            }
        }
    }
    if name.ends_with('?') {
        let subject = recv
            .filter(|r| !matches!(r, Node::SelfRef))
            .map(subject_words);
        let truthy = phrase::predicate(&Node::Call(Box::new(call.clone())));
        // `choice.is_a?(Array)`: named after the type asked (`choice_is_array`), not the
        // predicate's last word (`choice_a`).
        let type_asked = match (name, call.args.first()) {
            ("is_a?" | "kind_of?" | "instance_of?", Some(Node::Const { path, .. })) => {
                Some(words(path.rsplit("::").next().unwrap_or(path)))
            }
            _ => None,
        };
        // `%w[data javascript].include?(scheme)`: about the scheme (`scheme_listed`), not
        // the list's words.
        let listed = match (name, recv, call.args.first()) {
            ("include?" | "member?", Some(Node::Array(_)), Some(arg)) => {
                Some(identifier(&format!("{}_listed", subject_words(arg))))
            }
            _ => None,
        };
        let char_name = match (&subject, type_asked) {
            _ if listed.is_some() => listed.unwrap_or_default(),
            // `user.is_a?(User)`: `user_is_a_user`, not `user_is_user`.
            (Some(s), Some(t)) if identifier(s).ends_with(&identifier(&t)) => identifier(&format!(
                "{}_is_{}_{t}",
                identifier(s),
                grammar::indefinite_article(&t)
            )),
            (Some(s), Some(t)) => identifier(&format!("{}_is_{t}", identifier(s))),
            (None, Some(t)) => identifier(&format!("is_{t}")),
            (Some(s), None) => identifier(&format!("{}_{}", identifier(s), predicate_name(name))),
            (None, None) => predicate_name(name),
        };
        // A plain predicate reads as a clause (`whether current user is admin`); the
        // ones phrase.rs words specially (`link including "@"`) as they are.
        let plain = grammar::predicate_phrase(name);
        let description = match &subject {
            Some(s) if truthy == format!("{plain} {s}") || truthy == format!("{s} {plain}") => {
                format!("whether {s} is {plain}")
            }
            None if truthy == plain => format!("whether {plain}"),
            _ => format!("whether {truthy}"),
        };
        return Some(yes_no(char_name, description, truthy));
    }
    if call.args.is_empty()
        && call.block.is_none()
        && !name.ends_with('!')
        && !COMMANDS.contains(&name)
    {
        // `if current_user`, `if payment.transaction_id`: truthiness of a value.
        return Some(presence(&Node::Call(Box::new(call.clone()))));
    }
    // `if AuthService.find_by(uid: id)`, `user.emails.detect { ... }`, `hash.dig(:a,
    // :b)`: a lookup answers what it found or nil, a presence, not a success.
    let lookup_call = (name == "find_by" || (name.starts_with("find_by_") && !name.ends_with('!')))
        || name == "dig"
        || (matches!(name, "detect" | "find") && call.block.is_some());
    if lookup_call && call.recv.is_some() {
        return Some(presence(&Node::Call(Box::new(call.clone()))));
    }
    // `if @gateway.refund(id)`, `if @payment.save`: a command's result.
    let subject = subject_words(&Node::Call(Box::new(call.clone())));
    let _ = lookup;
    let known_command = COMMANDS.contains(&name) || name.ends_with('!');
    Some(Spec {
        name: identifier(&subject),
        description: format!("{subject} result"),
        kind: CharType::Boolean,
        truthy: value(Value::Bool(true), format!("{subject} succeeds")),
        falsy: value(Value::Bool(false), format!("{subject} fails")),
        threshold: None,
        note: (!known_command)
            .then(|| (Rule::TruthinessAsSuccess, format!("`{}`", call_text(call)))),
    })
}

/// What the block of `any?`/`all?` asks of an element, as a phrase after the collection
/// (`args matching HG_EARLY_BOOL_ARG`); empty when it cannot be said shortly.
/// The test inside `any? { |x| !test }`, when the block's last statement is a negation.
fn negated_block(call: &Call) -> Option<Node> {
    let block = call.block.as_ref()?;
    match block.body.statements().pop()? {
        Node::Not(inner) => Some(*inner),
        _ => None,
    }
}

fn element_test(call: &Call) -> String {
    let body = match &call.block {
        Some(b) => b.body.statements().pop(),
        None => call.args.first().cloned(),
    };
    match body {
        // `&:valid?`
        Some(Node::Other { text, .. }) if text.starts_with("&:") => {
            format!(" {}", words(text.trim_start_matches("&:")))
        }
        Some(node) => {
            let p = phrase::predicate(&node);
            // `HG_ARG.match?(s)` says `s matching HG_ARG`: keep what follows the element.
            match call.block.as_ref().and_then(|b| b.params.first()) {
                Some(param) => {
                    let param_words = words(param);
                    match p.strip_prefix(&format!("{param_words} ")) {
                        Some(rest) => format!(" {rest}"),
                        None => format!(" where {p}"),
                    }
                }
                None => format!(" {p}"),
            }
        }
        None => String::new(),
    }
}

/// Methods that do something and report success (`if @payment.save`), read as
/// succeeds/fails rather than as the presence of a value.
const COMMANDS: &[&str] = &[
    "save",
    "update",
    "destroy",
    "delete",
    "create",
    "commit",
    "perform",
    "call",
    "run",
    "execute",
    "process",
    "deliver",
    "charge",
    "capture",
    "refund",
    "cancel",
    "approve",
    "reject",
    "submit",
    "publish",
    "sync",
    "import",
    "export",
    "send",
    "lock",
    "unlock",
    "archive",
    "restore",
    "activate",
    "deactivate",
    "confirm",
    "verify",
    "authorize",
    "authenticate",
    "validate",
    "persist",
    "enqueue",
    "retry",
];

fn call_text(call: &Call) -> String {
    Node::Call(Box::new(call.clone())).render()
}

/// The constant `node` names when it names a class or module: the last segment in
/// CamelCase (`ApplicationRecord`, `Redmine::Acts::Watchable::InstanceMethods`), not a
/// value's constant in capitals (`MAX_SIZE`).
fn class_constant(node: &Node) -> Option<&str> {
    let Node::Const { path, .. } = node else {
        return None;
    };
    let last = path.rsplit("::").next().unwrap_or(path);
    (last.chars().next().is_some_and(char::is_uppercase) && last.chars().any(char::is_lowercase))
        .then_some(path.as_str())
}

/// `klass < ApplicationRecord`: Module#< against a class or module is whether the
/// receiver has it among its ancestors (a subclass, or a module that includes it), not a
/// size (`klass inheriting from ApplicationRecord`, not "klass below application
/// record"); `<=` also holds for the class itself. `ApplicationRecord > klass` is the same
/// test written the other way round.
fn hierarchy(call: &Call) -> Option<Spec> {
    let lhs = call.recv.as_ref()?;
    let rhs = call.args.first()?;
    let (subject, ancestor, or_itself) = match (call.name.as_str(), class_constant(rhs)) {
        ("<", Some(ancestor)) => (lhs, ancestor, false),
        ("<=", Some(ancestor)) => (lhs, ancestor, true),
        (">", None) => (rhs, class_constant(lhs)?, false),
        (">=", None) => (rhs, class_constant(lhs)?, true),
        _ => return None,
    };
    if matches!(subject, Node::Int(_) | Node::Float(_)) {
        return None;
    }
    let words = subject_words(subject);
    let (truthy, falsy) = if or_itself {
        (
            format!("{words} being {ancestor} or inheriting from it"),
            format!("{words} neither {ancestor} nor inheriting from it"),
        )
    } else {
        (
            format!("{words} inheriting from {ancestor}"),
            format!("{words} NOT inheriting from {ancestor}"),
        )
    };
    let last = ancestor.rsplit("::").next().unwrap_or(ancestor);
    Some(boolean(
        identifier(&format!("{words}_inherits_from_{last}")),
        format!("whether {truthy}"),
        truthy,
        falsy,
    ))
}

fn range(call: &Call) -> Option<Spec> {
    let lhs = call.recv.as_ref()?;
    let rhs = call.args.first()?;
    let op: &'static str = match call.name.as_str() {
        ">=" => ">=",
        ">" => ">",
        "<=" => "<=",
        _ => "<",
    };
    let subject = subject_words(lhs);
    let rhs_words = match rhs {
        Node::Int(i) => i.to_string(),
        Node::Float(f) => f.to_string(),
        other => subject_words(other),
    };
    let time = is_time(rhs) || is_time(lhs) || subject.ends_with(" at") || subject.ends_with(" on");
    let ((tv, td), (fv, fd)) = if time {
        match op {
            ">" | ">=" => (
                ("after", format!("after {rhs_words}")),
                ("before", format!("before {rhs_words}")),
            ),
            _ => (
                ("before", format!("before {rhs_words}")),
                ("after", format!("after {rhs_words}")),
            ),
        }
    } else {
        match op {
            ">=" => (
                ("at_least", format!("at least {rhs_words}")),
                ("below", format!("below {rhs_words}")),
            ),
            ">" => (
                ("above", format!("above {rhs_words}")),
                ("at_most", format!("at most {rhs_words}")),
            ),
            "<=" => (
                ("at_most", format!("at most {rhs_words}")),
                ("above", format!("above {rhs_words}")),
            ),
            _ => (
                ("below", format!("below {rhs_words}")),
                ("at_least", format!("at least {rhs_words}")),
            ),
        }
    };
    Some(Spec {
        name: identifier(&subject),
        description: subject.clone(),
        kind: CharType::Range,
        truthy: value(Value::String(tv.to_string()), td),
        falsy: value(Value::String(fv.to_string()), fd),
        threshold: Some((number(rhs), op)),
        note: None,
    })
}

/// `user.status_change == [REGISTERED, ACTIVE]`: Rails' dirty tracking gives
/// `<attribute>_change` as `[before, after]`, so the test is whether the attribute went
/// from one value to the other (`user status changing from registered to active`).
fn dirty_change(change: &Node, pair: &Node) -> Option<Spec> {
    let Node::Call(c) = change else { return None };
    let attribute = c.name.strip_suffix("_change")?;
    let (Node::Array(items), true) = (pair, c.args.is_empty() && !attribute.is_empty()) else {
        return None;
    };
    let [from, to] = items.as_slice() else {
        return None;
    };
    let owner = c.recv.as_ref().map(subject_words).unwrap_or_default();
    let subject = format!("{owner} {}", words(attribute)).trim().to_string();
    let attribute_words = words(attribute);
    let state = |n: &Node| match n {
        // `User::STATUS_ACTIVE` → `active`: the owner and the attribute are the subject's.
        Node::Const { path, .. } => {
            let said = words(path.rsplit("::").next().unwrap_or(path));
            said.strip_prefix(&format!("{attribute_words} "))
                .map_or(said.clone(), str::to_string)
        }
        other => subject_words(other),
    };
    let truthy = format!("{subject} changing from {} to {}", state(from), state(to));
    Some(yes_no(
        identifier(&format!("{subject}_change")),
        format!("whether {truthy}"),
        truthy,
    ))
}

fn equality(call: &Call) -> Option<Spec> {
    let lhs = call.recv.as_ref()?;
    let rhs = call.args.first()?;
    let (subject_node, lit) = match (literal(rhs), literal(lhs)) {
        (Some(l), _) => (lhs, l),
        (None, Some(l)) => (rhs, l),
        (None, None) => {
            if let Some(spec) = dirty_change(lhs, rhs).or_else(|| dirty_change(rhs, lhs)) {
                return Some(spec);
            }
            let a = subject_words(lhs);
            let mut b = subject_words(rhs);
            let name = identifier(&format!("{a}_matches"));
            // `user.id == user_id`: `user id matching the record's user id`, not the same
            // words twice. Only another object's value against the record's own: in
            // `title == title.upcase` both sides are the record's.
            let own = |n: &Node| {
                matches!(n, Node::Call(c) if c.args.is_empty()
                    && matches!(c.recv.as_ref(), None | Some(Node::SelfRef)))
            };
            let other = |n: &Node| {
                matches!(n, Node::Call(c) if c.recv.as_ref().is_some_and(|r| {
                    !own(r) && !matches!(r, Node::SelfRef)
                }))
            };
            let mut a = a;
            if a == b && own(rhs) && other(lhs) {
                b = format!("the record's {b}");
            } else if a == b && own(lhs) && other(rhs) {
                a = format!("the record's {a}");
            }
            return Some(Spec {
                name,
                description: format!("whether {a} equals {b}"),
                kind: CharType::Boolean,
                truthy: value(Value::Bool(true), format!("{a} matching {b}")),
                falsy: value(Value::Bool(false), format!("{a} NOT matching {b}")),
                threshold: None,
                note: None,
            });
        }
    };
    let subject = subject_words(subject_node);
    // `when api status is NOT offline`, not `... is other api status`.
    let not_it = format!("NOT {}", lit.1);
    Some(Spec {
        name: identifier(&subject),
        description: subject.clone(),
        kind: CharType::Enum,
        truthy: value(lit.0, lit.1),
        falsy: value(Value::String("other".into()), not_it),
        threshold: None,
        note: None,
    })
}

fn truthiness(cond: &Node) -> Spec {
    let subject = subject_words(cond);
    Spec {
        note: Some((Rule::TruthinessAsBoolean, format!("`{}`", cond.render()))),
        ..yes_no(identifier(&subject), format!("whether {subject}"), subject)
    }
}

/// The `case` subject's words and name (`payment.status` → `payment status`).
pub fn case_subject(subject: &Node) -> (String, String) {
    let words = subject_words(subject);
    (identifier(&words), words)
}

/// A `when` value: the raw value and its bare description.
pub fn when_value(node: &Node) -> (Value, String) {
    if let Node::Other { text, .. } = node {
        // An `in` pattern (`{type: "paid"}`, `[Integer, _]`): its words.
        let t = text.trim();
        if t.starts_with('{') || t.starts_with('[') {
            let words_only: String = t
                .trim_start_matches(['{', '['])
                .trim_end_matches(['}', ']'])
                .replace(": ", " ")
                .replace([':', ','], " ")
                .replace("=>", " ");
            let description = words_only.split_whitespace().collect::<Vec<_>>().join(" ");
            return (Value::String(t.to_string()), description);
        }
    }
    match node {
        Node::Const { path, .. } => (Value::String(path.clone()), path.clone()),
        Node::Nil => (Value::Null, "nil".to_string()),
        Node::Range { .. }
        | Node::Splat(_)
        | Node::Other { .. }
        | Node::Call(_)
        | Node::Array(_) => {
            let text = node.render();
            (Value::String(text.clone()), text)
        }
        other => literal(other).unwrap_or_else(|| {
            let text = other.render();
            (Value::String(text.clone()), text)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    #[test]
    fn a_predicate_that_says_not_is_negated_without_a_double_not() {
        let spec = cond_spec("value_not_text?(payment)");
        assert_eq!(spec.truthy.description, "value not text");
        assert_eq!(spec.falsy.description, "value text");
        let spec = cond_spec("user.active?");
        assert_eq!(
            spec.falsy.description,
            format!("NOT {}", spec.truthy.description)
        );
    }

    fn cond_spec(expr: &str) -> Spec {
        let src = format!(
            "class C\n  def m(user, payment)\n    if {expr}\n      1\n    end\n  end\nend\n"
        );
        let facts = extract_with(
            "app/services/c.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let body = facts.methods[0].body.clone().unwrap();
        let Node::Seq(items) = *body else { panic!() };
        let Node::If(i) = &items[0] else { panic!() };
        let lookup = Lookup::new(None, &facts);
        let env = TypeEnv::build(&facts.methods[0], None, &lookup);
        spec(&i.cond, &env, &lookup)
    }

    fn summary(s: &Spec) -> (String, &'static str, String, String) {
        (
            s.name.clone(),
            s.kind.as_str(),
            s.truthy.description.clone(),
            s.falsy.description.clone(),
        )
    }

    #[test]
    fn the_type_decision_tree() {
        assert_eq!(
            summary(&cond_spec("user.admin?")),
            (
                "user_admin".into(),
                "boolean",
                "admin user".into(),
                "NOT admin user".into()
            )
        );
        assert_eq!(
            summary(&cond_spec("payment.transaction_id.present?")),
            (
                "payment_transaction_id".into(),
                "presence",
                "payment transaction id".into(),
                "payment transaction id".into()
            )
        );
        assert_eq!(
            summary(&cond_spec("user.id == user_id")).2,
            "user id matching the record's user id"
        );
        // A hash's `delete(:key)` reads the option as `[:key]` does.
        assert_eq!(
            summary(&cond_spec("payment.delete(:refund)")),
            summary(&cond_spec("payment[:refund]"))
        );
        assert_eq!(
            cond_spec("payment.delete(:refund)").kind.as_str(),
            "presence"
        );
        let nil = cond_spec("user.nil?");
        assert_eq!(
            (nil.truthy.value.clone(), nil.falsy.value.clone()),
            (Value::from("nil"), Value::from("present"))
        );
        let range = cond_spec("payment.amount_cents >= 10_000");
        assert_eq!(
            summary(&range),
            (
                "payment_amount_cents".into(),
                "range",
                "at least 10000".into(),
                "below 10000".into()
            )
        );
        assert_eq!(range.threshold, Some((Some(Value::from(10_000)), ">=")));
        let eq = cond_spec("payment.status == \"failed\"");
        assert_eq!(
            summary(&eq),
            (
                "payment_status".into(),
                "enum",
                "failed".into(),
                "NOT failed".into()
            )
        );
        assert_eq!(
            summary(&cond_spec("user.can_refund?(payment)")).2,
            "user refund allowed"
        );
        // A type test is named after the type asked, not the predicate's last word.
        assert_eq!(cond_spec("choice.is_a?(Array)").name, "choice_is_array");
        // Module#< against a class or module: the ancestry, not a size.
        let spec = cond_spec("payment.class < ApplicationRecord");
        assert_eq!(spec.kind, CharType::Boolean);
        assert_eq!(spec.name, "payment_class_inherits_from_application_record");
        assert_eq!(
            spec.truthy.description,
            "payment class inheriting from ApplicationRecord"
        );
        assert_eq!(
            spec.falsy.description,
            "payment class NOT inheriting from ApplicationRecord"
        );
        let spec = cond_spec("user <= Redmine::Acts::Watchable::InstanceMethods");
        assert_eq!(
            spec.truthy.description,
            "user being Redmine::Acts::Watchable::InstanceMethods or inheriting from it"
        );
        assert_eq!(
            cond_spec("ApplicationRecord > user").name,
            "user_inherits_from_application_record"
        );
        // A constant in capitals is a value: still a range.
        assert_eq!(
            cond_spec("payment.amount < MAX_AMOUNT").kind,
            CharType::Range
        );
        assert_eq!(cond_spec("obj.kind_of?(Admin::Role)").name, "obj_is_role");
        assert_eq!(cond_spec("user.is_a?(User)").name, "user_is_a_user");
        assert_eq!(cond_spec("order.is_a?(Order)").name, "order_is_an_order");
    }

    #[test]
    fn a_numbers_sign_is_a_range() {
        let zero = cond_spec("payment.refunds.count.zero?");
        assert_eq!(
            summary(&zero),
            (
                "number_of_payment_refunds".into(),
                "range",
                "zero".into(),
                "non-zero".into()
            )
        );
        let positive = summary(&cond_spec("payment.balance.positive?"));
        assert_eq!(
            (positive.1, positive.2.as_str(), positive.3.as_str()),
            ("range", "above 0", "at most 0")
        );
        let negative = summary(&cond_spec("payment.balance.negative?"));
        assert_eq!(
            (negative.2.as_str(), negative.3.as_str()),
            ("below 0", "at least 0")
        );
    }

    #[test]
    fn guessed_rules_leave_a_note() {
        let s = cond_spec("payment.hold_funds(1)");
        assert_eq!(s.truthy.description, "payment hold funds succeeds");
        assert!(s.note.is_some());
        assert!(cond_spec("user.admin?").note.is_none());
    }

    #[test]
    fn a_lookup_tested_for_truthiness_is_a_presence() {
        for src in [
            "AuthService.find_by(provider: \"github\", uid: uid)",
            "User.find_by_email(email)",
            "params.dig(:user, :name)",
            "emails.detect { |e| e.primary? }",
        ] {
            let s = cond_spec(src);
            assert_eq!(s.kind, CharType::Presence, "{src}");
            assert!(s.note.is_none(), "{src}");
        }
        // A command with arguments stays a success or a failure.
        assert_eq!(cond_spec("gateway.refund(id)").kind, CharType::Boolean);
    }

    #[test]
    fn time_comparisons_read_as_before_and_after() {
        let s = cond_spec("payment.created_at > 30.days.ago");
        assert_eq!(
            (s.truthy.description.as_str(), s.falsy.description.as_str()),
            ("after 30 days ago", "before 30 days ago")
        );
        assert_eq!(s.threshold, Some((None, ">")));
    }
}
