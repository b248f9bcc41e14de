//! STUB — to be replaced: `.gitignore` (§9).

/// The parsed rules of one `.gitignore` file.
#[derive(Debug, Default)]
pub struct Gitignore;
impl Gitignore {
    /// §9.2.
    pub fn parse(_content: &str) -> Gitignore {
        todo!()
    }
    /// Whether the file yielded no usable rule.
    pub fn is_empty(&self) -> bool {
        todo!()
    }
}
/// One scope: a directory relative to the walk root ("" = root) and its rules.
#[derive(Debug)]
pub struct Scope {
    /// `/`-separated path of the scope directory relative to the root; "" for the root.
    pub dir: String,
    /// Its rules.
    pub rules: Gitignore,
}
/// §9.4.
pub fn is_ignored(_scopes: &[&Scope], _relative: &str, _is_dir: bool) -> bool {
    todo!()
}
