//! The routes of a Rails app, read from `config/routes.rb` (and the files it `draw`s from
//! `config/routes/`) without running Ruby: for a controller action, the HTTP requests that
//! reach it (`POST /projects/:project_id/watchers` for `WatchersController#create`), which a
//! request spec makes.
//!
//! The file is parsed with prism and run by a small interpreter of the routing DSL
//! (`routes/mapper.rs`) that follows `ActionDispatch::Routing::Mapper` rule by rule:
//! `resources`/`resource` with their options, nesting, `member`/`collection`/`new`,
//! shallow nesting, `namespace`, `scope`, `controller`, `constraints`, `defaults`,
//! `with_options`, concerns, `draw`, the HTTP verb helpers, `match ... via:`, `root`, and
//! `each` over a literal list. Paths are shown as `rails routes` shows them, without the
//! optional `(.:format)`; other optional groups (`(/:tab)`) are kept.
//!
//! Reading never fails: a missing file gives an empty table; a syntax error, binary bytes
//! or code only a running app could evaluate (a `to:` built from a method call, a loop over
//! a computed list) give the routes that could be read plus diagnostics naming file and
//! line. Nothing is guessed. Not read: routes that gems add (`devise_for`,
//! `use_doorkeeper`; diagnosed), an app's own inflection rules, and request constraints
//! (a route is listed whatever its constraints).

pub(crate) mod inflect;
mod lower;
mod mapper;

use std::path::Path;

pub(crate) use inflect::singularize;

use crate::index::{read_source, DEFAULT_MAX_FILE_SIZE};

/// The HTTP verb a route answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verb {
    /// GET.
    Get,
    /// POST.
    Post,
    /// PATCH.
    Patch,
    /// PUT.
    Put,
    /// DELETE.
    Delete,
    /// OPTIONS.
    Options,
    /// Any verb: `match ..., via: :all`.
    Any,
}

impl Verb {
    /// `GET`, `POST`, ..., `ANY`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "GET",
            Verb::Post => "POST",
            Verb::Patch => "PATCH",
            Verb::Put => "PUT",
            Verb::Delete => "DELETE",
            Verb::Options => "OPTIONS",
            Verb::Any => "ANY",
        }
    }

    /// The routing helper and request-spec method: `get`, `post`, ...; `get` for `Any`.
    pub fn helper(self) -> &'static str {
        match self {
            Verb::Get | Verb::Any => "get",
            Verb::Post => "post",
            Verb::Patch => "patch",
            Verb::Put => "put",
            Verb::Delete => "delete",
            Verb::Options => "options",
        }
    }
}

/// One route to a controller action. A route with several verbs (`match via: [:get,
/// :post]`, `update`'s PATCH and PUT) is one `Route` per verb, in the order Rails adds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The verb.
    pub verb: Verb,
    /// `/projects/:project_id/watchers`: dynamic segments (`:id`, `*path`) and optional
    /// groups other than the format kept; no `(.:format)`.
    pub path: String,
    /// The controller path: `admin/users` for `Admin::UsersController`.
    pub controller: String,
    /// The action.
    pub action: String,
    /// The route's name (`project_watchers`, helper `project_watchers_path`) as Rails
    /// derives it. Routes that share a helper, such as index and create, both carry it.
    pub name: Option<String>,
    /// The line of the routes file that made it (the `resources` line for its seven).
    pub line: u32,
    /// The routes file, relative to the app: `config/routes.rb`, `config/routes/admin.rb`.
    pub file: String,
}

/// The routes of an app, in the order Rails matches them.
#[derive(Debug, Clone, Default)]
pub struct Routes {
    routes: Vec<Route>,
    diagnostics: Vec<String>,
}

impl Routes {
    /// Reads `config/routes.rb` under `root` and the files it `draw`s from
    /// `config/routes/*.rb`. A missing file gives an empty table; an unparsable or odd file
    /// gives what could be read plus diagnostics. Never panics. `config.api_only = true` in
    /// `config/application.rb` drops `new` and `edit` from resources, as in Rails.
    pub fn load(root: &Path) -> Routes {
        let main = "config/routes.rb";
        let source = match read_source(&root.join(main), DEFAULT_MAX_FILE_SIZE) {
            Ok(source) => source,
            Err(reason) => {
                let missing = !root.join(main).exists();
                return Routes {
                    routes: Vec::new(),
                    diagnostics: if missing {
                        Vec::new()
                    } else {
                        vec![format!("{main}: {reason}")]
                    },
                };
            }
        };
        let api_only = read_source(&root.join("config/application.rb"), DEFAULT_MAX_FILE_SIZE)
            .map(|s| api_only(&s))
            .unwrap_or(false);
        let loader = |rel: &str| -> Result<Vec<u8>, String> {
            read_source(&root.join(rel), DEFAULT_MAX_FILE_SIZE)
        };
        let mut mapper = mapper::Mapper::new(Some(&loader), api_only);
        mapper.run_main(main, &source);
        mapper.finish();
        Routes {
            routes: mapper.routes,
            diagnostics: mapper.diagnostics,
        }
    }

