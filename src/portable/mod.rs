//! `portable`: the in-process reference peer (search-contract §7–§16).
//!
//! It is also the reference for the file flows of `read-ls-flows.md`:
//! `flow/read`, `flow/ls` and `flow/bash` delegate to [`crate::flow`],
//! with relative paths resolved against the process's working directory.
//!
//! Every other peer is compared with this one, so it follows the spec to
//! the letter: the shared [`walk`] (§7–§9), a streaming per-file [`scan`]
//! (§11, §13), grouping at the cut (§13.1), notices (§14, §16) and symbols
//! (§15). Files are scanned in parallel; the answers are merged in candidate
//! order, so the result never depends on the thread count.
//!
//! Through the flow, a regex and its §18 literal retry are searched in one
//! walk ([`Search::grep_with_literal`]): each file is read once and scanned
//! for both, the literal's scans stop at the first regex hit, and the
//! literal's answer is built only when the regex's is empty.
//!
//! ```
//! use lawsuite::contract::GrepRequest;
//! use lawsuite::peer::Search;
//! use lawsuite::portable::Portable;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("a.txt"), "one\nneedle\n")?;
//! let mut request = GrepRequest::new("needle");
//! request.root = Some(dir.path().to_str().unwrap().to_string());
//! let answer = Portable::default().flow_grep(&request)?;
//! assert_eq!(answer.matches[0].line, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod pool;
pub mod scan;
pub mod walk;

use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::contract::glob::GlobList;
use crate::contract::grouping::group;
use crate::contract::notice::{Unit, empty_answer_notice, glob_answer_from, truncation};
use crate::contract::symbols::annotate_file;
use crate::contract::{
    GlobInput, GlobOutput, GrepInput, GrepOutput, Matcher, StdError, is_insensitive,
};
#[cfg(unix)]
use crate::flow::{BashOutput, BashRequest};
use crate::flow::{LsOutput, LsRequest, ReadOutput, ReadRequest, WithLiteral};
use crate::peer::{Method, Search};
use scan::{FileScan, ScanConfig, scan_path, scan_path_each};
use walk::WalkOptions;

/// The portable peer. `Default` uses every available core.
#[derive(Clone, Debug)]
pub struct Portable {
    threads: NonZeroUsize,
}

impl Default for Portable {
    fn default() -> Self {
        Portable {
            threads: std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN),
        }
    }
}

impl Portable {
    /// A portable peer scanning with `threads` threads (at least one).
    pub fn with_threads(threads: usize) -> Portable {
        Portable {
            threads: NonZeroUsize::new(threads).unwrap_or(NonZeroUsize::MIN),
        }
    }
}

/// What one candidate's scans found: the regex's and, when asked, the
/// literal's (`None` once the regex has found a hit: §18 never uses the
/// literal's answer then).
type Found = (FileScan, Option<FileScan>);

/// Whether a scan's file matters to an answer beyond being counted in
/// `filesSearched` (§13: a file without a hit is only counted).
fn matters(scan: &FileScan) -> bool {
    !matches!(scan, FileScan::Text { count: 0, .. } | FileScan::Unreadable)
}

