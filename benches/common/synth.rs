//! A generator of realistic Rails-shaped codebases for benchmarks and scale tests: models,
//! services, controllers and concerns in namespaces, methods with guards, `case`, `&&` and
//! early returns, cross-class references in layers (a deep dependency graph) with a few
//! back-references (cycles), a spread of file sizes, and optionally a git history with a
//! feature branch touching a few percent of the files.
//!
//! Deterministic: the same [`Spec`] always writes the same bytes.
//!
//! Dev tooling, not part of the library: the benches use it through `common`, the
//! integration tests include this file. It drives git2 itself to build a history; the
//! library's only door to git is `git/`.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What to generate.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Number of Ruby files.
    pub files: usize,
    /// Seed for the pseudo-random choices.
    pub seed: u64,
    /// Dependency layers: references point to lower layers, so waves are about this deep.
    pub layers: usize,
    /// Per mille of references that point to the same or a higher layer (cycles).
    pub back_references_per_mille: u32,
}

impl Spec {
    /// `files` files with the default shape.
    pub fn new(files: usize) -> Self {
        Spec {
            files,
            seed: 0x05ee_d5c0_u64,
            layers: 12,
            back_references_per_mille: 8,
        }
    }
}

/// One generated file.
#[derive(Debug, Clone)]
pub struct GeneratedFile {
    /// Root-relative path.
    pub path: String,
    /// Full class name.
    pub class_name: String,
    /// Ruby source.
    pub source: String,
}

const NAMESPACES: &[&str] = &[
    "billing",
    "catalog",
    "shipping",
    "accounts",
    "inventory",
    "reporting",
    "notifications",
    "search",
    "checkout",
    "support",
    "analytics",
    "compliance",
];
const NOUNS: &[&str] = &[
    "invoice",
    "payment",
    "order",
    "customer",
    "product",
    "shipment",
    "refund",
    "coupon",
    "address",
    "subscription",
    "ledger",
    "report",
    "ticket",
    "warehouse",
    "carrier",
    "tax_rate",
    "price",
    "plan",
    "export",
    "webhook",
];
const VERBS: &[&str] = &[
    "calculate",
    "apply",
    "sync",
    "validate",
    "publish",
    "archive",
    "notify",
    "reconcile",
    "schedule",
    "import",
];

/// A small deterministic generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeded generator (a zero seed is replaced).
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u32) -> bool {
        self.below(1000) < per_mille as usize
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items.get(self.below(items.len())).copied().unwrap_or("x")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Model,
    Service,
    Controller,
    Concern,
}

#[derive(Debug, Clone)]
struct Plan {
    kind: Kind,
    namespace: &'static str,
    stem: String,
    layer: usize,
}

impl Plan {
    fn class_name(&self) -> String {
        rspec_scout::naming::camelize(&format!("{}/{}", self.namespace, self.stem))
    }

    fn path(&self) -> String {
        let dir = match self.kind {
            Kind::Model => "app/models",
            Kind::Service => "app/services",
            Kind::Controller => "app/controllers",
            Kind::Concern => "app/models/concerns",
        };
        format!("{dir}/{}/{}.rb", self.namespace, self.stem)
    }
}

