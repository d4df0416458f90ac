//! What class a receiver is, as far as a parser can tell: parameters and instance
//! variables by name (`payment` → `Payment` when that class exists in the project),
//! instance variables assigned in `initialize` (`@gateway = gateway` with
//! `gateway: PaymentGateway.new`), and locals assigned from a constant (`x = Order.find`)
//! or from a call on a known object (`result = @gateway.charge(p)` is "the result of
//! `PaymentGateway#charge`", which makes conditions on it external).
//!
//! The project lookup checks Rails paths (`app/models/payment.rb`) instead of indexing the
//! whole application, so analyzing one file stays fast.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

use crate::index::body::{walk, AssignOp, Node, Target, Visitor};
use crate::index::{FileFacts, MethodFacts};
use crate::naming::{camelize, underscore};

/// What the project knows about a class name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassKind {
    /// Defined under `app/models`: an ActiveRecord model (a PORO there counts too: \[J\]).
    Model,
    /// Defined elsewhere in the project (services, lib, ...).
    Other,
    /// Not found in the project.
    Unknown,
}

/// Finds classes by their Rails path, with a cache.
#[derive(Debug)]
pub struct Lookup {
    root: Option<PathBuf>,
    /// The app's database schema, read on first need.
    schema: std::sync::OnceLock<crate::rails::schema::Schema>,
    /// The app's other autoloaded folders, read on first need.
    app_dirs: std::sync::OnceLock<Vec<String>>,
    local: Vec<(String, ClassKind)>,
    cache: RefCell<HashMap<String, ClassKind>>,
}

const OTHER_DIRS: &[&str] = &[
    "app/services",
    "app/controllers",
    "app/jobs",
    "app/mailers",
    "app/policies",
    "app/forms",
    "app/queries",
    "app/presenters",
    "app/serializers",
    "app/validators",
    "app/interactors",
    "app/workers",
    "app/lib",
    "lib",
];

/// The project-relative paths where Rails would define class `name`, with the kind each
/// gives (`app/models/payment.rb` is a model, `app/services/...` another class).
/// `app_dirs` are the app's other autoloaded folders ([`app_dirs`]: `app/events`, ...).
pub fn rails_paths<'d>(
    name: &str,
    app_dirs: &'d [String],
) -> impl Iterator<Item = (String, ClassKind)> + 'd {
    let rel = format!("{}.rb", underscore(name));
    ["app/models", "app/models/concerns"]
        .iter()
        .map(|d| (*d, ClassKind::Model))
        .chain(OTHER_DIRS.iter().map(|d| (*d, ClassKind::Other)))
        .map(|(d, k)| (d.to_string(), k))
        .chain(app_dirs.iter().map(|d| (d.clone(), ClassKind::Other)))
        .map(move |(dir, kind)| (format!("{dir}/{rel}"), kind))
}

/// Where the file that defines class `name` may be, in the order to try: its Rails paths
/// ([`rails_paths`], `false`: the file is the class's own), then the Rails paths of each
/// namespace around it, nearest first (`true`: `Flodesk::Client` written inside
/// `lib/flodesk.rb`, which must be seen to define it).
pub fn class_file_candidates(name: &str, app_dirs: &[String]) -> Vec<(String, ClassKind, bool)> {
    let mut out: Vec<(String, ClassKind, bool)> = rails_paths(name, app_dirs)
        .map(|(rel, kind)| (rel, kind, false))
        .collect();
    let mut namespace = name;
    while let Some((outer, _)) = namespace.rsplit_once("::") {
        namespace = outer;
        out.extend(rails_paths(namespace, app_dirs).map(|(rel, kind)| (rel, kind, true)));
    }
    out
}

