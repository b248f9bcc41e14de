//! `model`: a second opinion on the reference, written from the spec text
//! alone (search-contract §2–§18, read-ls-flows §1–§2), deliberately
//! simple and slow.
//!
//! Every other built-in peer shares rule code with [`crate::portable`]:
//! `ripgrep` uses its walk, glob list, grouping, notices and pattern
//! validation, and a bound or a wrong rule there is invisible to any seed
//! that compares them. This peer shares **nothing** with `portable` or with
//! the rules of [`crate::contract`] and [`crate::flow`] (the flow layer's
//! checks, defaults and literal retry, the walk, globs, ignore rules,
//! pattern grammar, lines, grouping, symbols, notices, the `read` and `ls`
//! flows); only the wire types ([`GrepInput`], [`GlobInput`], the requests
//! of the flows, their outputs, [`StdError`] and its codes) are common. As
//! a subject of the default seeds it turns a wrong rule in the reference,
//! or in the flow layer every other built-in runs on, into a divergence.
//!
//! Each part is one concept, written the obvious way, and names its
//! sections:
//!
//! | module | sections | how |
//! | --- | --- | --- |
//! | `walk` | §7 (root, descent, skip list, hidden, symlinks, `ignored`, candidates) | sequential recursion, everything stated, one sort at the end |
//! | `glob` | §8.2–§8.4 (canonical form, braces, matching, include/exclude) | a table over pieces × path units; no regular expression |
//! | `ignore` | §9 (`.gitignore` files, rule grammar, evaluation) | the set of positions each piece reaches; no length limit |
//! | `pattern` | §10 (validation, messages, state budget), §12 (case), §10.4 (matching) | its own parser; the tree written out for `regex-automata` |
//! | `text` | §6.4 (paths), §11.2–§11.4 (decoding, lines, previews), UTF-16 order | the spec's sentences |
//! | `scan` | §11.1 (binary), §13 (maxCount, boundary hit), §13.1 (context ownership) | whole files; each context row given to its nearest kept match |
//! | `symbols` | §15 | the algorithm's steps |
//! | `notice` | §14, §16 | the sentences as spelled |
//! | `flow` | §2–§5 (checks in order, defaults, caps), §8.1 (glob checks, in `glob`), §18 (literal retry) | the spec's lists, one branch each |
//! | `read` | read-ls-flows §1 (procedure and errors, `sourceLines`, paging, the not-found hint) | the whole file in memory |
//! | `ls` | read-ls-flows §2 | every entry described, sorted, then paged |
//!
//! It answers the seam (`grep`, `glob`) and the flows (`flow/grep`,
//! `flow/glob`, `flow/read`, `flow/ls`) with its own code; `flow/bash` it
//! does not implement.
//!
//! ```
//! use lawsuite::contract::GrepInput;
//! use lawsuite::model::Model;
//! use lawsuite::peer::Search;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("a.txt"), "x\n\nx\n")?;
//! let mut input = GrepInput::new("x", dir.path().to_str().unwrap());
//! input.before_context = 1;
//! let answer = Model.grep(&input)?;
//! // §13.1: row 2 is one row from both hits; on the tie the earlier owns
//! // it, as after-context, though afterContext is 0.
//! assert_eq!(answer.matches[0].after[0].line, 2);
//! assert!(answer.matches[1].before.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod flow;
mod glob;
mod ignore;
mod ls;
mod notice;
mod pattern;
mod read;
mod scan;
mod symbols;
mod text;
mod walk;

use crate::contract::{
    ErrorCode, GlobInput, GlobOutput, GlobRequest, GrepFlowOutput, GrepInput, GrepOutput,
    GrepRequest, StdError,
};
use crate::flow::{LsOutput, LsRequest, ReadOutput, ReadRequest};
use crate::peer::{Method, Search};

use pattern::{LineMatcher, insensitive};
use scan::{Scan, Scanned};
use walk::Options;

/// The model peer: no state, no threads, no caches.
///
/// Its flows are its own: read-ls-flows §1.6's hint, say, comes from the
/// model's reading of the spec, not from [`crate::flow::read`](mod@crate::flow::read).
///
/// ```
/// use lawsuite::flow::ReadRequest;
/// use lawsuite::model::Model;
/// use lawsuite::peer::{Method, Search};
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("apple.txt"), "")?;
/// let cwd = dir.path().to_str().unwrap();
/// let err = Model.read(&ReadRequest::new("./apricot").cwd(cwd)).unwrap_err();
/// assert_eq!(err.message, "File not found: ./apricot. The working directory holds: apple.txt.");
/// assert!(Model.supports(Method::FlowLs) && !Model.supports(Method::FlowBash));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Model;