/// The files of a codebase, in path order.
pub fn generate(spec: &Spec) -> Vec<GeneratedFile> {
    let mut rng = Rng::new(spec.seed);
    let layers = spec.layers.max(1);
    let mut plans = Vec::with_capacity(spec.files);
    for i in 0..spec.files {
        let roll = rng.below(100);
        let kind = match roll {
            0..=39 => Kind::Model,
            40..=74 => Kind::Service,
            75..=89 => Kind::Controller,
            _ => Kind::Concern,
        };
        let namespace = NAMESPACES
            .get(i % NAMESPACES.len())
            .copied()
            .unwrap_or("app");
        let noun = rng.pick(NOUNS);
        let stem = match kind {
            Kind::Model => format!("{noun}_{i}"),
            Kind::Service => format!("{}_{noun}_{i}", rng.pick(VERBS)),
            Kind::Controller => format!("{noun}s_{i}_controller"),
            Kind::Concern => format!("{noun}_{i}_able"),
        };
        // Controllers sit on top, models at the bottom: like a real app.
        let layer = match kind {
            Kind::Model | Kind::Concern => rng.below(layers / 2 + 1),
            Kind::Service => layers / 3 + rng.below(layers / 2 + 1),
            Kind::Controller => layers.saturating_sub(1),
        }
        .min(layers - 1);
        plans.push(Plan {
            kind,
            namespace,
            stem,
            layer,
        });
    }
    let mut by_layer: Vec<Vec<usize>> = vec![Vec::new(); layers];
    for (i, p) in plans.iter().enumerate() {
        if let Some(l) = by_layer.get_mut(p.layer) {
            l.push(i);
        }
    }
    let mut files: Vec<GeneratedFile> = plans
        .iter()
        .map(|plan| {
            let source = render(plan, &plans, &by_layer, spec, &mut rng);
            GeneratedFile {
                path: plan.path(),
                class_name: plan.class_name(),
                source,
            }
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// Picks a class to depend on: a lower layer, or rarely any layer (a possible cycle).
fn dependency(
    plan: &Plan,
    plans: &[Plan],
    by_layer: &[Vec<usize>],
    spec: &Spec,
    rng: &mut Rng,
) -> Option<String> {
    let layer = if plan.layer == 0 || rng.chance(spec.back_references_per_mille) {
        rng.below(by_layer.len())
    } else {
        rng.below(plan.layer)
    };
    let candidates = by_layer.get(layer)?;
    let target = plans.get(*candidates.get(rng.below(candidates.len()))?)?;
    if target.kind == Kind::Controller || target.kind == Kind::Concern {
        return None;
    }
    Some(target.class_name())
}

fn render(
    plan: &Plan,
    plans: &[Plan],
    by_layer: &[Vec<usize>],
    spec: &Spec,
    rng: &mut Rng,
) -> String {
    let mut out = String::with_capacity(4096);
    let ns = rspec_scout::naming::camelize(plan.namespace);
    let short = rspec_scout::naming::camelize(&plan.stem);
    let _ = writeln!(out, "# frozen_string_literal: true\n\nmodule {ns}");
    match plan.kind {
        Kind::Model => {
            let _ = writeln!(out, "  class {short} < ApplicationRecord");
            let _ = writeln!(
                out,
                "    belongs_to :account\n    has_many :line_items, dependent: :destroy"
            );
            let _ = writeln!(
                out,
                "    enum :status, {{ draft: 0, active: 1, archived: 2 }}\n"
            );
            let _ = writeln!(out, "    validates :name, presence: true\n    scope :recent, -> {{ where(created_at: 30.days.ago..) }}\n");
        }
        Kind::Service => {
            let _ = writeln!(
                out,
                "  class {short}\n    def self.call(...) = new(...).call\n"
            );
            let _ = writeln!(out, "    def initialize(record, actor: nil)\n      @record = record\n      @actor = actor\n    end\n");
        }
        Kind::Controller => {
            let _ = writeln!(out, "  class {short} < ApplicationController");
            let _ = writeln!(out, "    before_action :authenticate_user!\n    before_action :set_record, only: %i[show update destroy]\n");
        }
        Kind::Concern => {
            let _ = writeln!(out, "  module {short}\n    extend ActiveSupport::Concern\n\n    included do\n      before_save :normalize\n    end\n");
        }
    }
    // A long tail of method counts: most files small, some red-zone giants.
    let methods = match rng.below(100) {
        0..=59 => 2 + rng.below(5),
        60..=89 => 6 + rng.below(6),
        90..=97 => 12 + rng.below(10),
        _ => 25 + rng.below(25),
    };
    let privates = (methods / 3).max(1);
    let mut private_names = Vec::new();
    for p in 0..privates {
        private_names.push(format!("{}_{p}", rng.pick(VERBS)));
    }
    for m in 0..methods {
        let name = format!("{}_{}", rng.pick(VERBS), m);
        let dep = dependency(plan, plans, by_layer, spec, rng);
        let helper = private_names.get(rng.below(private_names.len())).cloned();
        method(&mut out, &name, dep.as_deref(), helper.as_deref(), rng);
    }
    let _ = writeln!(out, "    private\n");
    for name in &private_names {
        let dep = dependency(plan, plans, by_layer, spec, rng);
        method(&mut out, name, dep.as_deref(), None, rng);
    }
    if plan.kind == Kind::Controller {
        let _ = writeln!(
            out,
            "    def set_record\n      @record = {ns}::{short}.find(params[:id])\n    end\n"
        );
    }
    out.push_str("  end\nend\n");
    out
}

fn method(out: &mut String, name: &str, dep: Option<&str>, helper: Option<&str>, rng: &mut Rng) {
    let arg = if rng.chance(500) { "(record)" } else { "" };
    let _ = writeln!(out, "    def {name}{arg}");
    match rng.below(6) {
        0 => {
            let _ = writeln!(out, "      return nil unless @record.present?\n      raise ArgumentError, \"archived\" if @record.archived?\n");
        }
        1 => {
            let _ = writeln!(
                out,
                "      case @record.status\n      when \"draft\"\n        :pending\n      when \"active\"\n        :live\n      else\n        :gone\n      end"
            );
        }
        2 => {
            let _ = writeln!(
                out,
                "      if @record.total_cents >= 10_000 && @record.account.verified?\n        :large\n      elsif @record.total_cents.zero?\n        :empty\n      else\n        :small\n      end"
            );
        }
        _ => {}
    }
    if let Some(dep) = dep {
        let _ = writeln!(out, "      result = {dep}.find_by(id: @record.id)");
        let _ = writeln!(out, "      result&.touch");
    }
    if let Some(helper) = helper {
        let _ = writeln!(out, "      {helper}");
    }
    let _ = writeln!(out, "      @record\n    end\n");
}

/// Writes the files under `dir` (created if needed).
pub fn write(dir: &Path, files: &[GeneratedFile]) -> std::io::Result<()> {
    for f in files {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, &f.source)?;
    }
    Ok(())
}

/// A generated codebase in a git repository: `main` holds every file; `feature` (checked
/// out) changes `changed` files (a method edited, a method added) and adds `added` files.
#[derive(Debug)]
pub struct Repo {
    /// Repository root.
    pub dir: PathBuf,
    /// Paths changed on the feature branch.
    pub changed: Vec<String>,
}

/// Generates a codebase in `dir` and commits it: `main` first, then a `feature` branch.
pub fn write_repo(
    dir: &Path,
    spec: &Spec,
    changed: usize,
    added: usize,
) -> Result<Repo, git2::Error> {
    let files = generate(spec);
    write(dir, &files).map_err(|e| git2::Error::from_str(&e.to_string()))?;
    let repo = git2::Repository::init(dir)?;
    let sig = git2::Signature::new(
        "bench",
        "bench@example.invalid",
        &git2::Time::new(1_700_000_000, 0),
    )?;
    let tree = stage_all(&repo)?;
    let tree = repo.find_tree(tree)?;
    let base = repo.commit(Some("HEAD"), &sig, &sig, "initial", &tree, &[])?;
    let base = repo.find_commit(base)?;
    repo.branch("main", &base, true)?;
    repo.set_head("refs/heads/main")?;
    repo.branch("feature", &base, true)?;
    repo.set_head("refs/heads/feature")?;
    let mut rng = Rng::new(spec.seed ^ 0xfea7);
    let mut touched = Vec::new();
    let step = (files.len() / changed.max(1)).max(1);
    for f in files.iter().step_by(step).take(changed) {
        let mut source = f.source.clone();
        // Edit the first method body and add a new public method.
        source = source.replacen(
            "      @record\n    end",
            "      @record.tap(&:reload)\n    end",
            1,
        );
        let extra = format!(
            "    def added_{}\n      @record.id\n    end\n\n    private\n",
            rng.below(1000)
        );
        source = source.replacen("    private\n", &extra, 1);
        std::fs::write(dir.join(&f.path), source)
            .map_err(|e| git2::Error::from_str(&e.to_string()))?;
        touched.push(f.path.clone());
    }
    for i in 0..added {
        let path = format!("app/services/feature/new_flow_{i}.rb");
        let source = format!(
            "# frozen_string_literal: true\n\nmodule Feature\n  class NewFlow{i}\n    def call(order)\n      return :skip if order.nil?\n\n      order.id\n    end\n  end\nend\n"
        );
        let full = dir.join(&path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(|e| git2::Error::from_str(&e.to_string()))?;
        }
        std::fs::write(full, source).map_err(|e| git2::Error::from_str(&e.to_string()))?;
        touched.push(path);
    }
    let tree = stage_all(&repo)?;
    let tree = repo.find_tree(tree)?;
    repo.commit(Some("HEAD"), &sig, &sig, "feature work", &tree, &[&base])?;
    touched.sort();
    Ok(Repo {
        dir: dir.to_path_buf(),
        changed: touched,
    })
}

fn stage_all(repo: &git2::Repository) -> Result<git2::Oid, git2::Error> {
    let mut index = repo.index()?;
    index.add_all(["*"], git2::IndexAddOption::DEFAULT, None)?;
    index.write()?;
    index.write_tree()
}

#[cfg(test)]
mod tests {
    // Run in the integration tests' binary; a bench built for checking keeps the module
    // but not its tests.
    #[allow(unused_imports)]
    use super::*;

    #[test]
    fn generation_is_deterministic_and_parses() {
        let a = generate(&Spec::new(60));
        let b = generate(&Spec::new(60));
        assert_eq!(a.len(), 60);
        assert!(a
            .iter()
            .zip(&b)
            .all(|(x, y)| x.path == y.path && x.source == y.source));
        for f in &a {
            let facts = rspec_scout::index::extract(&f.path, f.source.as_bytes());
            assert_eq!(
                facts.diagnostic_count, 0,
                "{}: {:?}\n{}",
                f.path, facts.diagnostics, f.source
            );
            assert!(
                facts.classes.iter().any(|c| c.name == f.class_name),
                "{}",
                f.path
            );
            assert!(
                rspec_scout::naming::constant_matches_path(&f.class_name, &f.path),
                "{} {}",
                f.class_name,
                f.path
            );
        }
    }

    #[test]
    fn sizes_spread_across_zones() {
        let files = generate(&Spec::new(400));
        let locs: Vec<u32> = files
            .iter()
            .map(|f| rspec_scout::index::extract(&f.path, f.source.as_bytes()).loc)
            .collect();
        assert!(locs.iter().any(|&l| l < 150));
        assert!(locs.iter().any(|&l| l > 300));
    }
}
