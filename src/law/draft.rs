//! A finding becomes a law: a shrunk divergence ([`Regression`]) written
//! as a draft law in the shipped laws' format (`lawsuite record --as-law`,
//! `lawsuite as-law FILE`).
//!
//! The draft holds the shrunk tree and call, the reference's answer as
//! `expect` (or its error code as `expect_error`), a `spec` section
//! suggested from the call's method and the fields that differ, a
//! `decision` placeholder, and where it came from (generator, seed, call,
//! peers, lawsuite version) as comments. The author confirms the section,
//! writes the decision, and renames the law; until then it already runs:
//! it passes the reference and fails the peer that diverged.
//!
//! The law is built as a TOML document ([`toml_edit`]), never by pasting
//! text: a tree path holding a newline and both quote kinds is one key,
//! and what the regression says in free text (what differed, the peers'
//! names) goes into comments as one sanitised line, so a newline or an
//! escape sequence in it can neither add a table nor break the file.
//! [`append`] adds a draft to a law file under its lock, and keeps the new
//! text only when the law runner's loader reads it back as the laws it
//! held, unchanged, plus exactly the new one.
//!
//! ```
//! use lawsuite::law::draft::suggested_spec;
//! use lawsuite::peer::Method;
//! assert_eq!(suggested_spec(Method::Glob, "paths differ"), "search-contract §8");
//! assert_eq!(suggested_spec(Method::FlowRead, "content differs"), "read-ls-flows §1");
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::load::load_text;
use super::problem::{LawError, LawProblem};
use crate::file_error::FileError;
use crate::kit::answer::rebase;
use crate::kit::plan::{FileKind, GeneratedFile};
use crate::kit::regression::Regression;
use crate::peer::Method;
use crate::regular_file::Held;

/// A draft law made from a regression.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    /// The law area it belongs in (`grep`, `glob`, `read`, `ls`, `bash`):
    /// the directory under a law directory.
    pub area: &'static str,
    /// Its name, unique for one finding.
    pub name: String,
    /// One `[[law]]` table, comments included, ready to append to a law
    /// file: written by a TOML editor, so it is valid TOML whatever the
    /// regression holds.
    pub text: String,
}

/// Why a regression cannot be written as a law, or a draft cannot be
/// added to a law file (which is then left as it was).
#[derive(Debug)]
#[non_exhaustive]
pub enum DraftError {
    /// The regression's call cannot be written as JSON.
    Call(serde_json::Error),
    /// The call's method is not one lawsuite knows.
    Method(serde_json::Error),
    /// The call has no input.
    NoInput,
    /// The call names a place outside the regression's tree.
    Outside {
        /// The input field (`root`, `path`, `cwd`).
        field: &'static str,
        /// Its value.
        at: String,
        /// The tree's root.
        tree: String,
    },
    /// The call or the answer holds `null`, which TOML cannot write.
    Null,
    /// The law file cannot be locked, read or replaced.
    File(FileError),
    /// The law file is there but is not a law file lawsuite can read: a
    /// draft is only added to one that is.
    NotALawFile(Box<LawError>),
    /// The law file already holds a law of the draft's name.
    Drafted {
        /// The law file.
        file: PathBuf,
        /// The name.
        name: String,
    },
    /// The drafted law, read back, is refused by the law loader.
    Refused(Box<LawError>),
    /// The law file with the draft appended would not hold the laws it
    /// held, unchanged, plus exactly the draft.
    Unfaithful {
        /// The law file.
        file: PathBuf,
    },
}

impl fmt::Display for DraftError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DraftError::Call(e) => write!(f, "the regression's call cannot be written: {e}"),
            DraftError::Method(e) => {
                write!(
                    f,
                    "the regression's call has a method lawsuite does not know: {e}"
                )
            }
            DraftError::NoInput => f.write_str("the regression's call has no input"),
            DraftError::Outside { field, at, tree } => write!(
                f,
                "the regression's call has its {field} {at:?} outside its tree {tree:?}; a law's call stays in its tree"
            ),
            DraftError::Null => f.write_str(
                "the regression's call or answer holds null, which a TOML law cannot write",
            ),
            DraftError::File(e) => write!(f, "{e} (the law file is left as it was)"),
            DraftError::NotALawFile(e) => write!(
                f,
                "{e}; a draft is only added to a law file lawsuite can read: fix it, or draft into another directory (--dir)"
            ),
            DraftError::Drafted { file, name } => write!(
                f,
                "{} already holds the law {name:?}: this finding was drafted before",
                file.display()
            ),
            DraftError::Refused(e) => write!(
                f,
                "the drafted law does not load ({e}); the law file is left as it was: please report this"
            ),
            DraftError::Unfaithful { file } => write!(
                f,
                "{}: with the draft appended it would not hold its laws as they are plus the draft, so it is left as it was; append the draft by hand (please report this)",
                file.display()
            ),
        }
    }
}

