//! The subject of a Rails controller method's `describe`: the request that reaches it, read
//! from the app's routes ([`crate::rails::routes`]). A controller spec is a request spec:
//! an action is exercised by `post project_watchers_path(project), params: params`, never
//! by `described_class.new.create`.
//!
//! - An action with a route: the routes that reach it as comments (verb, path, file:line),
//!   then `subject(:make_request) { VERB HELPER(ARGS) }` with the route's path helper, or
//!   the path as a string when the route has no name (`"/projects/#{project.id}/archive"`).
//!   POST, PATCH and PUT send `params: params`, with `let(:params) { {} }`.
//! - A filter (`before_action`, ...) or a `rescue_from` handler of the controller: the
//!   request of the first routed action it applies to (its `only:`/`except:` respected).
//! - Nothing routed: a comment saying so and `subject(:make_request) { {REQUEST} }`, a
//!   placeholder for the writer (with `--placeholders pending`, a `skip`).
//!
//! Arguments are named after the path: `:id` after `watchers` is `watcher`, `:project_id`
//! is `project`, `:project_slug` after `projects` is `project`; any other segment keeps its
//! own name (`:provider` → `provider`). Optional groups (`(/:tab)`, `(:locale)`) are left
//! out of the request.

use crate::rails::routes::{self, pieces, required_part, Piece, Route, Routes, Verb};

/// The placeholder of a request no route gave.
pub const REQUEST: &str = "{REQUEST}";

/// The subject name of request skeletons.
pub const SUBJECT: &str = "make_request";

/// At most this many routes of one action are listed; the rest are counted.
const LISTED: usize = 3;

/// What a controller method's `describe` opens with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestSubject {
    /// Comment lines, without `# `, above the subject.
    pub notes: Vec<String>,
    /// The subject's body: `post project_watchers_path(project), params: params`.
    pub call: String,
    /// Whether `let(:params) { {} }` follows the subject.
    pub params: bool,
}

/// The routes of the app, read once per skeleton, for the controller methods of one class.
#[derive(Debug, Clone)]
pub struct Requests {
    routes: Routes,
    /// `skip_before_action :name, only: [...]` of the controller: (filter, where skipped).
    skips: Vec<(String, Scope)>,
}

impl Requests {
    /// The routes of the app under `root` (`config/routes.rb` and the files it draws), for
    /// the controller in `source_file` (relative to `root`; its `skip_*_action` calls are
    /// read so a filter is not exercised through an action that skips it).
    pub fn load(root: &std::path::Path, source_file: &str, class_name: &str) -> Requests {
        let source =
            crate::index::read_source(&root.join(source_file), crate::index::DEFAULT_MAX_FILE_SIZE)
                .unwrap_or_default();
        Requests::new(Routes::load(root)).skipping(source_file, &source, class_name)
    }

    /// From a table already read.
    pub fn new(routes: Routes) -> Requests {
        Requests {
            routes,
            skips: Vec::new(),
        }
    }