/// The folders under `{root}/app` that Rails autoloads besides the usual ones
/// (`app/events`, `app/decorators`, `app/uploaders`), sorted; not assets or views.
pub fn app_dirs(root: &std::path::Path) -> Vec<String> {
    const NOT_CODE: &[&str] = &[
        "assets",
        "views",
        "javascript",
        "javascripts",
        "stylesheets",
        "images",
        "frontend",
        "webpacker",
        "packs",
        "fonts",
    ];
    let mut dirs: Vec<String> = std::fs::read_dir(root.join("app"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !NOT_CODE.contains(&n.as_str()) && !n.starts_with('.'))
                .map(|n| format!("app/{n}"))
                .filter(|d| d != "app/models" && !OTHER_DIRS.contains(&d.as_str()))
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

impl Lookup {
    /// A lookup for a project root (`None`: only the file's own classes are known).
    pub fn new(root: Option<PathBuf>, facts: &FileFacts) -> Self {
        let in_models = facts.path.contains("app/models/");
        let local = facts
            .classes
            .iter()
            .map(|c| {
                (
                    c.name.clone(),
                    if in_models {
                        ClassKind::Model
                    } else {
                        ClassKind::Other
                    },
                )
            })
            .collect();
        Lookup {
            root,
            schema: std::sync::OnceLock::new(),
            app_dirs: std::sync::OnceLock::new(),
            local,
            cache: RefCell::new(HashMap::new()),
        }
    }

    /// The project root classes are looked up under.
    pub fn root(&self) -> Option<&PathBuf> {
        self.root.as_ref()
    }

    /// The schema file the analysis read, if it read one (the cache depends on it).
    pub fn schema_file(&self) -> Option<&'static str> {
        self.schema.get().and_then(|s| s.file)
    }

    /// Whether `attribute` of model `class` is a boolean column of the app's schema
    /// (`db/schema.rb` or `db/structure.sql`).
    pub fn boolean_column(&self, class: &str, attribute: &str) -> bool {
        let Some(root) = &self.root else {
            return false;
        };
        if self.kind(class) != ClassKind::Model {
            return false;
        }
        let schema = self
            .schema
            .get_or_init(|| crate::rails::schema::Schema::load(root));
        schema.column_type(&crate::rails::schema::table_of(class), attribute) == Some("boolean")
    }

    /// What kind of class `name` is.
    pub fn kind(&self, name: &str) -> ClassKind {
        if let Some((_, kind)) = self.local.iter().find(|(n, _)| n == name) {
            return *kind;
        }
        if let Some(kind) = self.cache.borrow().get(name) {
            return *kind;
        }
        let kind = self.find(name);
        self.cache.borrow_mut().insert(name.to_string(), kind);
        kind
    }

    fn find(&self, name: &str) -> ClassKind {
        let Some(root) = &self.root else {
            return ClassKind::Unknown;
        };
        let dirs = self.app_dirs.get_or_init(|| app_dirs(root));
        // Its own file, else (`Flodesk::Client` inside `lib/flodesk.rb`) the file of a
        // namespace around it that holds it.
        let last = name.rsplit("::").next().unwrap_or(name);
        for (rel, kind, check) in class_file_candidates(name, dirs) {
            let path = root.join(rel);
            if path.is_file() && (!check || defines_class(&path, last)) {
                return kind;
            }
        }
        ClassKind::Unknown
    }

    /// The class a variable name stands for (`payment` → `Payment`, `line_items` is not
    /// singularised), if the project has it.
    pub fn class_for_name(&self, var: &str) -> Option<String> {
        let candidate = camelize(var.trim_start_matches('@'));
        (self.kind(&candidate) != ClassKind::Unknown).then_some(candidate)
    }
}

/// The project's files, as the analysis of one file may read them (the side-effect finder
/// asks whether a constant is a class the app defines, `via` reads the methods it calls).
pub trait ProjectFiles: Sync + std::fmt::Debug {
    /// The project-relative path and the facts (with bodies) of the file that defines
    /// `class` at its Rails path, if the project has one that parses.
    fn class_file(&self, class: &str) -> Option<(String, std::sync::Arc<FileFacts>)>;
}

/// What a variable holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarType {
    /// An instance of this class.
    Instance(String),
    /// What `class#method` returned.
    ResultOf {
        /// The class called.
        class: String,
        /// The method called.
        method: String,
    },
}

