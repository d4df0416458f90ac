//! Small readers over prism's nodes that every reader of Ruby in the index shares (the
//! facts extractor, the body converter, spec blocks, routes, factories): lossy names,
//! constant paths, the depth bound. A leaf: it imports nothing of the index, so the readers
//! that use it never import each other for these.

use ruby_prism::Node;

/// How deep the extractor follows the syntax tree. Real code stays far below this; prism
/// itself stops at a similar nesting depth, but long operator or call chains (`a + a + ...`)
/// build left-deep trees that are not limited by prism.
pub(crate) const MAX_TREE_DEPTH: usize = 1_500;

/// The text of a constant path (`A::B`), and whether it starts with `::`. Dynamic paths
/// (`foo::Bar`) and anything that is not a constant give an empty string.
pub(crate) fn const_path_text(node: &Node<'_>) -> (String, bool) {
    if let Some(read) = node.as_constant_read_node() {
        return (bytes_to_string(read.name().as_slice()), false);
    }
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut absolute = false;
    // Iterative on purpose: `A::B::C::...` can be arbitrarily long.
    let mut next = match const_step(node, &mut parts, &mut absolute) {
        Ok(parent) => parent,
        Err(()) => return (String::new(), false),
    };
    while let Some(n) = next {
        next = match const_step(&n, &mut parts, &mut absolute) {
            Ok(parent) => parent,
            Err(()) => return (String::new(), false),
        };
    }
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.len() + 2).sum());
    for (i, part) in parts.iter().rev().enumerate() {
        if i > 0 {
            out.extend_from_slice(b"::");
        }
        out.extend_from_slice(part);
    }
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (text, absolute)
}

/// One segment of a constant path: pushes its name and returns its parent, if any.
fn const_step<'pr>(
    node: &Node<'pr>,
    parts: &mut Vec<&'pr [u8]>,
    absolute: &mut bool,
) -> Result<Option<Node<'pr>>, ()> {
    if let Some(read) = node.as_constant_read_node() {
        parts.push(read.name().as_slice());
        return Ok(None);
    }
    let (name, parent) = if let Some(path) = node.as_constant_path_node() {
        (path.name(), path.parent())
    } else if let Some(path) = node.as_constant_path_target_node() {
        (path.name(), path.parent())
    } else {
        return Err(());
    };
    let name = name.ok_or(())?;
    parts.push(name.as_slice());
    if parent.is_none() {
        *absolute = true;
    }
    Ok(parent)
}

/// Lossy UTF-8: names in non-UTF-8 files keep a replacement character instead of failing.
pub(crate) fn bytes_to_string(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}
