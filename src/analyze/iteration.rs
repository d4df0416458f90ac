//! Ruby's iterating calls, as the walk over a method body needs them: which calls run their
//! block once per element (`each`, `map`, `find_each`, `times`), which of them keep the
//! block's value (`map`) and which throw it away (`each`). A leaf: the walk (`flow/`) and
//! its block handling (`blocks.rs`) both read it, neither through the other.

/// The name under which a `map` block's last value is kept, said `each element mapped to`.
pub const MAPPED_ELEMENT: &str = "mapped_element";

/// Calls whose block runs once per element; the call's value is a new collection or the
/// receiver, not the block's last value.
pub const ITERATIONS: &[&str] = &[
    "each",
    "each_with_index",
    "each_with_object",
    "each_value",
    "each_key",
    "each_pair",
    "each_slice",
    "each_cons",
    "find_each",
    "find_in_batches",
    "in_batches",
    "times",
    "upto",
    "downto",
    "step",
    "map",
    "map!",
    "collect",
    "flat_map",
    "filter_map",
    "each_entry",
    "reverse_each",
];

/// Whether the call `name` throws away what its block returns on each run (`each`,
/// `times`, `loop`), unlike `map` or `transaction`, whose value is the block's.
pub fn discards_block_value(name: &str) -> bool {
    name == "loop"
        || (ITERATIONS.contains(&name)
            && !matches!(name, "map" | "map!" | "collect" | "flat_map" | "filter_map"))
}