/// Variable types of one method.
#[derive(Debug, Default, Clone)]
pub struct TypeEnv {
    vars: HashMap<String, VarType>,
    ivars: HashMap<String, VarType>,
    /// The method's class.
    own: String,
    /// Parameters whose default is `true` or `false` (`soft: false`): flags.
    flags: Vec<String>,
}

impl TypeEnv {
    /// Builds the environment of `method`: its parameters, the class's `initialize`
    /// assignments, then its own local assignments in order.
    pub fn build(method: &MethodFacts, initialize: Option<&MethodFacts>, lookup: &Lookup) -> Self {
        let mut env = TypeEnv {
            own: method.owner.clone(),
            flags: method
                .param_defaults
                .iter()
                .filter(|(_, d)| matches!(d, Node::True | Node::False))
                .map(|(n, _)| n.clone())
                .collect(),
            ..TypeEnv::default()
        };
        if let Some(init) = initialize {
            let defaults: HashMap<&str, &Node> = init
                .param_defaults
                .iter()
                .map(|(n, v)| (n.as_str(), v))
                .collect();
            if let Some(body) = &init.body {
                visit_assignments(body, &mut |target, value| {
                    if let Target::Ivar(name) = target {
                        let ty = match value {
                            Node::Lvar(param) => defaults
                                .get(param.as_str())
                                .and_then(|d| instance_of(d))
                                .or_else(|| lookup.class_for_name(param).map(VarType::Instance)),
                            other => instance_of(other),
                        };
                        if let Some(ty) = ty {
                            env.ivars.insert(name.clone(), ty);
                        }
                    }
                });
            }
        }
        for p in &method.params {
            if let Some(class) = lookup.class_for_name(&p.name) {
                env.vars.insert(p.name.clone(), VarType::Instance(class));
            }
        }
        if let Some(body) = &method.body {
            let mut assignments: Vec<(Target, Node)> = Vec::new();
            visit_assignments(body, &mut |target, value| {
                assignments.push((target.clone(), value.clone()))
            });
            for (target, value) in assignments {
                let ty = instance_of(&value).or_else(|| env.result_of(&value, lookup));
                match (target, ty) {
                    (Target::Lvar(name), Some(ty)) => {
                        env.vars.insert(name, ty);
                    }
                    (Target::Ivar(name), Some(ty)) => {
                        env.ivars.insert(name, ty);
                    }
                    _ => {}
                }
            }
        }
        env
    }

    /// The method's class.
    pub fn own(&self) -> &str {
        &self.own
    }

    /// Whether parameter `name` defaults to `true` or `false`.
    pub fn is_flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    /// The type of a local variable or parameter.
    pub fn var(&self, name: &str) -> Option<&VarType> {
        self.vars.get(name)
    }

    /// The type of an instance variable (without `@`), falling back to its name.
    pub fn ivar(&self, name: &str, lookup: &Lookup) -> Option<VarType> {
        self.ivars
            .get(name)
            .cloned()
            .or_else(|| lookup.class_for_name(name).map(VarType::Instance))
    }

