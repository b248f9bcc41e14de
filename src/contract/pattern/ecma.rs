//! Step 6 of §10: which patterns ECMAScript `u`-mode `RegExp` rejects, and
//! the tree of the ones it accepts.
//!
//! The reference validator asks V8 (`new RegExp(pattern, "u")`). A Rust port
//! has no JS engine, so this module is a recursive-descent parser for the
//! ECMAScript 2015+ `u`-mode grammar, written to fail on the *first* error in
//! left-to-right order with the reason V8 reports there (§10.2). It only ever
//! sees patterns that survived §10 steps 1–5 (printable ASCII, no `(?`, no
//! escape of a letter or digit, no nested class, no set operation), which is
//! why lookarounds, `\d`, `\b`, `\1`, `\u{…}` and named groups are absent
//! here: any escape of a character that is not a syntax character (plus `/`,
//! and `-` inside a class) is an `Invalid escape`.
//!
//! The accepted tree is what §10.3 (state budget) and §10.4 (matching) walk.
//! Nodes live in one arena so that dropping the tree of a 2 000-deep
//! `((((…))))` is a flat loop, not a recursion that could exhaust a stack;
//! every recursive walk over the tree runs only after the 128-group depth
//! cap of §10.3 has been checked.

/// Index of a node in [`Ast::nodes`].
pub(crate) type NodeId = usize;

/// One node of an accepted pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// A pattern character or an identity escape (`\.`), matched literally.
    Literal(char),
    /// `.`: any scalar but `\n` (§10.4).
    Any,
    /// `^`: start of the line.
    Start,
    /// `$`: end of the line.
    End,
    /// A bracket class; single characters are ranges with `lo == hi`.
    Class {
        /// `[^…]`.
        negated: bool,
        /// Inclusive ranges, in source order.
        ranges: Vec<(char, char)>,
    },
    /// `( … )`: points at its [`Node::Alternation`]. Captures never change
    /// whether a line matches, so the group only matters for the budget and
    /// for quantifier scope.
    Group(NodeId),
    /// Branches, each a [`Node::Concat`]. The top level and every group
    /// hold exactly one, even with a single branch (§10.3 counts it).
    Alternation(Vec<NodeId>),
    /// A sequence of terms (possibly empty).
    Concat(Vec<NodeId>),
    /// A quantified atom or group; `max == None` is unbounded. The lazy `?`
    /// is dropped: greediness never changes "does the line match".
    Repeat {
        /// The quantified term.
        sub: NodeId,
        /// Lower bound.
        min: u32,
        /// Upper bound, `None` for `*`, `+`, `{n,}`.
        max: Option<u32>,
    },
}

/// An accepted pattern: the arena, its root alternation and the deepest
/// group nesting seen (top level = 0, as §10.3 counts it).
#[derive(Clone, Debug)]
pub(crate) struct Ast {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: NodeId,
    pub(crate) max_depth: usize,
}

impl Ast {
    /// The tree of a fixed-string pattern: every character literal (§12).
    pub(crate) fn literal(text: &str) -> Ast {
        let mut nodes: Vec<Node> = text.chars().map(Node::Literal).collect();
        let concat = Node::Concat((0..nodes.len()).collect());
        nodes.push(concat);
        nodes.push(Node::Alternation(vec![nodes.len() - 1]));
        Ast {
            root: nodes.len() - 1,
            nodes,
            max_depth: 0,
        }
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }
}

/// Why the engine rejects a pattern. `reason()` is V8's wording (§10.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EngineError {
    NothingToRepeat,
    LoneQuantifierBrackets,
    IncompleteQuantifier,
    QuantifierOutOfOrder,
    InvalidEscape,
    EscapeAtEnd,
    ClassRangeOutOfOrder,
    UnterminatedClass,
    UnterminatedGroup,
    UnmatchedParen,
}