impl Portable {
    /// The seam's answer for `input` and, when `literal` is given (the
    /// matcher of the same input with `fixedStrings: true`), the seam's
    /// answer for that input too, from the same walk, each file read once
    /// for both. The literal's answer is left out when the regex's is not
    /// empty (§18 never looks at it then), and its scans stop as soon as a
    /// regex hit makes that certain.
    fn search(
        &self,
        input: &GrepInput,
        literal: Option<&Matcher>,
    ) -> Result<(GrepOutput, Option<GrepOutput>), StdError> {
        let insensitive = is_insensitive(&input.pattern, input.ignore_case, input.smart_case);
        let matcher = Matcher::new(&input.pattern, input.fixed_strings, insensitive)?;
        let globs = GlobList::new(&input.globs)?;
        let config = |matcher| ScanConfig {
            matcher,
            before: input.before_context,
            after: input.after_context,
            max_count: input.max_count,
            // Each file keeps up to `limit + 1` hits: at least the
            // `remaining + 1` of §13, whatever the earlier files kept, so
            // the merge below can cut exactly where a sequential scan would.
            cap: if input.files_with_matches {
                0
            } else {
                input.limit.saturating_add(1)
            },
            first_only: input.files_with_matches,
        };
        let regex_config = config(&matcher);
        let literal_config = literal.map(config);
        // Set by the first text file with a regex hit when `limit` is above
        // 0: the regex's answer is then not empty (its first such file in
        // candidate order keeps a hit or is listed), so the literal's is
        // never used and its scans stop. (With `limit: 0` every answer is
        // empty, §14, and the literal's is searched to the end.)
        let regex_found = AtomicBool::new(false);
        let stops_literal = input.limit > 0;
        // Each file is scanned on a walk thread as soon as its directory is
        // listed; the answers come back in candidate order.
        let walked = walk::walk_visiting(
            &WalkOptions {
                root: &input.root,
                hidden: input.hidden,
                no_ignore: input.no_ignore,
                globs: &globs,
            },
            self.threads.get(),
            |path| -> Option<Found> {
                let literal = literal_config
                    .as_ref()
                    .filter(|_| !regex_found.load(Ordering::Relaxed));
                let (regex, literal) = match literal {
                    Some(literal) => {
                        let mut scans = scan_path_each(path, &[&regex_config, literal]);
                        let literal = scans.pop();
                        (scans.pop()?, literal)
                    }
                    None => (scan_path(path, &regex_config), None),
                };
                if stops_literal && matches!(regex, FileScan::Text { count, .. } if count > 0) {
                    regex_found.store(true, Ordering::Relaxed);
                }
                let literal = literal.filter(matters);
                // A file without a hit is only counted (§13: `filesSearched`).
                (matters(&regex) || literal.is_some()).then_some((regex, literal))
            },
        )?;
        let kept = || walked.kept.iter();
        let regex = self.answer(input, &walked, kept().map(|(c, (r, _))| (c, r)))?;
        // `regex_found` is set only where the regex's answer is not empty;
        // were it ever set beside an empty one, the literal's scans would
        // not be whole, and leaving its answer out makes the flow ask the
        // seam for it: slower, never wrong.
        if !regex.is_empty() || regex_found.load(Ordering::Relaxed) {
            return Ok((regex, None));
        }
        let literal = match literal_config {
            Some(_) => {
                let scans = kept().filter_map(|(c, (_, l))| Some((c, l.as_ref()?)));
                Some(self.answer(input, &walked, scans)?)
            }
            None => None,
        };
        Ok((regex, literal))
    }

