//! Feature-detection shims: `request.respond_to?(:get_header) ? request.get_header(k) :
//! request.env[k]` computes one value two ways, for two versions of a library. No spec
//! sets up the older library to see the same value come back, so the walk takes the
//! branch the current library answers and asks nothing.
//!
//! Also: a `&.` after a core method that never answers nil (`name&.split(' ')&.first`)
//! is a plain call; Ruby's `&.` already skips the rest of the chain when the first
//! receiver is nil.

use crate::index::body::{Call, Node};

/// `node` with each shim replaced by its detecting branch, wherever it stands (a
/// statement, a value, an argument). A body that is one shim and nothing else
/// (`respond_to?(:email_previously_was) ? email_previously_was : email_was`) exists to
/// bridge the versions, and both are its cases: it stays.
pub fn without_shims(body: &Node) -> Node {
    match body.statements().as_slice() {
        [Node::If(i)] if is_shim(i) => body.clone(),
        _ => rewrite(body),
    }
}

/// `node` with every shim replaced by its detecting branch: for a helper's body, which
/// bridges versions for the method that calls it.
pub fn rewrite(node: &Node) -> Node {
    match node {
        Node::If(i) if is_shim(i) => rewrite(&i.then),
        // A shim standing as a statement gives its branch's statements in its place.
        Node::Seq(items) => Node::Seq(
            items
                .iter()
                .flat_map(|item| match rewrite(item) {
                    Node::Seq(inner) => inner,
                    one => vec![one],
                })
                .collect(),
        ),
        // `name&.split(' ')&.first`: Ruby's `&.` already skips the rest of the chain when
        // `name` is nil, and `split` never answers nil: the second `&.` asks nothing.
        Node::Call(c) if c.safe_nav && c.recv.as_ref().is_some_and(never_nil_result) => {
            Node::Call(Box::new(Call {
                safe_nav: false,
                ..(**c).clone()
            }))
            .map_children(&mut rewrite)
        }
        other => other.map_children(&mut rewrite),
    }
}

/// Core methods of String, Array, Hash and Enumerable that answer a value (never nil)
/// whenever they are called: a `&.` after one guards against nothing.
pub(super) const NEVER_NIL: &[&str] = &[
    "split",
    "strip",
    "lstrip",
    "rstrip",
    "squish",
    "downcase",
    "upcase",
    "capitalize",
    "to_s",
    "to_a",
    "to_h",
    "to_i",
    "to_f",
    "to_sym",
    "map",
    "collect",
    "flat_map",
    "filter_map",
    "select",
    "filter",
    "reject",
    "compact",
    "flatten",
    "drop",
    "join",
    "keys",
    "values",
    "sort",
    "sort_by",
    "uniq",
    "reverse",
    "chars",
    "lines",
    "gsub",
    "sub",
    "tr",
    "zip",
    "group_by",
    "partition",
    "transform_values",
    "transform_keys",
    "size",
    "length",
    "count",
    "each_slice",
    "each_with_index",
];

/// A call (plain or itself `&.`) to one of [`NEVER_NIL`].
fn never_nil_result(node: &Node) -> bool {
    matches!(node, Node::Call(c) if c.recv.is_some() && NEVER_NIL.contains(&c.name.as_str()))
}

/// `R.respond_to?(:m) ? <uses R.m> : <another way>`, the other way a computed value:
/// not a literal default (`: "/"`), not an exit, not nothing, not `R` itself (`classes.
/// respond_to?(:call) ? classes.call : classes` takes a callable or a value, two shapes
/// of an option a spec gives). Written with `unless`, or with anything else in the
/// condition, it is a real question and stays.
fn is_shim(i: &crate::index::body::If) -> bool {
    if i.unless || i.elsif {
        return false;
    }
    let Node::Call(test) = &i.cond else {
        return false;
    };
    if test.name != "respond_to?" || test.args.len() != 1 || test.block.is_some() {
        return false;
    }
    let method = match test.args.first() {
        Some(Node::Sym(m) | Node::Str(m)) if m != "call" => m.as_str(),
        _ => return false,
    };
    let Some(els) = &i.els else {
        return false;
    };
    let other = els.statements();
    let computed = match other.as_slice() {
        [only] => {
            !super::inline::is_literal(only)
                && !matches!(only, Node::Array(_) | Node::Hash(_) | Node::Return { .. })
                && Some(only) != test.recv.as_ref()
                && !matches!(only, Node::Call(c) if c.recv.is_none() && matches!(c.name.as_str(), "raise" | "fail" | "throw"))
        }
        _ => false,
    };
    computed && calls(&i.then, test.recv.as_ref(), method)
}