    /// With the `skip_before_action` (and `skip_after_action`, `skip_around_action`) calls
    /// of class `class_name` in `source`.
    pub fn skipping(mut self, source_file: &str, source: &[u8], class_name: &str) -> Requests {
        let facts = crate::index::extract(source_file, source);
        for class in facts.classes.iter().filter(|c| c.name == class_name) {
            for call in class.dsl.iter().filter(|c| c.name.starts_with("skip_")) {
                let list = |key: &str| {
                    call.options
                        .iter()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| v.clone())
                };
                let scope = match (list("only"), list("except")) {
                    (Some(only), _) => Scope::Only(only),
                    (_, Some(except)) => Scope::Except(except),
                    _ => Scope::All,
                };
                for filter in &call.args {
                    self.skips.push((filter.clone(), scope.clone()));
                }
            }
        }
        self
    }

    /// The subject of method `name` of `class_name` (an instance method), `trigger` being
    /// what registers it with Rails (`before_action (only: show)`), if anything. `None`
    /// when the class is not a controller or the trigger is a model callback.
    /// `lets` are the names the method's contexts already `let` (its characteristics): an
    /// argument of the same name would be that flag, so it is renamed (`project_record`).
    pub fn subject(
        &self,
        class_name: &str,
        name: &str,
        trigger: Option<&str>,
        lets: &[String],
    ) -> Option<RequestSubject> {
        let controller = routes::controller_path(class_name)?;
        let Some(trigger) = trigger else {
            let found = self.routes.lookup(&controller, name);
            return Some(match found.first() {
                Some(_) => routed(&found, Vec::new(), lets),
                None if self.unrouted_controller(&controller) => unrouted(format!(
                    "No route in config/routes.rb reaches {class_name} itself: exercise #{name} through a request to an action of a controller that inherits it."
                )),
                None => unrouted(format!(
                    "No route in config/routes.rb reaches {controller}#{name}: write the request of the action that runs it."
                )),
            });
        };
        let dsl = trigger.split([' ', '(']).next().unwrap_or(trigger);
        let handler = dsl == "rescue_from";
        if !handler && !dsl.ends_with("_action") && !dsl.ends_with("_filter") {
            return None;
        }
        let scope = Scope::of(trigger);
        let target = self.routes.routes().iter().find(|r| {
            r.controller == controller
                && !handler_name(r, name)
                && scope.covers(r)
                && !self
                    .skips
                    .iter()
                    .any(|(filter, skip)| filter == name && skip.covers(r))
        });
        Some(match target {
            Some(route) => {
                let found = self.routes.lookup(&controller, &route.action);
                let how = if handler {
                    format!(
                        "Runs as {trigger}: exercised through a request to #{} that raises it, not called directly.",
                        route.action
                    )
                } else {
                    format!(
                        "Runs as {trigger}: exercised through a request to #{}, not called directly.",
                        route.action
                    )
                };
                routed(&found, vec![how], lets)
            }
            None if self.unrouted_controller(&controller) => {
                unrouted(format!(
                    "Runs as {trigger}. No route in config/routes.rb reaches {class_name} itself: write a request to an action of a controller that inherits it."
                ))
            }
            None => unrouted(format!(
                "Runs as {trigger}, but no route in config/routes.rb reaches an action of {class_name} it applies to: write the request that runs it."
            )),
        })
    }
}

impl Requests {
    /// No route at all reaches `controller` (a parent such as `application`).
    fn unrouted_controller(&self, controller: &str) -> bool {
        self.routes
            .routes()
            .iter()
            .all(|r| r.controller != controller)
    }
}

/// A route to the filter itself (a public filter method that is also routed) does not run
/// it as a filter.
fn handler_name(route: &Route, name: &str) -> bool {
    route.action == name
}

/// The actions a filter applies to, from its trigger text (`(only: a, b)`, `(except: a)`).
#[derive(Debug, Clone)]
enum Scope {
    All,
    Only(Vec<String>),
    Except(Vec<String>),
}

impl Scope {
    fn of(trigger: &str) -> Scope {
        let inner = trigger
            .split_once('(')
            .and_then(|(_, rest)| rest.strip_suffix(')'));
        let list = |rest: &str| rest.split(',').map(|a| a.trim().to_string()).collect();
        match inner {
            Some(inner) => match (inner.strip_prefix("only:"), inner.strip_prefix("except:")) {
                (Some(rest), _) => Scope::Only(list(rest)),
                (_, Some(rest)) => Scope::Except(list(rest)),
                _ => Scope::All,
            },
            None => Scope::All,
        }
    }

    fn covers(&self, route: &Route) -> bool {
        match self {
            Scope::All => true,
            Scope::Only(actions) => actions.contains(&route.action),
            Scope::Except(actions) => !actions.contains(&route.action),
        }
    }
}

fn unrouted(note: String) -> RequestSubject {
    RequestSubject {
        notes: vec![note],
        call: REQUEST.to_string(),
        params: false,
    }
}

/// The request of one of `all` (the routes of an action), with them listed.
fn routed(all: &[&Route], mut notes: Vec<String>, lets: &[String]) -> RequestSubject {
    // The simplest request: the route with the fewest required segments, the first in
    // matching order among equals (`/projects/:project_id/issues/new` rather than
    // `/projects/:project_id/issues/:copy_from/copy`).
    let Some(first) = all
        .iter()
        .copied()
        .min_by_key(|r| params(&required_part(&r.path)).len())
    else {
        return unrouted(String::from("No route reaches this action."));
    };
    for route in all.iter().take(LISTED) {
        notes.push(format!(
            "{} {} ({}:{})",
            route.verb.as_str(),
            route.path,
            route.file,
            route.line
        ));
    }
    if all.len() > LISTED {
        notes.push(format!(
            "and {} more routes to this action",
            all.len() - LISTED
        ));
    }
    let params = matches!(first.verb, Verb::Post | Verb::Patch | Verb::Put);
    let mut call = format!("{} {}", first.verb.helper(), target(first, lets));
    if params {
        call.push_str(", params: params");
    }
    RequestSubject {
        notes,
        call,
        params,
    }
}