    /// Reads one routes file (`rel_path` is only recorded). A `draw` in it is not followed.
    pub fn parse(rel_path: &str, source: &[u8]) -> Routes {
        let mut mapper = mapper::Mapper::new(None, false);
        mapper.run_main(rel_path, source);
        mapper.finish();
        Routes {
            routes: mapper.routes,
            diagnostics: mapper.diagnostics,
        }
    }

    /// The routes to `controller` (a controller path, `admin/users`; see
    /// [`controller_path`]) and `action`, in the order Rails matches them.
    pub fn lookup(&self, controller: &str, action: &str) -> Vec<&Route> {
        self.routes
            .iter()
            .filter(|r| r.controller == controller && r.action == action)
            .collect()
    }

    /// Every route, in the order Rails matches them.
    pub fn routes(&self) -> &[Route] {
        &self.routes
    }

    /// What could not be read, each as `file:line: reason`.
    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }
}

/// The controller path of a controller class, as Rails derives it (`underscore`, without
/// `_controller`): `Admin::UsersController` → `admin/users`, `OAuth2Controller` →
/// `o_auth2`. `None` for a class not named `*Controller`.
pub fn controller_path(class_name: &str) -> Option<String> {
    let base = class_name
        .trim_start_matches("::")
        .strip_suffix("Controller")?;
    if base.is_empty() || base.ends_with("::") {
        return None;
    }
    Some(underscore(base))
}

/// ActiveSupport's `underscore` without acronym rules.
fn underscore(camel: &str) -> String {
    let chars: Vec<char> = camel.replace("::", "/").chars().collect();
    let mut out = String::with_capacity(chars.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars.get(i - 1).copied().unwrap_or('/');
            let next = chars.get(i + 1).copied();
            // `([a-z\d])([A-Z])` and `([A-Z\d]+)([A-Z][a-z])`.
            let lower_before = prev.is_ascii_lowercase() || prev.is_ascii_digit();
            let acronym_end = (prev.is_ascii_uppercase() || prev.is_ascii_digit())
                && next.is_some_and(|n| n.is_ascii_lowercase());
            if prev != '/' && (lower_before || acronym_end) {
                out.push('_');
            }
        }
        if c == '-' {
            out.push('_');
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// `config.api_only = true` on a line of its own (comments ignored).
fn api_only(application_rb: &[u8]) -> bool {
    String::from_utf8_lossy(application_rb).lines().any(|line| {
        let code = line.split('#').next().unwrap_or("");
        let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        compact == "config.api_only=true"
    })
}

/// The path without its optional groups: `/projects/:id/settings(/:tab)` →
/// `/projects/:id/settings`; `/` when nothing is left.
pub fn required_part(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let out = out.replace("//", "/");
    if out.is_empty() {
        "/".to_string()
    } else {
        out
    }
}

/// A piece of a path segment: text, or a dynamic part (`:id`, `*path`) by its name.
pub enum Piece {
    /// Text.
    Text(String),
    /// A dynamic part, by its name.
    Dynamic(String),
}

/// `:name.:ext` → dynamic `name`, text `.`, dynamic `ext`.
pub fn pieces(segment: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = segment.chars().peekable();
    while let Some(c) = chars.next() {
        let starts_name = chars
            .peek()
            .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_');
        if (c == ':' || c == '*') && starts_name {
            if !text.is_empty() {
                out.push(Piece::Text(std::mem::take(&mut text)));
            }
            let mut name = String::new();
            while let Some(n) = chars.next_if(|n| n.is_ascii_alphanumeric() || *n == '_') {
                name.push(n);
            }
            out.push(Piece::Dynamic(name));
        } else {
            text.push(c);
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// The params every request to `path` carries: its dynamic parts (`:id`, `*path`) outside
/// optional groups (`/notes/:id/comment(/:locale)` → `id`).
pub fn required_params(path: &str) -> Vec<String> {
    required_part(path)
        .split('/')
        .flat_map(pieces)
        .filter_map(|piece| match piece {
            Piece::Dynamic(name) => Some(name),
            Piece::Text(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests;
