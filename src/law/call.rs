//! The call a law makes: its input read as its method's [`Call`], on the
//! tree's real path. Loading checks it once on a stand-in path (a broken
//! input is a load error); each setup builds it on its own tree.

use serde_json::Value;

use super::format::{Law, expand_pieces};
use super::problem::LawProblem;
use crate::call::Call;
use crate::contract::normalize::{glob_defaults, grep_defaults};
use crate::contract::{GlobRequest, GrepRequest};
use crate::peer::Method;

/// The call a law makes, with its tree at `real` (the law's relative
/// `root`, `path` or `cwd` turned into `real/<it>`).
pub(super) fn law_call(l: &Law, real: &str) -> Result<Call, LawProblem> {
    let mut input = table_to_json(&l.input)?;
    // A long pattern or glob is spelled as a piece, as long texts are.
    expand_pieces(&mut input)?;
    // `{tree}` spells the tree's absolute path, for rules about inputs
    // that repeat it (search-contract §16's root-relative suffix: a glob
    // `<T>/globs/**/*.ts` under the root `<T>/globs`).
    substitute_tree(&mut input, real);
    let inside_tree = |relative: Option<&str>| match relative.unwrap_or(".") {
        "." => real.to_string(),
        rel => format!("{real}/{rel}"),
    };
    // The one field naming a place in the tree, per method. A read or ls
    // law that gives a `cwd` sends its `path` as written, relative to the
    // `cwd` (read-ls-flows §1.3, §1.6); otherwise the path is made absolute.
    let key = match l.method {
        Method::FlowRead | Method::FlowLs if !l.input.contains_key("cwd") => "path",
        Method::FlowRead | Method::FlowLs | Method::FlowBash => "cwd",
        _ => "root",
    };
    let place = inside_tree(input.get(key).and_then(Value::as_str));
    if let Some(obj) = input.as_object_mut() {
        obj.insert(key.into(), Value::String(place));
    }
    let parse_err = |error| LawProblem::InvalidInput {
        method: l.method,
        error,
    };
    // Seam laws write a request and get the contract's defaults filled in
    // (but no validation: the seam trusts its input).
    match l.method {
        Method::Grep => {
            let req: GrepRequest = serde_json::from_value(input).map_err(parse_err)?;
            Ok(Call::Grep(grep_defaults(&req)))
        }
        Method::Glob => {
            let req: GlobRequest = serde_json::from_value(input).map_err(parse_err)?;
            Ok(Call::Glob(glob_defaults(&req)))
        }
        method => Call::parse(method, input).map_err(LawProblem::InvalidCall),
    }
}

/// Replace `{tree}` by `real` in every string of `value`.
fn substitute_tree(value: &mut Value, real: &str) {
    match value {
        Value::String(s) if s.contains(TREE) => *s = s.replace(TREE, real),
        Value::Array(items) => items.iter_mut().for_each(|v| substitute_tree(v, real)),
        Value::Object(map) => map.values_mut().for_each(|v| substitute_tree(v, real)),
        _ => {}
    }
}

/// What a law's input writes for the tree's absolute path.
const TREE: &str = "{tree}";

/// A TOML table as JSON.
pub(super) fn table_to_json(table: &toml::Table) -> Result<Value, LawProblem> {
    serde_json::to_value(table).map_err(LawProblem::NotJson)
}