// No `source`: each message holds the error it wraps whole, and a `{:#}`
// chain (the binary's) would say it twice.
impl std::error::Error for DraftError {}

/// The section a finding most likely pins, from its method and what
/// differs (the regression's `why`): a suggestion for the author to
/// confirm, never a claim.
pub fn suggested_spec(method: Method, why: &str) -> &'static str {
    let has = |word: &str| why.contains(word);
    match method {
        _ if has("invalid_pattern") => "search-contract §10",
        Method::FlowRead => "read-ls-flows §1",
        Method::FlowLs => "read-ls-flows §2",
        Method::FlowBash => "read-ls-flows §4",
        _ if has("notice") => "search-contract §16",
        _ if has("before") || has("after") => "search-contract §13",
        _ if has("total") || has("truncated") => "search-contract §14",
        Method::Glob | Method::FlowGlob => "search-contract §8",
        Method::Grep | Method::FlowGrep if has("skippedBinary") => "search-contract §11",
        Method::Grep | Method::FlowGrep if has("filesSearched") => "search-contract §7",
        Method::Grep | Method::FlowGrep => "search-contract §15",
    }
}

/// The law area of `method`.
fn area(method: Method) -> &'static str {
    match method {
        Method::Grep | Method::FlowGrep => "grep",
        Method::Glob | Method::FlowGlob => "glob",
        Method::FlowRead => "read",
        Method::FlowLs => "ls",
        Method::FlowBash => "bash",
    }
}

