//! §10.3: the state budget ("compiled states") and the group-depth cap.
//!
//! The reference counts the states of its own Thompson NFA while building
//! it and throws at the 8193rd. The count depends only on the tree, so it
//! is computed here in closed form; arithmetic saturates, so
//! `((a{1000}){1000}){1000}` is "too many", never an overflow.

use super::ecma::{Ast, Node, NodeId};

/// Most groups nested inside each other (§19; top level is depth 0).
pub(crate) const MAX_GROUP_DEPTH: usize = 128;
/// Most compiled states, the accept state included (§19).
pub(crate) const MAX_STATES: u64 = 8192;

/// Why a tree is over budget, in the order the reference checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OverBudget {
    TooDeep,
    TooManyStates,
}

impl OverBudget {
    /// The §10 step 7 detail.
    pub(crate) fn detail(self) -> &'static str {
        match self {
            OverBudget::TooDeep => "patterns must not exceed 128 nested groups",
            OverBudget::TooManyStates => "patterns must not exceed 8192 compiled states",
        }
    }
}

/// The total state count of `ast`, accept state included, saturating at
/// `u64::MAX`. Fails only on depth: the reference parses (and throws on
/// depth) before it builds, so depth wins over the count.
pub(crate) fn count(ast: &Ast) -> Result<u64, OverBudget> {
    if ast.max_depth > MAX_GROUP_DEPTH {
        return Err(OverBudget::TooDeep);
    }
    // Recursion depth is bounded: at most 128 groups, each adding a fixed
    // number of node levels (group, alternation, concat, repeat).
    Ok(1u64.saturating_add(states(ast, ast.root)))
}

/// `count` with the 8192 cap applied.
pub(crate) fn check(ast: &Ast) -> Result<u64, OverBudget> {
    let total = count(ast)?;
    if total > MAX_STATES {
        return Err(OverBudget::TooManyStates);
    }
    Ok(total)
}

fn states(ast: &Ast, id: NodeId) -> u64 {
    match ast.node(id) {
        Node::Literal(_) | Node::Any | Node::Start | Node::End | Node::Class { .. } => 1,
        Node::Concat(terms) => terms
            .iter()
            .fold(0, |sum, &t| sum.saturating_add(states(ast, t))),
        Node::Alternation(branches) => branches
            .iter()
            .fold(1, |sum, &b| sum.saturating_add(states(ast, b))),
        Node::Group(alternation) => states(ast, *alternation),
        Node::Repeat { sub, min, max } => {
            let s = states(ast, *sub);
            let min = u64::from(*min);
            let required = min.saturating_mul(s);
            match max {
                // One loop split, one body, then `min` mandatory copies.
                None => 1u64.saturating_add(s).saturating_add(required),
                // One split plus one body per optional copy.
                Some(max) => u64::from(*max)
                    .saturating_sub(min)
                    .saturating_mul(s.saturating_add(1))
                    .saturating_add(required),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ecma::parse;
    use super::*;

    fn total(pattern: &str) -> Result<u64, OverBudget> {
        count(&parse(pattern).expect("valid"))
    }

    /// Every worked total of §10.3.
    #[test]
    fn worked_totals() {
        let nine = "a{1000}".repeat(9);
        let table: [(&str, u64); 15] = [
            ("a", 3),
            ("abc", 5),
            ("a|b", 4),
            ("(a)", 4),
            ("a*", 4),
            ("a+", 5),
            ("a?", 4),
            ("a{2,5}", 10),
            ("(ab)+", 9),
            ("a{1000}", 1002),
            ("a{0,1000}", 2002),
            ("(a|b){1000}", 3002),
            ("(a{1000}){8}", 8010),
            ("(a{1000}){9}", 9011),
            (&nine, 9002),
        ];
        for (pattern, expected) in table {
            assert_eq!(total(pattern), Ok(expected), "{pattern:?}");
        }
        let ast = parse("(a{1000}){8}").unwrap();
        assert_eq!(check(&ast), Ok(8010));
        for rejected in ["(a{1000}){9}", "(a{1000}){1000}", &nine] {
            assert_eq!(
                check(&parse(rejected).unwrap()),
                Err(OverBudget::TooManyStates),
                "{rejected:?}"
            );
        }
    }

    #[test]
    fn saturates_instead_of_overflowing() {
        let pattern = format!("{}a{}", "(".repeat(100), "){1000}".repeat(100));
        assert_eq!(total(&pattern), Ok(u64::MAX));
    }

    #[test]
    fn depth_cap_is_128_groups() {
        let nest = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(total(&nest(128)), Ok(1 + 1 + 128 + 1));
        assert_eq!(total(&nest(129)), Err(OverBudget::TooDeep));
        // Depth wins over the state count.
        let deep_and_big = format!("{}a{}", "(".repeat(129), "){1000}".repeat(129));
        assert_eq!(total(&deep_and_big), Err(OverBudget::TooDeep));
    }

    #[test]
    fn empty_pieces() {
        assert_eq!(total(""), Ok(2));
        assert_eq!(total("()"), Ok(3));
        assert_eq!(total("(|a)*"), Ok(1 + 1 + (1 + (1 + 1))));
    }
}