impl EngineError {
    /// The V8 message, without its `Invalid regular expression: /…/u: `
    /// prefix (which the reference strips, §10 step 6).
    pub(crate) fn reason(self) -> &'static str {
        match self {
            EngineError::NothingToRepeat => "Nothing to repeat",
            EngineError::LoneQuantifierBrackets => "Lone quantifier brackets",
            EngineError::IncompleteQuantifier => "Incomplete quantifier",
            EngineError::QuantifierOutOfOrder => "numbers out of order in {} quantifier",
            EngineError::InvalidEscape => "Invalid escape",
            EngineError::EscapeAtEnd => "\\ at end of pattern",
            EngineError::ClassRangeOutOfOrder => "Range out of order in character class",
            EngineError::UnterminatedClass => "Unterminated character class",
            EngineError::UnterminatedGroup => "Unterminated group",
            EngineError::UnmatchedParen => "Unmatched ')'",
        }
    }
}

/// ECMAScript `SyntaxCharacter`: the only characters `u` mode lets `\`
/// escape outside a class, together with `/`.
fn is_syntax_character(c: char) -> bool {
    matches!(
        c,
        '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
    )
}

/// A `{n}`, `{n,}` or `{n,m}` starting at `at` (which holds `{`): the
/// bounds and the length in characters. Digits only, no `{,m}`, as
/// `QuantifierPrefix` allows. Numbers saturate like V8's, so a 30-digit
/// count cannot overflow (§10 step 5 already refuses counts above 1000).
pub(crate) fn interval(chars: &[char], at: usize) -> Option<(u32, Option<u32>, usize)> {
    fn digits(chars: &[char], mut at: usize) -> Option<(u32, usize)> {
        let start = at;
        let mut value: u32 = 0;
        while let Some(d) = chars.get(at).and_then(|c| c.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(d);
            at += 1;
        }
        (at > start).then_some((value, at))
    }
    if chars.get(at) != Some(&'{') {
        return None;
    }
    let (min, at_after_min) = digits(chars, at + 1)?;
    match chars.get(at_after_min) {
        Some('}') => Some((min, Some(min), at_after_min + 1 - at)),
        Some(',') => match chars.get(at_after_min + 1) {
            Some('}') => Some((min, None, at_after_min + 2 - at)),
            _ => {
                let (max, after) = digits(chars, at_after_min + 1)?;
                (chars.get(after) == Some(&'}')).then_some((min, Some(max), after + 1 - at))
            }
        },
        _ => None,
    }
}

/// Parses `pattern` as a `u`-mode ECMAScript regular expression.
pub(crate) fn parse(pattern: &str) -> Result<Ast, EngineError> {
    Parser {
        chars: pattern.chars().collect(),
        pos: 0,
        nodes: Vec::new(),
    }
    .run()
}

/// One open alternation (the top level or a group) being filled.
#[derive(Default)]
struct Frame {
    branches: Vec<NodeId>,
    seq: Vec<NodeId>,
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    nodes: Vec<Node>,
}

impl Parser {
    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn close(&mut self, mut frame: Frame) -> NodeId {
        let seq = self.push(Node::Concat(frame.seq));
        frame.branches.push(seq);
        self.push(Node::Alternation(frame.branches))
    }