/// `regression` as a draft law, with `version` (lawsuite's) in its
/// provenance.
///
/// ```
/// use lawsuite::call::Call;
/// use lawsuite::contract::GlobInput;
/// use lawsuite::kit::plan::{FileKind, GeneratedFile};
/// use lawsuite::kit::regression::Regression;
/// use lawsuite::law::draft::from_regression;
///
/// let regression = Regression {
///     why: "paths differ".into(),
///     spec: None,
///     generator: "lawsuite".into(),
///     generator_version: 5,
///     ground: Default::default(),
///     seed: 3,
///     call_index: 1,
///     mutations: Vec::new(),
///     // A peer's name is free text: it goes into a comment as one line.
///     peers: vec!["portable".into(), "mine\n[[law]]".into()],
///     root: "/r".into(),
///     files: vec![GeneratedFile {
///         path: "a\n\"b'.txt".into(),
///         kind: FileKind::File,
///         target: None,
///         content: b"x\n".to_vec(),
///         mode: None,
///     }],
///     call: Call::Glob(GlobInput::new("*", "/r")),
///     expected: serde_json::json!({ "files": ["a\n\"b'.txt"] }),
/// };
/// let draft = from_regression(&regression, "0.1.0")?;
/// assert_eq!(draft.name, "found-by-lawsuite-seed-3-call-1");
/// let (laws, problems) = lawsuite::law::load_text("glob/found.toml", &draft.text);
/// assert!(problems.is_empty(), "{problems:?}");
/// assert_eq!(laws.len(), 1);
/// assert!(laws[0].law.tree.contains_key("a\n\"b'.txt"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_regression(regression: &Regression, version: &str) -> Result<Draft, DraftError> {
    let call = serde_json::to_value(&regression.call).map_err(DraftError::Call)?;
    let method: Method =
        serde_json::from_value(call["method"].clone()).map_err(DraftError::Method)?;
    let root = regression.root.trim_end_matches('/');
    let mut input = match call.get("input") {
        Some(Value::Object(map)) => map.clone(),
        _ => return Err(DraftError::NoInput),
    };
    // The one field naming a place in the tree is written relative to it
    // (as the law runner reads it); any other mention of the tree's path
    // is spelled `{tree}`.
    let place = match method {
        Method::FlowRead | Method::FlowLs if !input.contains_key("cwd") => "path",
        Method::FlowRead | Method::FlowLs | Method::FlowBash => "cwd",
        _ => "root",
    };
    if let Some(Value::String(at)) = input.get(place) {
        let relative = if at == root {
            ".".to_string()
        } else if let Some(rest) = at.strip_prefix(&format!("{root}/")) {
            rest.to_string()
        } else {
            return Err(DraftError::Outside {
                field: place,
                at: at.clone(),
                tree: root.to_string(),
            });
        };
        input.insert(place.into(), Value::String(relative));
    }
    let input = rebase(&Value::Object(drop_nulls(input)), root, "{tree}");
    // The reference's answer, read from inside the tree as laws read one.
    let expected = rebase(
        &rebase(&regression.expected, &format!("{root}/"), ""),
        root,
        ".",
    );
    let name = format!(
        "found-by-{}-seed-{}-call-{}",
        name_part(&regression.generator),
        regression.seed,
        regression.call_index
    );
    // The section the shrunk difference suggested when it was kept; a file
    // kept before regressions carried one, from its `why`.
    let spec = regression
        .spec
        .as_deref()
        .unwrap_or_else(|| suggested_spec(method, &regression.why));

    let mut law = toml_edit::Table::new();
    // Comments are the one free text: each line sanitised (`comment`).
    let peers: Vec<String> = regression.peers.iter().map(|p| comment(p)).collect();
    let provenance = [
        format!(
            "Drafted by lawsuite {} from a shrunk divergence: {} seed {}{}, call {}; peers {}.",
            comment(version),
            comment(&regression.generator),
            regression.seed,
            if regression.ground.is_shared() {
                ""
            } else {
                " (full ground)"
            },
            regression.call_index,
            peers.join(", "),
        ),
        format!("What differed: {}", comment(&regression.why)),
        "`expect` is the reference's answer. Confirm `spec`, write `decision` (or delete it"
            .to_string(),
        "where the spec decides), and give the law a name that says the rule.".to_string(),
    ];
    let prefix: String = provenance.iter().map(|l| format!("# {l}\n")).collect();
    law.decor_mut().set_prefix(prefix);
    law.insert("name", toml_edit::value(name.as_str()));
    let mut suggested = toml_edit::Value::from(spec);
    suggested
        .decor_mut()
        .set_suffix("  # suggested from the method and what differed: confirm it");
    law.insert("spec", toml_edit::Item::Value(suggested));
    law.insert(
        "decision",
        toml_edit::value(
            "TODO: what the spec says here, or what lawsuite chose where it is silent",
        ),
    );
    law.insert("method", toml_edit::value(method.name()));
    law.insert("input", toml_edit::Item::Value(to_toml(&input)?));
    let mut tree = toml_edit::Table::new();
    tree.set_dotted(true);
    for file in &regression.files {
        tree.insert(&file.path, toml_edit::Item::Value(tree_entry(file)?));
    }
    law.insert("tree", toml_edit::Item::Table(tree));
    // The reference's answer read as one: a failure is pinned by its code
    // (`expect_error`), a value whole (`expect`).
    match regression.expected_answer() {
        Ok(crate::kit::answer::Answer::Failure { code, .. }) => {
            law.insert("expect_error", toml_edit::value(code.as_str()))
        }
        _ => law.insert("expect", toml_edit::Item::Value(to_toml(&expected)?)),
    };
    let mut laws = toml_edit::ArrayOfTables::new();
    laws.push(law);
    let mut doc = toml_edit::DocumentMut::new();
    doc.insert("law", toml_edit::Item::ArrayOfTables(laws));
    Ok(Draft {
        area: area(method),
        name,
        text: doc.to_string(),
    })
}

