//! Path spelling in outputs (search-contract §6.4): the search root joined
//! with the root-relative path, then normalised lexically with POSIX rules
//! (collapse `//`, drop `.` segments, resolve `..`), never made absolute or
//! canonical, so a symlinked root keeps its link spelling.

/// Normalise a POSIX path lexically, as Node's `path.normalize` does.
///
/// ```
/// use lawsuite::contract::normalize_path;
/// assert_eq!(normalize_path("/repo//src/./a.ts"), "/repo/src/a.ts");
/// assert_eq!(normalize_path("./src"), "src");
/// assert_eq!(normalize_path("a/../../b"), "../b");
/// assert_eq!(normalize_path("/../x"), "/x");
/// assert_eq!(normalize_path(""), ".");
/// assert_eq!(normalize_path("src/"), "src/");
/// ```
pub fn normalize_path(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let absolute = path.starts_with('/');
    let trailing = path.ends_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                // `..` above `/` stays at `/`; above a relative start it is kept.
                _ if absolute => {}
                _ => parts.push(".."),
            },
            _ => parts.push(seg),
        }
    }
    let mut out = parts.join("/");
    if out.is_empty() && !absolute {
        out.push('.');
    }
    if trailing && !out.is_empty() && !out.ends_with('/') {
        out.push('/');
    }
    if absolute {
        out.insert(0, '/');
    }
    out
}

/// `normalize(join(base, rel))` with `/` separators, as the walk spells a
/// found path.
///
/// ```
/// use lawsuite::contract::join_path;
/// assert_eq!(join_path("/repo/", "src/a.ts"), "/repo/src/a.ts");
/// assert_eq!(join_path(".", "src/a.ts"), "src/a.ts");
/// assert_eq!(join_path("./src", "a.ts"), "src/a.ts");
/// ```
pub fn join_path(base: &str, rel: &str) -> String {
    if base.is_empty() {
        return normalize_path(rel);
    }
    normalize_path(&format!("{base}/{rel}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        assert_eq!(join_path("/repo", "src/a.ts"), "/repo/src/a.ts");
        assert_eq!(join_path("/repo/", "src/a.ts"), "/repo/src/a.ts");
        assert_eq!(join_path(".", "src/a.ts"), "src/a.ts");
        assert_eq!(join_path("./src", "a.ts"), "src/a.ts");
        assert_eq!(normalize_path("/t/linked-root/a.ts"), "/t/linked-root/a.ts");
        assert_eq!(normalize_path("/"), "/");
        assert_eq!(normalize_path("//"), "/");
        assert_eq!(normalize_path("."), ".");
        assert_eq!(normalize_path("./"), "./");
        assert_eq!(normalize_path(".."), "..");
    }

    proptest::proptest! {
        #[test]
        fn normalisation_is_idempotent(p in "[a./]{0,12}") {
            let once = normalize_path(&p);
            proptest::prop_assert_eq!(normalize_path(&once), once);
        }
    }
}
