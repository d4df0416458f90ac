//! Loops and iteration blocks, only where their body decides the outcome (contract: "loops
//! only where their body decides the outcome"): a guard clause inside `each`/`find_each`/
//! `while` that returns from or raises out of the method is a characteristic of the
//! method ("some element fails the check" is its exiting value). Other code in loop bodies
//! does not branch the method's outcome and is not a characteristic. That the condition
//! holds for at least one element is our reading (\[J\], noted).
//!
//! Example: `items.each { |item| raise OutOfStock unless item.available? }` gives
//! `item_available` (true carries on; false → terminal `raises OutOfStock`).

use crate::index::body::Node;

use super::{statements, At, End, Walker};
use crate::analyze::rules::Rule;

const ITERATORS: &[&str] = &[
    "each",
    "each_with_index",
    "each_with_object",
    "each_value",
    "each_key",
    "each_pair",
    "find_each",
    "find_in_batches",
    "in_batches",
    "times",
    "upto",
    "downto",
    "map",
    "flat_map",
    "each_slice",
];

impl Walker<'_> {
    /// Handles a loop whose body holds a method-leaving guard.
    pub fn loop_guard(&mut self, stmt: &Node, rest: &[Node], at: At, tail: bool) -> Option<End> {
        let body = match stmt {
            Node::Call(c) if ITERATORS.contains(&c.name.as_str()) => &c.block.as_ref()?.body,
            Node::Loop { body, .. } => body,
            _ => return None,
        };
        let guard = statements(body).into_iter().find_map(|s| match s {
            Node::If(i) if i.els.is_none() => {
                let exit = crate::analyze::outcome::always_exits(&i.then, &self.cx.text)?;
                // `next`/`break` only leave the block.
                let leaves_method = matches!(statements(&i.then).last(), Some(Node::Return { .. }))
                    || exit.description.starts_with("raises")
                    || exit.description.starts_with("throws");
                leaves_method.then_some(i)
            }
            _ => None,
        })?;
        self.apply(Rule::LoopGuardSomeElement, None);
        self.guard(&guard, rest, at, tail)
    }
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn a_raising_guard_in_a_loop_is_a_characteristic() {
        let m = analyze_one(
            "class Checkout\n  def reserve(items)\n    items.each do |item|\n      raise OutOfStock unless item.available?\n    end\n    :reserved\n  end\nend\n",
            "reserve",
        );
        assert_eq!(
            flat(&m),
            vec!["1 item_available [boolean] true:available item -> returns :reserved | false:NOT available item => raises OutOfStock"]
        );
        assert!(m.notes.iter().any(|n| n.contains("loop")));
    }

    #[test]
    fn a_condition_per_element_is_read_for_one_element() {
        let m = analyze_one(
            "class Checkout\n  def touch_all(items)\n    items.each { |i| i.touch if i.stale? }\n    items.size\n  end\nend\n",
            "touch_all",
        );
        assert_eq!(
            flat(&m),
            vec!["1 item_stale [boolean] true:stale item -> touches the item | false:NOT stale item -> returns the number of items"]
        );
    }
}
