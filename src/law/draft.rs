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
//! ```
//! use lawsuite::law::draft::suggested_spec;
//! use lawsuite::peer::Method;
//! assert_eq!(suggested_spec(Method::Glob, "paths differ"), "search-contract §8");
//! assert_eq!(suggested_spec(Method::FlowRead, "content differs"), "read-ls-flows §1");
//! ```

use serde_json::{Map, Value};

use crate::kit::case::rebase;
use crate::kit::plan::{FileKind, GeneratedFile};
use crate::kit::regression::Regression;
use crate::peer::Method;

/// A draft law made from a regression.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    /// The law area it belongs in (`grep`, `glob`, `read`, `ls`, `bash`):
    /// the directory under a law directory.
    pub area: &'static str,
    /// Its name, unique for one finding.
    pub name: String,
    /// One `[[law]]` table, comments included, ready to append to a law
    /// file.
    pub text: String,
}

/// Why a regression cannot be written as a law.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftError(pub String);

impl std::fmt::Display for DraftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

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
pub fn from_regression(regression: &Regression, version: &str) -> Result<Draft, DraftError> {
    let call = serde_json::to_value(&regression.call)
        .map_err(|e| DraftError(format!("the call cannot be written: {e}")))?;
    let method: Method = serde_json::from_value(call["method"].clone())
        .map_err(|e| DraftError(format!("the call's method is not one lawsuite knows: {e}")))?;
    let root = regression.root.trim_end_matches('/');
    let mut input = match call.get("input") {
        Some(Value::Object(map)) => map.clone(),
        _ => return Err(DraftError("the call has no input".into())),
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
            return Err(DraftError(format!(
                "the call's {place} {at:?} is outside its tree {root:?}"
            )));
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
        regression.generator, regression.seed, regression.call_index
    );
    // The section the shrunk difference suggested when it was kept; a file
    // kept before regressions carried one, from its `why`.
    let spec = regression
        .spec
        .as_deref()
        .unwrap_or_else(|| suggested_spec(method, &regression.why));
    let mut text = String::new();
    text.push_str(&format!(
        "# Drafted by lawsuite {version} from a shrunk divergence: {} seed {}{}, call {}; peers {}.\n",
        regression.generator,
        regression.seed,
        if regression.ground.is_shared() { "" } else { " (full ground)" },
        regression.call_index,
        regression.peers.join(", "),
    ));
    text.push_str(&format!("# What differed: {}\n", one_line(&regression.why)));
    text.push_str(
        "# `expect` is the reference's answer. Confirm `spec`, write `decision` (or delete it\n# where the spec decides), and give the law a name that says the rule.\n",
    );
    text.push_str("[[law]]\n");
    text.push_str(&format!("name = {}\n", toml_string(&name)));
    text.push_str(&format!(
        "spec = {}  # suggested from the method and what differed: confirm it\n",
        toml_string(spec)
    ));
    text.push_str(
        "decision = \"TODO: what the spec says here, or what lawsuite chose where it is silent\"\n",
    );
    text.push_str(&format!("method = {}\n", toml_string(method.name())));
    text.push_str(&format!("input = {}\n", inline(&input)?));
    for file in &regression.files {
        text.push_str(&format!(
            "tree.{} = {}\n",
            toml_string(&file.path),
            tree_entry(file)?
        ));
    }
    match expected.get("failure").and_then(Value::as_str) {
        Some(code) => text.push_str(&format!("expect_error = {}\n", toml_string(code))),
        None => text.push_str(&format!("expect = {}\n", inline(&expected)?)),
    }
    Ok(Draft {
        area: area(method),
        name,
        text,
    })
}

/// `map` without its `null` values, which TOML cannot write (optional
/// fields a call leaves out).
fn drop_nulls(map: Map<String, Value>) -> Map<String, Value> {
    map.into_iter().filter(|(_, v)| !v.is_null()).collect()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// A JSON value as an inline TOML value.
fn inline(value: &Value) -> Result<String, DraftError> {
    let toml = to_toml(value)?;
    Ok(toml.to_string())
}

fn to_toml(value: &Value) -> Result<toml::Value, DraftError> {
    Ok(match value {
        Value::Null => {
            return Err(DraftError(
                "an answer holds null, which TOML cannot write".into(),
            ));
        }
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(items) => {
            toml::Value::Array(items.iter().map(to_toml).collect::<Result<_, _>>()?)
        }
        Value::Object(map) => {
            let mut table = toml::Table::new();
            for (k, v) in map {
                if !v.is_null() {
                    table.insert(k.clone(), to_toml(v)?);
                }
            }
            toml::Value::Table(table)
        }
    })
}

/// A shrunk file as a law tree entry: its text, or its bytes, a
/// directory, a symlink, with its mode.
fn tree_entry(file: &GeneratedFile) -> Result<String, DraftError> {
    let mut table = toml::Table::new();
    match file.kind {
        FileKind::Dir => {
            table.insert("dir".into(), toml::Value::Boolean(true));
        }
        FileKind::Symlink => {
            let target = file.target.clone().unwrap_or_default();
            table.insert("symlink".into(), toml::Value::String(target));
        }
        FileKind::File => match std::str::from_utf8(&file.content) {
            Ok(text) if file.mode.is_none() => return Ok(toml_string(text)),
            Ok(text) => {
                table.insert("text".into(), toml::Value::String(text.into()));
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
                table.insert("bytes".into(), toml::Value::String(bytes));
            }
        },
    }
    if let Some(mode) = file.mode {
        table.insert("mode".into(), toml::Value::Integer(i64::from(mode)));
    }
    Ok(toml::Value::Table(table).to_string())
}