impl Search for Model {
    fn name(&self) -> &str {
        "model"
    }

    fn version(&self) -> String {
        format!("lawsuite {} (spec model)", env!("CARGO_PKG_VERSION"))
    }

    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        let fold = insensitive(&input.pattern, input.ignore_case, input.smart_case);
        let matcher = LineMatcher::new(&input.pattern, input.fixed_strings, fold)?;
        let walked = walk::walk(&Options {
            root: &input.root,
            hidden: input.hidden,
            no_ignore: input.no_ignore,
            globs: &input.globs,
        })?;
        let scan_options = Scan {
            matcher: &matcher,
            before: input.before_context,
            after: input.after_context,
            max_count: input.max_count,
        };
        let mut out = GrepOutput {
            files_searched: walked.candidates.len() as u64,
            ..GrepOutput::default()
        };
        let mut total: u64 = 0;
        for candidate in &walked.candidates {
            let (text, lines, hits) = match scan::scan(&candidate.fs_path, &scan_options) {
                Scanned::Unreadable => continue,
                Scanned::Binary if walked.explicit_file => {
                    return Err(StdError::new(
                        ErrorCode::BinaryFile,
                        format!("Cannot search binary file: {}", candidate.path),
                    )
                    .with_path(&candidate.path));
                }
                Scanned::Binary => {
                    out.skipped_binary += 1;
                    continue;
                }
                Scanned::Text { text, lines, hits } => (text, lines, hits),
            };
            let count = hits.len() as u64;
            if count == 0 {
                continue;
            }
            if input.files_with_matches {
                total += 1;
                if (out.files.len() as u64) < input.limit {
                    out.files.push(candidate.path.clone());
                }
                continue;
            }
            total = total.saturating_add(count);
            let remaining = input.limit.saturating_sub(out.matches.len() as u64);
            if remaining == 0 {
                continue;
            }
            let mut groups = scan::groups(&candidate.path, &lines, &hits, remaining, &scan_options);
            if input.symbols {
                for hit in &mut groups {
                    hit.symbol = symbols::enclosing(&text, hit.line);
                }
            }
            out.matches.extend(groups);
        }
        out.truncated = total > input.limit;
        let unit = if input.files_with_matches {
            "files"
        } else {
            "matches"
        };
        out.notice = if out.truncated {
            Some(notice::truncation(input.limit, total, unit))
        } else if total == 0 && !walked.explicit_file {
            notice::empty_answer(
                &input.root,
                &input.globs,
                input.hidden,
                input.no_ignore,
                walked.ignored,
            )
        } else {
            None
        };
        Ok(out)
    }

    fn flow_grep(&self, request: &GrepRequest) -> Result<GrepFlowOutput, StdError> {
        flow::grep(|input| self.grep(input), request)
    }

    fn flow_glob(&self, request: &GlobRequest) -> Result<GlobOutput, StdError> {
        flow::glob(|input| self.glob(input), request)
    }

    fn read(&self, input: &ReadRequest) -> Result<ReadOutput, StdError> {
        read::read(input)
    }

    fn ls(&self, input: &LsRequest) -> Result<LsOutput, StdError> {
        ls::ls(input)
    }

    fn supports(&self, method: Method) -> bool {
        // Every method but `flow/bash`, each answered here.
        method != Method::FlowBash
    }

    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        let globs = std::slice::from_ref(&input.pattern);
        let walked = walk::walk(&Options {
            root: &input.root,
            hidden: input.hidden,
            no_ignore: input.no_ignore,
            globs,
        })?;
        let total = walked.candidates.len() as u64;
        let paths: Vec<String> = walked
            .candidates
            .into_iter()
            .take(usize::try_from(input.limit).unwrap_or(usize::MAX))
            .map(|c| c.path)
            .collect();
        let truncated = total > input.limit;
        let notice = if truncated {
            Some(notice::truncation(paths.len() as u64, total, "entries"))
        } else if paths.is_empty() && !walked.explicit_file {
            notice::empty_answer(
                &input.root,
                globs,
                input.hidden,
                input.no_ignore,
                walked.ignored,
            )
        } else {
            None
        };
        Ok(GlobOutput {
            paths,
            total,
            truncated,
            notice,
        })
    }
}