/// A dynamic segment of a path: its name and the static segment before it.
struct Param {
    name: String,
    after: Option<String>,
}

/// `project_watcher_path(project, watcher)`, or the path as a Ruby string.
fn target(route: &Route, lets: &[String]) -> String {
    let path = required_part(&route.path);
    let params = params(&path);
    let args: Vec<String> = params.iter().map(|p| arg_name(p, lets)).collect();
    if let Some(name) = route.name.as_deref().filter(|n| local_name(n)) {
        return if args.is_empty() {
            format!("{name}_path")
        } else {
            format!("{name}_path({})", args.join(", "))
        };
    }
    literal(&path, lets)
}

/// The dynamic parts of a path, in order, each with the static segment before it.
fn params(path: &str) -> Vec<Param> {
    let mut out = Vec::new();
    let mut last_static: Option<String> = None;
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        let pieces = pieces(segment);
        let mut dynamic = false;
        for piece in pieces {
            if let Piece::Dynamic(name) = piece {
                dynamic = true;
                out.push(Param {
                    name,
                    after: last_static.clone(),
                });
            }
        }
        if !dynamic {
            last_static = Some(segment.to_string());
        }
    }
    out
}

/// The record or value that fills a segment: `:id` after `watchers` → `watcher`,
/// `:project_id` → `project`, `:project_slug` after `projects` → `project`, else the
/// segment's name.
fn arg_name(param: &Param, lets: &[String]) -> String {
    let record = param
        .after
        .as_deref()
        .map(|s| routes::singularize(&s.replace('-', "_")))
        .filter(|s| local_name(s));
    let (name, is_record) = if param.name == "id" {
        match record {
            Some(r) => (r, true),
            None => (param.name.clone(), false),
        }
    } else if let Some(owner) = param.name.strip_suffix("_id").filter(|o| local_name(o)) {
        (owner.to_string(), true)
    } else {
        match record {
            Some(r) if param.name.starts_with(&format!("{r}_")) => (r, true),
            _ => (param.name.clone(), false),
        }
    };
    let free = local_name(&name) && !TAKEN.contains(&name.as_str()) && !lets.contains(&name);
    match (free, is_record) {
        (true, _) => name,
        (false, true) => format!("{name}_record"),
        (false, false) => format!("{name}_value"),
    }
}

/// The path as a Ruby string: `"/projects/#{project.id}/archive"`, `'/login'`.
fn literal(path: &str, lets: &[String]) -> String {
    if params(path).is_empty() {
        return format!("'{}'", path.replace('\\', "\\\\").replace('\'', "\\'"));
    }
    let mut out = String::new();
    let mut last_static: Option<String> = None;
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        let mut dynamic = false;
        for piece in pieces(segment) {
            match piece {
                Piece::Text(text) => out.push_str(&escape(&text)),
                Piece::Dynamic(name) => {
                    dynamic = true;
                    let param = Param {
                        name: name.clone(),
                        after: last_static.clone(),
                    };
                    let arg = arg_name(&param, lets);
                    // The record's own name, before a rename for a clash.
                    let own = arg_name(&param, &[]);
                    let value = if name == "id" || name.ends_with("_id") {
                        format!("{arg}.id")
                    } else if let Some(field) = name.strip_prefix(&format!("{own}_")) {
                        format!("{arg}.{field}")
                    } else {
                        arg
                    };
                    out.push_str(&format!("#{{{value}}}"));
                }
            }
        }
        if !dynamic {
            last_static = Some(segment.to_string());
        }
    }
    format!("\"{out}\"")
}

/// Text of a double-quoted Ruby string.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace("#{", "\\#{")
}

/// Names a request spec already uses: an argument named so gets `_value`.
const TAKEN: &[&str] = &[
    "params",
    "response",
    "request",
    "session",
    "cookies",
    "flash",
    "controller",
    "subject",
    SUBJECT,
];

/// A Ruby local variable name that is not a keyword.
fn local_name(name: &str) -> bool {
    let mut chars = name.chars();
    let starts = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    starts
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !KEYWORDS.contains(&name)
}

const KEYWORDS: &[&str] = &[
    "alias", "and", "begin", "break", "case", "class", "def", "defined", "do", "else", "elsif",
    "end", "ensure", "false", "for", "if", "in", "module", "next", "nil", "not", "or", "redo",
    "rescue", "retry", "return", "self", "super", "then", "true", "undef", "unless", "until",
    "when", "while", "yield",
];

#[cfg(test)]
mod tests;