    /// The class of the object `node` evaluates to, if known.
    pub fn class_of(&self, node: &Node, lookup: &Lookup, own: &str) -> Option<String> {
        match node {
            Node::Lvar(n) => match self.var(n) {
                Some(VarType::Instance(c)) => Some(c.clone()),
                _ => None,
            },
            Node::Ivar(n) => match self.ivar(n, lookup) {
                Some(VarType::Instance(c)) => Some(c),
                _ => None,
            },
            Node::SelfRef => Some(own.to_string()),
            Node::Const { path, .. } => Some(path.clone()),
            Node::Call(c) => match (&c.recv, c.name.as_str()) {
                (
                    Some(Node::Const { path, .. }),
                    "new" | "find" | "find_by" | "find_by!" | "create" | "create!" | "first"
                    | "last",
                ) => Some(path.clone()),
                // `client`, a method of the class that keeps `@client ||= Client.new`.
                (None, _) if c.args.is_empty() => {
                    lookup
                        .class_for_name(&c.name)
                        .or_else(|| match self.ivars.get(&c.name) {
                            Some(VarType::Instance(class)) => Some(class.clone()),
                            _ => None,
                        })
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `recv.method(...)` on an object of a known class: the result of that call.
    fn result_of(&self, node: &Node, lookup: &Lookup) -> Option<VarType> {
        let Node::Call(c) = node else { return None };
        let recv = c.recv.as_ref()?;
        let class = match recv {
            Node::Ivar(n) => match self.ivar(n, lookup) {
                Some(VarType::Instance(c)) => c,
                _ => return None,
            },
            Node::Lvar(n) => match self.var(n) {
                Some(VarType::Instance(c)) => c.clone(),
                _ => return None,
            },
            Node::Const { path, .. } => path.clone(),
            Node::Call(inner) if inner.name == "new" => match &inner.recv {
                Some(Node::Const { path, .. }) => path.clone(),
                _ => return None,
            },
            _ => return None,
        };
        Some(VarType::ResultOf {
            class,
            method: c.name.clone(),
        })
    }
}

/// `Const.new(...)`, `Const.find(...)`, `Const` itself: an instance of `Const`.
/// Whether the file at `path` has a `class <last>` line (`class Client`, `class Client <
/// Base`): a namespace's file that holds the class.
fn defines_class(path: &std::path::Path, last: &str) -> bool {
    // Read as the index reads a source (size-bounded; a file too large or unreadable
    // holds nothing).
    crate::index::read_source(path, crate::index::DEFAULT_MAX_FILE_SIZE).is_ok_and(|bytes| {
        String::from_utf8_lossy(&bytes).lines().any(|l| {
            l.trim_start()
                .strip_prefix("class ")
                .is_some_and(|rest| rest.split([' ', '<', ';']).next() == Some(last))
        })
    })
}

impl TypeEnv {
    /// Adds the instance variables the class's memoizing methods keep (`def client;
    /// @client ||= Flodesk::Client.new; end`): `client` and `@client` are that class
    /// wherever the method runs.
    pub fn with_memos(mut self, methods: &[&MethodFacts]) -> Self {
        for m in methods.iter().filter(|m| m.params.is_empty()) {
            let Some(body) = m.body.as_deref() else {
                continue;
            };
            if let [Node::Assign {
                target: Target::Ivar(name),
                value,
                ..
            }] = body.statements().as_slice()
            {
                if name == &m.name {
                    if let Some(ty) = instance_of(value) {
                        self.ivars.entry(name.clone()).or_insert(ty);
                    }
                }
            }
        }
        self
    }
}

fn instance_of(node: &Node) -> Option<VarType> {
    match node {
        Node::Call(c) => match (&c.recv, c.name.as_str()) {
            (
                Some(Node::Const { path, .. }),
                "new" | "find" | "find_by" | "find_by!" | "create" | "create!" | "build",
            ) => Some(VarType::Instance(path.clone())),
            (Some(Node::Call(inner)), "first" | "last" | "take") if inner.name == "where" => {
                match &inner.recv {
                    Some(Node::Const { path, .. }) => Some(VarType::Instance(path.clone())),
                    _ => None,
                }
            }
            _ => None,
        },
        Node::Const { path, .. } => Some(VarType::Instance(path.clone())),
        _ => None,
    }
}

/// Calls `f(target, value)` for every plain or `||=` assignment, in source order
/// (also inside conditions, arguments and blocks).
fn visit_assignments(node: &Node, f: &mut dyn FnMut(&Target, &Node)) {
    struct Assignments<'f>(&'f mut dyn FnMut(&Target, &Node));
    impl<'n> Visitor<'n> for Assignments<'_> {
        fn enter(&mut self, node: &'n Node) -> bool {
            if let Node::Assign {
                target, op, value, ..
            } = node
            {
                if matches!(op, AssignOp::Set | AssignOp::OrSet) {
                    (self.0)(target, value);
                }
            }
            true
        }
    }
    walk(&mut Assignments(f), node);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    #[test]
    fn ivars_from_initialize_defaults_and_results_of_calls() {
        let src = "class PaymentProcessor\n  def initialize(gateway: PaymentGateway.new)\n    @gateway = gateway\n  end\n\n  def process(payment)\n    result = @gateway.charge(payment)\n    order = Order.find(1)\n    result.success?\n  end\nend\n";
        let facts = extract_with(
            "app/services/payment_processor.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let lookup = Lookup::new(None, &facts);
        let env = TypeEnv::build(&facts.methods[1], Some(&facts.methods[0]), &lookup);
        assert_eq!(
            env.ivar("gateway", &lookup),
            Some(VarType::Instance("PaymentGateway".into()))
        );
        assert_eq!(
            env.var("result"),
            Some(&VarType::ResultOf {
                class: "PaymentGateway".into(),
                method: "charge".into()
            })
        );
        assert_eq!(env.var("order"), Some(&VarType::Instance("Order".into())));
    }

    #[test]
    fn lookup_finds_models_and_services_by_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("app/models/billing")).unwrap();
        std::fs::create_dir_all(dir.path().join("app/services")).unwrap();
        std::fs::write(dir.path().join("app/models/billing/invoice.rb"), "").unwrap();
        std::fs::write(dir.path().join("app/services/payment_gateway.rb"), "").unwrap();
        let facts = extract_with(
            "app/services/x.rb",
            b"class X; end",
            &ExtractOptions::default(),
        );
        let lookup = Lookup::new(Some(dir.path().to_path_buf()), &facts);
        assert_eq!(lookup.kind("Billing::Invoice"), ClassKind::Model);
        assert_eq!(lookup.kind("PaymentGateway"), ClassKind::Other);
        assert_eq!(lookup.kind("Stripe"), ClassKind::Unknown);
        assert_eq!(lookup.kind("X"), ClassKind::Other);
        assert_eq!(
            lookup.class_for_name("payment_gateway").as_deref(),
            Some("PaymentGateway")
        );
    }

    #[test]
    fn a_class_written_in_its_namespaces_file_is_the_projects() {
        // A mailing-list API client kept in `lib/flodesk.rb` beside its constants.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("lib")).unwrap();
        std::fs::write(
            dir.path().join("lib/flodesk.rb"),
            "module Flodesk\n  ACTIVE = 'active'\n\n  class Client < Base\n  end\nend\n",
        )
        .unwrap();
        let facts = extract_with("app/x.rb", b"class X; end", &ExtractOptions::default());
        let lookup = Lookup::new(Some(dir.path().to_path_buf()), &facts);
        assert_eq!(lookup.kind("Flodesk::Client"), ClassKind::Other);
        // The namespace's file must hold the class: `Flodesk::Segment` is not there.
        assert_eq!(lookup.kind("Flodesk::Segment"), ClassKind::Unknown);
        let candidates = class_file_candidates("Flodesk::Client", &[]);
        assert!(candidates.contains(&(
            "lib/flodesk/client.rb".to_string(),
            ClassKind::Other,
            false
        )));
        assert!(candidates.contains(&("lib/flodesk.rb".to_string(), ClassKind::Other, true)));
    }

    #[test]
    fn a_memoizing_method_types_its_name_and_its_variable() {
        let src = "class MailingList\n  def unsubscribe(email)\n    client.unsubscribe(email: email)\n  end\n\n  private\n\n  def client\n    @client ||= Flodesk::Client.new\n  end\n\n  def list(id)\n    @list ||= List.new(id)\n  end\nend\n";
        let facts = extract_with(
            "app/services/mailing_list.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let lookup = Lookup::new(None, &facts);
        let privates: Vec<&MethodFacts> = facts.methods.iter().skip(1).collect();
        let env = TypeEnv::build(&facts.methods[0], None, &lookup).with_memos(&privates);
        let client = extract_with(
            "app/x.rb",
            b"class X\n  def m\n    client\n  end\nend\n",
            &ExtractOptions::with_bodies(),
        );
        let call = client.methods[0]
            .body
            .as_deref()
            .unwrap()
            .statements()
            .remove(0);
        assert_eq!(
            env.class_of(&call, &lookup, "MailingList").as_deref(),
            Some("Flodesk::Client")
        );
        // A method with parameters is no memo of one object.
        assert_eq!(env.ivar("list", &lookup), None);
    }
}