    // Iterative, with an explicit stack of open groups: a valid pattern may
    // nest 2 000 groups (step 7 rejects it later), which must not recurse.
    fn run(mut self) -> Result<Ast, EngineError> {
        let mut current = Frame::default();
        let mut outer: Vec<Frame> = Vec::new();
        let mut max_depth = 0;
        while let Some(c) = self.peek() {
            let atom = match c {
                '|' => {
                    self.pos += 1;
                    let seq = self.push(Node::Concat(std::mem::take(&mut current.seq)));
                    current.branches.push(seq);
                    continue;
                }
                '(' => {
                    self.pos += 1;
                    outer.push(std::mem::take(&mut current));
                    max_depth = max_depth.max(outer.len());
                    continue;
                }
                ')' => {
                    let Some(parent) = outer.pop() else {
                        return Err(EngineError::UnmatchedParen);
                    };
                    self.pos += 1;
                    let inner = std::mem::replace(&mut current, parent);
                    let alternation = self.close(inner);
                    self.push(Node::Group(alternation))
                }
                // In `u` mode a quantifier needs an atom; V8 reports a
                // well-formed `{n}` in atom position as nothing to repeat and
                // any other brace as a lone bracket.
                '*' | '+' | '?' => return Err(EngineError::NothingToRepeat),
                '{' => {
                    return Err(if interval(&self.chars, self.pos).is_some() {
                        EngineError::NothingToRepeat
                    } else {
                        EngineError::LoneQuantifierBrackets
                    });
                }
                '}' | ']' => return Err(EngineError::LoneQuantifierBrackets),
                // Assertions are not quantifiable in `u` mode: V8 returns to
                // the atom loop, so a following `*` is "Nothing to repeat".
                '^' | '$' => {
                    self.pos += 1;
                    let id = self.push(if c == '^' { Node::Start } else { Node::End });
                    current.seq.push(id);
                    continue;
                }
                '\\' => {
                    self.pos += 1;
                    let escaped = self.escape(false)?;
                    self.push(Node::Literal(escaped))
                }
                '[' => self.class()?,
                '.' => {
                    self.pos += 1;
                    self.push(Node::Any)
                }
                other => {
                    self.pos += 1;
                    self.push(Node::Literal(other))
                }
            };
            let term = self.quantifier(atom)?;
            current.seq.push(term);
        }
        if !outer.is_empty() {
            return Err(EngineError::UnterminatedGroup);
        }
        let root = self.close(current);
        Ok(Ast {
            nodes: self.nodes,
            root,
            max_depth,
        })
    }

    /// After `\`: the identity escape `u` mode allows, or the error.
    fn escape(&mut self, in_class: bool) -> Result<char, EngineError> {
        match self.peek() {
            None => Err(EngineError::EscapeAtEnd),
            Some(c) if is_syntax_character(c) || c == '/' || (in_class && c == '-') => {
                self.pos += 1;
                Ok(c)
            }
            Some(_) => Err(EngineError::InvalidEscape),
        }
    }

