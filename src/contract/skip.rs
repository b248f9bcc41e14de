//! What the walk never enters: the fixed skip list (search-contract §7.3,
//! **TARGET** 24 names, README Q2) and the hidden rule (§7.2 step 3).

/// The 24 basenames skipped at every depth below the root, files and
/// directories alike, whatever `hidden` and `noIgnore` say.
pub const SKIP_LIST: [&str; 24] = [
    ".git",
    ".hg",
    ".jj",
    ".svn",
    ".flows",
    ".artifacts",
    ".backend-go-modcache",
    ".pnpm-store",
    ".worktrees",
    "worktrees",
    ".flows-checkpoints",
    ".flows-test-base",
    "node_modules",
    "__pycache__",
    ".venv",
    ".tox",
    ".nox",
    ".eggs",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".gradle",
    ".turbo",
    ".next",
];

/// Is `name` on the skip list? Exact and case-sensitive.
///
/// ```
/// use lawsuite::contract::skip::is_skipped;
/// assert!(is_skipped("node_modules"));
/// assert!(!is_skipped("Node_Modules"));
/// ```
pub fn is_skipped(name: &str) -> bool {
    SKIP_LIST.contains(&name)
}

/// The only definition of hidden: the name starts with `.`.
///
/// ```
/// use lawsuite::contract::skip::is_hidden;
/// assert!(is_hidden(".env"));
/// assert!(!is_hidden("a.env"));
/// ```
pub fn is_hidden(name: &str) -> bool {
    name.starts_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_four_distinct_names() {
        let mut names = SKIP_LIST.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 24);
        // The non-dot names are the ones the hidden rule does not already cover.
        let visible: Vec<_> = SKIP_LIST.iter().filter(|n| !is_hidden(n)).collect();
        assert_eq!(visible, [&"worktrees", &"node_modules", &"__pycache__"]);
    }
}