/// Append `draft` to `<dir>/<area>/found.toml` (made if need be), and
/// return that file. The file is locked from the read to the write
/// ([`Held`]), so drafts appended at once are all kept; the new text is
/// read back by the law runner's loader and kept only when it holds every
/// law the file held, unchanged, plus exactly the draft; it replaces the
/// file whole. A law of the same name already there is an error, not a
/// second copy. On any error the file is as it was.
///
/// ```
/// use lawsuite::law::draft::{Draft, DraftError, append};
///
/// let dir = tempfile::tempdir()?;
/// let draft = Draft {
///     area: "glob",
///     name: "found-by-hand".into(),
///     text: "[[law]]\nname = \"found-by-hand\"\nspec = \"search-contract §8\"\nmethod = \"glob\"\ninput = { pattern = \"*\" }\nexpect = { files = [] }\n".into(),
/// };
/// let file = append(dir.path(), &draft)?;
/// assert_eq!(file, dir.path().join("glob/found.toml"));
/// assert!(matches!(append(dir.path(), &draft), Err(DraftError::Drafted { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn append(dir: &Path, draft: &Draft) -> Result<PathBuf, DraftError> {
    let area = dir.join(draft.area);
    std::fs::create_dir_all(&area).map_err(|e| DraftError::File(FileError::io(&area, e)))?;
    let file = area.join("found.toml");
    let held = Held::acquire(&file).map_err(DraftError::File)?;
    let before = held.read().map_err(DraftError::File)?.unwrap_or_default();
    let text = appended(&file, &before, draft)?;
    held.replace(&text).map_err(DraftError::File)?;
    Ok(file)
}

/// `before` (the text of `file`) with `draft` appended, once the loader
/// reads it back as before's laws, unchanged, plus exactly the draft.
fn appended(file: &Path, before: &str, draft: &Draft) -> Result<String, DraftError> {
    let rel = file.to_string_lossy();
    let (old_laws, old_problems) = load_text(&rel, before);
    if let Some(i) = old_problems
        .iter()
        .position(|p| matches!(p.problem, LawProblem::NotALawFile(_)))
    {
        let mut old_problems = old_problems;
        return Err(DraftError::NotALawFile(Box::new(
            old_problems.swap_remove(i),
        )));
    }
    let taken = old_laws.iter().any(|l| l.law.name == draft.name)
        || old_problems
            .iter()
            .any(|p| p.law.as_deref() == Some(draft.name.as_str()));
    if taken {
        return Err(DraftError::Drafted {
            file: file.to_path_buf(),
            name: draft.name.clone(),
        });
    }
    let mut text = before.to_string();
    if !text.is_empty() && !text.ends_with("\n\n") {
        text.push_str(if text.ends_with('\n') { "\n" } else { "\n\n" });
    }
    text.push_str(&draft.text);
    let unfaithful = || DraftError::Unfaithful {
        file: file.to_path_buf(),
    };
    let (new_laws, mut new_problems) = load_text(&rel, &text);
    if let Some(i) = new_problems
        .iter()
        .position(|p| p.law.as_deref() == Some(draft.name.as_str()))
    {
        return Err(DraftError::Refused(Box::new(new_problems.swap_remove(i))));
    }
    // The loader's view: the same laws, in order, then the draft; the
    // same problems (a bad law of the user's stays theirs to fix).
    let names = |laws: &[super::LoadedLaw]| -> Vec<String> {
        laws.iter().map(|l| l.law.name.clone()).collect()
    };
    let mut expected_names = names(&old_laws);
    expected_names.push(draft.name.clone());
    let said = |problems: &[LawError]| -> Vec<String> {
        problems.iter().map(ToString::to_string).collect()
    };
    if names(&new_laws) != expected_names || said(&new_problems) != said(&old_problems) {
        return Err(unfaithful());
    }
    // The data's view, stricter: the whole document is what it was, with
    // one more `[[law]]`, and that one is the draft's table.
    let parse = |t: &str| t.parse::<toml::Table>().map_err(|_| unfaithful());
    let old_doc = parse(before)?;
    let mut new_doc = parse(&text)?;
    let drafted = parse(&draft.text)?
        .remove("law")
        .and_then(|l| l.as_array().and_then(|a| a.first().cloned()));
    let laws = match new_doc.get_mut("law") {
        Some(toml::Value::Array(laws)) => laws,
        _ => return Err(unfaithful()),
    };
    if laws.pop() != drafted || drafted.is_none() {
        return Err(unfaithful());
    }
    if laws.is_empty() && !old_doc.contains_key("law") {
        new_doc.remove("law");
    }
    if new_doc != old_doc {
        return Err(unfaithful());
    }
    Ok(text)
}