    fn quantifier(&mut self, atom: NodeId) -> Result<NodeId, EngineError> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => match interval(&self.chars, self.pos) {
                Some((min, max, len)) => {
                    if max.is_some_and(|max| max < min) {
                        return Err(EngineError::QuantifierOutOfOrder);
                    }
                    self.pos += len - 1;
                    (min, max)
                }
                None => return Err(EngineError::IncompleteQuantifier),
            },
            _ => return Ok(atom),
        };
        self.pos += 1;
        if self.peek() == Some('?') {
            self.pos += 1;
        }
        Ok(self.push(Node::Repeat {
            sub: atom,
            min,
            max,
        }))
    }

    /// `[` … `]`, V8's loop: an atom, then `-` and a second atom form a
    /// range unless the `-` is last; `[a-b-c]` is a range, `-` and `c`.
    fn class(&mut self) -> Result<NodeId, EngineError> {
        self.pos += 1;
        let negated = self.peek() == Some('^');
        if negated {
            self.pos += 1;
        }
        let mut ranges = Vec::new();
        loop {
            match self.peek() {
                None => return Err(EngineError::UnterminatedClass),
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {}
            }
            let lo = self.class_atom()?;
            if self.peek() != Some('-') {
                ranges.push((lo, lo));
                continue;
            }
            self.pos += 1;
            match self.peek() {
                None => return Err(EngineError::UnterminatedClass),
                Some(']') => {
                    ranges.push((lo, lo));
                    ranges.push(('-', '-'));
                }
                Some(_) => {
                    let hi = self.class_atom()?;
                    if lo > hi {
                        return Err(EngineError::ClassRangeOutOfOrder);
                    }
                    ranges.push((lo, hi));
                }
            }
        }
        Ok(self.push(Node::Class { negated, ranges }))
    }

    fn class_atom(&mut self) -> Result<char, EngineError> {
        match self.peek() {
            Some('\\') => {
                self.pos += 1;
                self.escape(true)
            }
            Some(c) => {
                self.pos += 1;
                Ok(c)
            }
            None => Err(EngineError::UnterminatedClass),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(pattern: &str) -> Option<&'static str> {
        parse(pattern).err().map(EngineError::reason)
    }

    #[test]
    fn accepts_what_u_mode_accepts() {
        for pattern in [
            "",
            "a",
            "a|",
            "|a",
            "(|a)",
            "()",
            "()*",
            "a*?",
            "a+?",
            "a??",
            "a{2}?",
            "a{2,}",
            "a{2,5}",
            "a{0}",
            "[a-z]",
            "[^a]",
            "[a-]",
            "[-a]",
            "[a-b-c]",
            "[\\--a]",
            "[\\]]",
            "[\\-]",
            "[/]",
            "\\/",
            "\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|",
            "^$",
            "^a$",
            "a/b",
            "(a)(b)",
            "x-y",
            "[.$]",
            "[{}]",
            "[(]",
        ] {
            assert_eq!(reason(pattern), None, "{pattern:?}");
        }
    }

    #[test]
    fn first_error_in_v8_order() {
        let table = [
            ("a**", "Nothing to repeat"),
            ("a?+", "Nothing to repeat"),
            ("a???", "Nothing to repeat"),
            ("a{2}{3}", "Nothing to repeat"),
            ("a{2}*", "Nothing to repeat"),
            ("*", "Nothing to repeat"),
            ("^*", "Nothing to repeat"),
            ("$+", "Nothing to repeat"),
            ("(*)", "Nothing to repeat"),
            ("a|?", "Nothing to repeat"),
            ("{1}", "Nothing to repeat"),
            ("^{1}", "Nothing to repeat"),
            ("{", "Lone quantifier brackets"),
            ("}", "Lone quantifier brackets"),
            ("]", "Lone quantifier brackets"),
            ("a{", "Incomplete quantifier"),
            ("a{,2}", "Incomplete quantifier"),
            ("a{1,2", "Incomplete quantifier"),
            ("a{x}", "Incomplete quantifier"),
            ("a{3,2}", "numbers out of order in {} quantifier"),
            ("\\-", "Invalid escape"),
            ("\\ ", "Invalid escape"),
            ("\\_", "Invalid escape"),
            ("\\\"", "Invalid escape"),
            ("[\\ ]", "Invalid escape"),
            ("[\\_]", "Invalid escape"),
            ("\\", "\\ at end of pattern"),
            ("[z-a]", "Range out of order in character class"),
            ("[a", "Unterminated character class"),
            ("[a-", "Unterminated character class"),
            ("(a", "Unterminated group"),
            ("a)", "Unmatched ')'"),
            // Left to right: the escape comes before the unclosed group.
            ("\\-(", "Invalid escape"),
        ];
        for (pattern, expected) in table {
            assert_eq!(reason(pattern), Some(expected), "{pattern:?}");
        }
    }

    #[test]
    fn tree_shape() {
        let ast = parse("a{2,5}?").unwrap();
        let Node::Alternation(branches) = ast.node(ast.root) else {
            panic!("root is an alternation")
        };
        let Node::Concat(terms) = ast.node(branches[0]) else {
            panic!("branch is a concat")
        };
        assert_eq!(
            ast.node(terms[0]),
            &Node::Repeat {
                sub: 0,
                min: 2,
                max: Some(5)
            }
        );
        assert_eq!(parse("((a))").unwrap().max_depth, 2);
        let deep = format!("{}{}", "(".repeat(2000), ")".repeat(2000));
        assert_eq!(parse(&deep).unwrap().max_depth, 2000);
    }

    #[test]
    fn class_ranges() {
        let ast = parse("[a-b-c\\--/]").unwrap();
        let ranges = ast
            .nodes
            .iter()
            .find_map(|n| match n {
                Node::Class { ranges, .. } => Some(ranges.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(ranges, vec![('a', 'b'), ('-', '-'), ('c', 'c'), ('-', '/')]);
    }
}
