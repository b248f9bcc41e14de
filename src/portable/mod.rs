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

use crate::contract::glob::GlobList;
use crate::contract::grouping::group;
use crate::contract::notice::{Unit, empty_answer_notice, glob_answer, truncation};
use crate::contract::symbols::annotate_file;
use crate::contract::{
    GlobInput, GlobOutput, GrepInput, GrepOutput, Matcher, StdError, is_insensitive,
};
#[cfg(unix)]
use crate::flow::{BashOutput, BashRequest};
use crate::flow::{LsOutput, LsRequest, ReadOutput, ReadRequest};
use crate::peer::{Method, Search};
use scan::{FileScan, ScanConfig, scan_path};
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

impl Portable {
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
        let insensitive = is_insensitive(&input.pattern, input.ignore_case, input.smart_case);
        let matcher = Matcher::new(&input.pattern, input.fixed_strings, insensitive)?;
        let globs = GlobList::new(&input.globs)?;
        let config = ScanConfig {
            matcher: &matcher,
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
            // A file without a hit is only counted (§13: `filesSearched`).
            |path| match scan_path(path, &config) {
                FileScan::Text { count: 0, .. } | FileScan::Unreadable => None,
                scan => Some(scan),
            },
        )?;

        let mut out = GrepOutput {
            files_searched: walked.visited as u64,
            ..GrepOutput::default()
        };
        let mut total: u64 = 0;
        // The returned hits of each file, in order: (file, how many).
        let mut annotate: Vec<(&Path, usize)> = Vec::new();
        for (candidate, scan) in &walked.kept {
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

    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        let patterns = std::slice::from_ref(&input.pattern);
        let globs = GlobList::new(patterns)?;
        let walked = walk::walk(&WalkOptions {
            root: &input.root,
            hidden: input.hidden,
            no_ignore: input.no_ignore,
            globs: &globs,
        })?;
        let ignored = walked.ignored;
        let paths = walked.candidates.into_iter().map(|c| c.path).collect();
        glob_answer(input, paths, || Ok(ignored))
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
