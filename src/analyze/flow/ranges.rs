//! One subject compared against thresholds is one characteristic (contract §5 rules 5 and
//! 7): `if amount > 100_000 ... elsif amount > 10_000 ... else ... end` is one range with a
//! value per band (`above 100000`, `above 10000`, `at most 10000`), not `amount` and
//! `amount_2` nested in each other. A band may also be an equality or several
//! comparisons joined by `||` (`if p == 0 ... elsif p < 0 || p > MAX ...`).
//!
//! The range's `threshold_value` and `threshold_operator` are those of the first
//! comparison.

use crate::index::body::{Call, If, Node};
use crate::yaml::Value;

use super::{At, End, Walker};
use crate::analyze::condition;
use crate::analyze::grammar::identifier;
use crate::analyze::model::CharType;

impl Walker<'_> {
    /// `if x > a ... elsif x > b ... else ... end` on one subject → one range.
    pub fn range_chain(&mut self, node: &If, rest: &[Node], at: At, tail: bool) -> Option<End> {
        if node.unless || node.ternary {
            return None;
        }
        let mut arms: Vec<(Vec<(Value, String)>, Node)> = Vec::new();
        let mut subject: Option<Node> = None;
        let mut first_threshold: Option<(Option<Value>, &'static str)> = None;
        let mut last_band: Vec<Band>;
        let mut any_comparison = false;
        let mut current = node;
        let els: Option<Node>;
        let mut lines = (node.cond_line, node.cond_line);
        loop {
            let mut bands = Vec::new();
            bands_of(&current.cond, &mut bands)?;
            for b in &bands {
                match &subject {
                    None => subject = Some(b.subject.clone()),
                    Some(s) if s.render() == b.subject.render() => {}
                    Some(_) => return None,
                }
                if first_threshold.is_none() {
                    first_threshold = Some((b.number.clone(), b.operator));
                }
                any_comparison |= b.operator != "==";
            }
            let text = bands
                .iter()
                .map(|b| b.words.clone())
                .collect::<Vec<_>>()
                .join(" or ");
            arms.push((
                vec![(Value::String(identifier(&text)), text)],
                current.then.clone(),
            ));
            lines.1 = lines
                .1
                .max(current.cond.span().map_or(current.cond_line, |(_, hi)| hi));
            last_band = bands;
            match &current.els {
                Some(Node::If(next)) if next.elsif => current = next,
                other => {
                    els = other.clone();
                    break;
                }
            }
        }
        // At least two bands, and at least one comparison (an all-equality chain is an
        // enum, `case.rs`).
        if arms.len() < 2 || !any_comparison {
            return None;
        }
        let subject = self.named_subject(&subject?);
        let (name, words) = condition::case_subject(&subject);
        let otherwise = otherwise_words(&arms, &last_band);
        let mut values: Vec<(Value, String)> = arms
            .iter()
            .filter_map(|(v, _)| v.first().cloned())
            .collect();
        values.push((Value::String(identifier(&otherwise)), otherwise));
        let mut bodies: Vec<Node> = arms.into_iter().map(|(_, b)| b).collect();
        bodies.push(els.unwrap_or(Node::Seq(Vec::new())));
        let (threshold_value, threshold_operator) = match first_threshold {
            Some((v, op)) => (v, Some(op)),
            None => (None, None),
        };
        let (setup, source) = self.setup_and_source(&subject);
        let index = self.push_char(
            name,
            words,
            CharType::Range,
            values,
            source,
            setup,
            at,
            lines,
            threshold_value,
            threshold_operator,
        );
        Some(self.walk_values(index, &bodies, rest, at, tail))
    }
}

/// One comparison of a band: `subject op number`.
#[derive(Debug, Clone)]
struct Band {
    subject: Node,
    operator: &'static str,
    number: Option<Value>,
    words: String,
}