/// `map` without its `null` values, which TOML cannot write (optional
/// fields a call leaves out).
fn drop_nulls(map: Map<String, Value>) -> Map<String, Value> {
    map.into_iter().filter(|(_, v)| !v.is_null()).collect()
}

/// `text` as part of one `#` comment line: runs of whitespace (newlines
/// included) become one space, and any other control character (ESC,
/// NUL, DEL, C1) or a line or paragraph separator is spelled as its
/// escape (`\u{1b}`), so the comment can neither end early and start a
/// table, nor make the file invalid, nor colour the terminal that shows
/// it.
fn comment(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A generator's name as part of a law name: kebab-case, whatever the
/// regression file says.
fn name_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// A JSON value as a TOML value (objects as inline tables).
fn to_toml(value: &Value) -> Result<toml_edit::Value, DraftError> {
    Ok(match value {
        Value::Null => return Err(DraftError::Null),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or_default().into(),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => {
            let mut array = toml_edit::Array::new();
            for item in items {
                array.push(to_toml(item)?);
            }
            array.into()
        }
        Value::Object(map) => {
            let mut table = toml_edit::InlineTable::new();
            for (k, v) in map {
                if !v.is_null() {
                    table.insert(k, to_toml(v)?);
                }
            }
            table.into()
        }
    })
}

/// A shrunk file as a law tree entry: its text, or its bytes, a
/// directory, a symlink, with its mode.
fn tree_entry(file: &GeneratedFile) -> Result<toml_edit::Value, DraftError> {
    let mut table = toml_edit::InlineTable::new();
    match file.kind {
        FileKind::Dir => {
            table.insert("dir", true.into());
        }
        FileKind::Symlink => {
            let target = file.target.clone().unwrap_or_default();
            table.insert("symlink", target.into());
        }
        FileKind::File => match std::str::from_utf8(&file.content) {
            Ok(text) if file.mode.is_none() => return Ok(text.into()),
            Ok(text) => {
                table.insert("text", text.into());
            }
            Err(_) => {
                let bytes: String = file
                    .content
                    .iter()
                    .map(|b| match b {
                        b'\\' => "\\\\".to_string(),
                        0x20..=0x7e => (*b as char).to_string(),
                        _ => format!("\\x{b:02x}"),
                    })
                    .collect();
                table.insert("bytes", bytes.into());
            }
        },
    }
    if let Some(mode) = file.mode {
        table.insert("mode", i64::from(mode).into());
    }
    Ok(table.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::Call;
    use crate::contract::GlobInput;

    /// A tree path with a newline and both quote kinds, a `why` with an
    /// escape sequence and a newline, a peer name that tries to add a law.
    fn hostile() -> Regression {
        Regression {
            why: "paths differ \x1b[31mred\x1b[0m\n[[law]]\nname = \"from-why\"".into(),
            spec: None,
            generator: "lawsuite".into(),
            generator_version: 5,
            ground: Default::default(),
            seed: 7,
            call_index: 2,
            mutations: Vec::new(),
            peers: vec![
                "portable".into(),
                "mine\n[[law]]\nname = \"injected\"".into(),
            ],
            root: "/r".into(),
            files: vec![
                GeneratedFile {
                    path: "a\nb'\"c.txt".into(),
                    kind: FileKind::File,
                    target: None,
                    content: b"needle\r\n\x1b[31m\"\"\" '''\n".to_vec(),
                    mode: None,
                },
                GeneratedFile {
                    path: "d\\'''\"\"\"e".into(),
                    kind: FileKind::File,
                    target: None,
                    content: vec![0xff, 0, b'\\', b'\n'],
                    mode: Some(0o600),
                },
            ],
            call: Call::Glob(GlobInput::new("*\n'\"", "/r")),
            expected: serde_json::json!({ "files": ["a\nb'\"c.txt", "d\\'''\"\"\"e"] }),
        }
    }

    #[test]
    fn hostile_text_stays_data_and_comments_stay_one_line() {
        let regression = hostile();
        let draft = from_regression(&regression, "0.1.0").unwrap();
        let (laws, problems) = load_text("glob/found.toml", &draft.text);
        assert!(problems.is_empty(), "{problems:?}\n{}", draft.text);
        assert_eq!(laws.len(), 1, "{}", draft.text);
        let law = &laws[0].law;
        assert_eq!(law.name, "found-by-lawsuite-seed-7-call-2");
        let paths: Vec<&String> = law.tree.keys().collect();
        assert_eq!(paths, ["a\nb'\"c.txt", "d\\'''\"\"\"e"]);
        match &law.tree["a\nb'\"c.txt"] {
            crate::law::Entry::Text(text) => assert_eq!(text, "needle\r\n\x1b[31m\"\"\" '''\n"),
            other => panic!("{other:?}"),
        }
        assert_eq!(law.input["pattern"].as_str(), Some("*\n'\""));
        assert_eq!(law.input["root"].as_str(), Some("."));
        // No raw control character but the line ends: the ESC is spelled.
        assert!(
            !draft.text.chars().any(|c| c.is_control() && c != '\n'),
            "{:?}",
            draft.text
        );
        assert!(
            draft.text.contains(r"red\u{1b}[0m [[law]] name"),
            "{}",
            draft.text
        );
        assert!(
            draft
                .text
                .contains("peers portable, mine [[law]] name = \"injected\"."),
            "{}",
            draft.text
        );
        // The comments are the four lines above the one `[[law]]` header.
        let headers = draft.text.lines().filter(|l| l.starts_with('[')).count();
        assert_eq!(headers, 1, "{}", draft.text);
    }

    /// `append` keeps the laws a file held, with its comments, and adds
    /// exactly the draft; a second append of it is refused, the file
    /// unchanged.
    #[test]
    fn append_keeps_the_file_and_adds_exactly_the_draft() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("glob/found.toml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let mine = "# mine\n[[law]]\nname = \"mine\"\nspec = \"search-contract §8\"\nmethod = \"glob\"\ninput = { pattern = \"*\" }\nexpect = { files = [] }\n";
        std::fs::write(&file, mine).unwrap();
        let draft = from_regression(&hostile(), "0.1.0").unwrap();
        assert_eq!(append(dir.path(), &draft).unwrap(), file);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with(&format!("{mine}\n")), "{text}");
        let (laws, problems) = load_text("glob/found.toml", &text);
        assert!(problems.is_empty(), "{problems:?}");
        let names: Vec<&str> = laws.iter().map(|l| l.law.name.as_str()).collect();
        assert_eq!(names, ["mine", draft.name.as_str()]);
        let e = append(dir.path(), &draft).unwrap_err();
        assert!(matches!(e, DraftError::Drafted { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
        // Neither a temporary nor the lock file is left.
        assert_eq!(
            std::fs::read_dir(file.parent().unwrap()).unwrap().count(),
            1
        );
    }

    /// A draft whose text would change what the file holds (here: one that
    /// reopens the last law's table instead of adding one) is refused and
    /// the file left as it was; so is a file that is not a law file.
    #[test]
    fn a_draft_that_would_change_the_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("glob/found.toml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let mine = "[[law]]\nname = \"mine\"\nspec = \"search-contract §8\"\nmethod = \"glob\"\ninput = { pattern = \"*\" }\nexpect = { files = [] }\n";
        std::fs::write(&file, mine).unwrap();
        let sneaky = Draft {
            area: "glob",
            name: "sneaky".into(),
            text: "decision = \"sneaked into mine\"\n[[law]]\nname = \"sneaky\"\nspec = \"search-contract §8\"\nmethod = \"glob\"\ninput = { pattern = \"*\" }\nexpect = { files = [] }\n".into(),
        };
        let e = append(dir.path(), &sneaky).unwrap_err();
        assert!(matches!(e, DraftError::Unfaithful { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), mine);
        let two = Draft {
            text: format!(
                "{}{}",
                sneaky.text.split_once('\n').unwrap().1,
                "[[law]]\nname = \"extra\"\nspec = \"search-contract §8\"\nmethod = \"glob\"\ninput = { pattern = \"*\" }\nexpect = { files = [] }\n"
            ),
            ..sneaky.clone()
        };
        let e = append(dir.path(), &two).unwrap_err();
        assert!(matches!(e, DraftError::Unfaithful { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), mine);
        std::fs::write(&file, "[[law]\n").unwrap();
        let e = append(dir.path(), &from_regression(&hostile(), "0.1.0").unwrap()).unwrap_err();
        assert!(matches!(e, DraftError::NotALawFile(_)), "{e}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "[[law]\n");
    }
}