/// Whether `node` calls `method` on `recv` (on `self` or no receiver when `recv` is
/// none).
fn calls(node: &Node, recv: Option<&Node>, method: &str) -> bool {
    struct Find<'a> {
        recv: Option<&'a Node>,
        method: &'a str,
        found: bool,
    }
    impl<'n> crate::index::body::Visitor<'n> for Find<'_> {
        fn enter(&mut self, node: &'n Node) -> bool {
            if let Node::Call(c) = node {
                if c.name == self.method && same_receiver(c, self.recv) {
                    self.found = true;
                }
            }
            !self.found
        }
    }
    let mut find = Find {
        recv,
        method,
        found: false,
    };
    crate::index::body::walk(&mut find, node);
    find.found
}

fn same_receiver(c: &Call, recv: Option<&Node>) -> bool {
    match (c.recv.as_ref(), recv) {
        (None | Some(Node::SelfRef), None | Some(Node::SelfRef)) => true,
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn a_shim_for_an_older_library_is_no_characteristic() {
        // Shaped like an authentication failure app reading the Rack env and building a
        // message on two Rails versions.
        let src = "class FailureApp\n  def options\n    found = request.respond_to?(:get_header) ? request.get_header(\"warden.options\") : request.env[\"warden.options\"]\n    found.merge(recall: true)\n  end\n\n  def label(key)\n    text = key.respond_to?(:downcase_first) ? key.downcase_first : key[0].downcase + key[1..]\n    \"#{text} is invalid\"\n  end\n\n  def home\n    context.respond_to?(:root_path) ? context.root_path : \"/\"\n  end\n\n  def forget\n    if respond_to?(:remember_token)\n      self.remember_token = nil\n    else\n      raise NotImplementedError\n    end\n  end\nend\n";
        for method in ["options", "label"] {
            let m = analyze_one(src, method);
            assert!(m.characteristics.is_empty(), "{method}: {:?}", flat(&m));
        }
        // A literal default, an exit, a callable-or-value option and a method that is
        // nothing but the shim: the question stays.
        let src = src.replace(
            "\nend\n",
            "\n\n  def classes\n    klasses = options.fetch(:classes, [])\n    klasses.respond_to?(:call) ? klasses.call : klasses\n  end\n\n  def email_before_last_save\n    respond_to?(:email_previously_was) ? email_previously_was : email_was\n  end\nend\n",
        );
        for method in ["home", "forget", "classes", "email_before_last_save"] {
            let m = analyze_one(&src, method);
            assert_eq!(m.characteristics.len(), 1, "{method}: {:?}", flat(&m));
        }
    }

    #[test]
    fn a_shim_in_a_helper_gives_way_to_the_questions_inside_it() {
        // An adapter writing through the connection class on Rails versions that have one:
        // the version check goes, the connection question inside it stays.
        let src = "class Adapter
  def enable(feature)
    with_write_connection(@model) { |c| c.insert(feature.key) }
  end

  private

  def with_write_connection(model, &block)
    if model.respond_to?(:connection_class_for_self)
      klass = model.connection_class_for_self
      if klass.connection_class?
        klass.connected_to(role: :writing) do
          with_connection(model, &block)
        end
      else
        with_connection(model, &block)
      end
    else
      with_connection(model, &block)
    end
  end
end
";
        let m = analyze_one(src, "enable");
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["klass_connection_class"], "{:?}", flat(&m));
    }
}