/// The comparisons of a band's condition (`a > 1`, `a < 0 || a > 9`, `a == 0`); `None`
/// when it is anything else.
fn bands_of(cond: &Node, out: &mut Vec<Band>) -> Option<()> {
    match cond {
        Node::Or(a, b, _) => {
            bands_of(a, out)?;
            bands_of(b, out)
        }
        Node::Call(c) => {
            out.push(band(c)?);
            Some(())
        }
        _ => None,
    }
}

fn band(c: &Call) -> Option<Band> {
    let lhs = c.recv.as_ref()?;
    let rhs = c.args.first()?;
    if c.args.len() != 1 {
        return None;
    }
    let operator: &'static str = match c.name.as_str() {
        ">" => ">",
        ">=" => ">=",
        "<" => "<",
        "<=" => "<=",
        "==" => "==",
        _ => return None,
    };
    if !threshold_like(rhs) || threshold_like(lhs) {
        return None;
    }
    let limit = crate::analyze::phrase::noun(rhs);
    let words = match operator {
        ">" => format!("above {limit}"),
        ">=" => format!("at least {limit}"),
        "<" => format!("below {limit}"),
        "<=" => format!("at most {limit}"),
        _ => format!("equal to {limit}"),
    };
    let number = match rhs {
        Node::Int(i) => Some(Value::from(*i)),
        Node::Float(f) => Some(Value::from(*f)),
        _ => None,
    };
    Some(Band {
        subject: lhs.clone(),
        operator,
        number,
        words,
    })
}

/// A number, a constant, or arithmetic on them (`2**32`, `MAX_PAGE`).
fn threshold_like(node: &Node) -> bool {
    match node {
        Node::Int(_) | Node::Float(_) | Node::Const { .. } => true,
        Node::Call(c) => {
            matches!(c.name.as_str(), "+" | "-" | "*" | "/" | "**")
                && c.recv.as_ref().is_some_and(threshold_like)
                && c.args.iter().all(threshold_like)
        }
        _ => false,
    }
}

/// The band no condition names: the opposite of the last comparison when the chain
/// only goes one way (`> 100_000`, `> 10_000` → `at most 10000`), else `otherwise`.
fn otherwise_words(arms: &[(Vec<(Value, String)>, Node)], last: &[Band]) -> String {
    let _ = arms;
    match last {
        [b] => {
            let limit = b.words.split_once(' ').map_or("", |(_, l)| l);
            match b.operator {
                ">" => format!("at most {limit}"),
                ">=" => format!("below {limit}"),
                "<" => format!("at least {limit}"),
                "<=" => format!("above {limit}"),
                _ => "any other value".to_string(),
            }
        }
        _ => "any other value".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn thresholds_on_one_subject_are_one_range() {
        let m = analyze_one(
            "class Fee\n  def tier(amount)\n    if amount > 100_000\n      :gold\n    elsif amount > 10_000\n      :silver\n    else\n      :bronze\n    end\n  end\nend\n",
            "tier",
        );
        assert_eq!(
            flat(&m),
            vec!["1 amount [range] above_100000:above 100000 -> returns :gold | above_10000:above 10000 -> returns :silver | at_most_10000:at most 10000 -> returns :bronze"]
        );
        assert_eq!(m.characteristics[0].source_line, "3-5");
        assert_eq!(m.characteristics[0].threshold_operator, Some(">"));
    }

    #[test]
    fn an_equality_and_an_or_of_comparisons_are_bands_too() {
        let m = analyze_one(
            "class Pager\n  def page(p)\n    if p == 0\n      1\n    elsif p < 0 || p > 2**32\n      raise RoutingError\n    else\n      p\n    end\n  end\nend\n",
            "page",
        );
        assert_eq!(
            flat(&m),
            vec!["1 p [range] equal_to_0:equal to 0 -> returns 1 | below_0_or_above_2_to_the_power_of_32:below 0 or above 2 to the power of 32 => raises RoutingError | any_other_value:any other value -> returns the p"]
        );
    }
}