    /// The seam's answer from the scans of the candidates that matter, in
    /// candidate order (§13 steps 2–6, §14, §16).
    fn answer<'w>(
        &self,
        input: &GrepInput,
        walked: &walk::Visited<Found>,
        scans: impl Iterator<Item = (&'w walk::Candidate, &'w FileScan)>,
    ) -> Result<GrepOutput, StdError> {
        let mut out = GrepOutput {
            files_searched: walked.visited as u64,
            ..GrepOutput::default()
        };
        let mut total: u64 = 0;
        // The returned hits of each file, in order: (file, how many).
        let mut annotate: Vec<(&Path, usize)> = Vec::new();
        for (candidate, scan) in scans {
            let (count, rows) = match scan {
                FileScan::Unreadable => continue,
                FileScan::Binary if walked.explicit_file => {
                    return Err(StdError::binary_root(&candidate.path));
                }
                FileScan::Binary => {
                    out.skipped_binary += 1;
                    continue;
                }
                FileScan::Text { count, rows } => (*count, rows),
            };
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
            let remaining = input.limit.saturating_sub(out.matches.len() as u64);
            total = total.saturating_add(count);
            if remaining == 0 {
                continue;
            }
            let mut groups = group(&candidate.path, rows);
            groups.truncate(usize::try_from(remaining).unwrap_or(usize::MAX));
            if input.symbols {
                annotate.push((candidate.fs_path.as_path(), groups.len()));
            }
            out.matches.extend(groups);
        }
        if input.symbols {
            self.annotate_all(&mut out.matches, annotate);
        }
        out.truncated = total > input.limit;
        let unit = if input.files_with_matches {
            Unit::Files
        } else {
            Unit::Matches
        };
        out.notice = if out.truncated {
            Some(truncation(input.limit, total, unit))
        } else if total == 0 {
            empty_answer_notice(
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

    /// §15: the symbols of the returned hits, `spans` giving each file's
    /// consecutive hits in `matches`. Files are read again in parallel:
    /// one at a time, after the search, they were the sequential tail of
    /// every answer with many files (`maxCount: 1` over 19,000 files of
    /// tree M took 1.5x `rg`'s wall time).
    fn annotate_all(&self, matches: &mut [crate::contract::Match], spans: Vec<(&Path, usize)>) {
        let mut jobs = Vec::with_capacity(spans.len());
        let mut rest = matches;
        for (path, len) in spans {
            let (hits, tail) = rest.split_at_mut(len.min(rest.len()));
            jobs.push((path, hits));
            rest = tail;
        }
        let threads = self.threads.get().min(jobs.len());
        pool::drain(jobs, threads, |(path, hits)| {
            annotate_file(path, hits);
            Vec::new()
        });
    }
}

impl Search for Portable {
    fn name(&self) -> &str {
        "portable"
    }

    fn version(&self) -> String {
        format!("lawsuite {}", env!("CARGO_PKG_VERSION"))
    }

    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        self.search(input, None).map(|(regex, _)| regex)
    }

    fn grep_with_literal(&self, input: &GrepInput) -> Option<Result<WithLiteral, StdError>> {
        let insensitive = is_insensitive(&input.pattern, input.ignore_case, input.smart_case);
        // The literal's own matcher never fails where the regex's compiles
        // (§10 step 3 checks a fixed string's text only); if it ever did,
        // the flow's second seam call meets the same failure.
        let literal = Matcher::new(&input.pattern, true, insensitive).ok()?;
        Some(
            self.search(input, Some(&literal))
                .map(|(regex, literal)| WithLiteral { regex, literal }),
        )
    }

    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        let patterns = std::slice::from_ref(&input.pattern);
        let globs = GlobList::new(patterns)?;
        let options = WalkOptions {
            root: &input.root,
            hidden: input.hidden,
            no_ignore: input.no_ignore,
            globs: &globs,
        };
        let walked = walk::walk_smallest(&options, self.threads.get(), input.limit)?;
        glob_answer_from(input, walked.paths, || Ok(walked.ignored))
    }

    fn read(&self, input: &ReadRequest) -> Result<ReadOutput, StdError> {
        crate::flow::read(input)
    }

    fn ls(&self, input: &LsRequest) -> Result<LsOutput, StdError> {
        crate::flow::ls(input)
    }

    #[cfg(unix)]
    fn bash(&self, input: &BashRequest) -> Result<BashOutput, StdError> {
        crate::flow::bash(input)
    }

    fn supports(&self, method: Method) -> bool {
        // Every method: the file flows in `src/flows`, `bash` on unix only.
        method != Method::FlowBash || cfg!(unix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::GrepRequest;
    use crate::testing::Altered;

    /// Files scanned by the flow call `request` on `peer`, searching on
    /// this thread.
    fn scans(peer: &dyn Search, request: &GrepRequest) -> (usize, bool) {
        let before = scan::OPENED.with(|o| o.get());
        let out = peer.flow_grep(request).expect("the flow answers");
        let after = scan::OPENED.with(|o| o.get());
        (after - before, out.retried_as_literal == Some(true))
    }

    /// Issue 47: through the flow, a regex that finds nothing was searched
    /// again as a literal, a second walk reading every file again. Now
    /// each file is read once whatever §18 decides; a peer offering only
    /// the seam (here `portable` behind a wrapper that forwards `grep`
    /// alone) still gets the two searches, and the same answer.
    #[test]
    fn a_flow_call_reads_each_file_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        std::fs::write(dir.path().join("b.txt"), "value = f(x)\n").unwrap();
        std::fs::write(dir.path().join("c.txt"), "fx\n").unwrap();
        let root = dir.path().to_str().unwrap().to_string();
        let request = |pattern: &str| {
            let mut r = GrepRequest::new(pattern);
            r.root = Some(root.clone());
            r
        };
        let portable = Portable::with_threads(1);
        // `Altered` forwards the seam to a one-thread `portable`, and not
        // the one-pass extension.
        let seam_only = Altered::new("seam-only");
        for (pattern, retried) in [
            ("absent(x)", false),
            ("value = f(x)", true),
            ("f(x)", false),
        ] {
            let r = request(pattern);
            assert_eq!(scans(&portable, &r), (3, retried), "{pattern}");
            let twice = if pattern == "f(x)" { 3 } else { 6 };
            assert_eq!(scans(&seam_only, &r), (twice, retried), "{pattern}");
            assert_eq!(
                portable.flow_grep(&r).unwrap(),
                seam_only.flow_grep(&r).unwrap(),
                "{pattern}"
            );
        }
    }
}
