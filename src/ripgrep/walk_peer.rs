//! `ripgrep-walk`: the `rg`-driven peer that lets `rg` walk the tree itself
//! (search-contract §7 walk, §8 globs, §9 `.gitignore`, §11.1 binary, §16
//! notices).
//!
//! The `ripgrep` peer follows native-peer §0: the shared
//! [`crate::portable::walk`] picks the candidates and `rg` only searches
//! them, so a walk, glob or ignore bug is shared by both peers and invisible
//! to their comparison. This peer is the oracle for those rules: `rg` walks
//! with its own `ignore` and `globset` crates, and only the contract's
//! deliberate differences from `rg` are bridged, each named below.
//!
//! # How `rg` is asked
//!
//! * Root (§7.1): `stat` and listing failures map exactly as the contract
//!   says; a directory root runs `rg` in the root on the path `.`; a file
//!   root runs it in the parent on the basename (with no globs: §7.1 step 2)
//!   and a NUL byte in it is `binary_file`, found before it is searched
//!   (`rg` searches a file named on its command line to the end).
//! * Walk flags: the host-independence set of native-peer §2.1 (so only
//!   `.gitignore` files count, §9.1), `--no-ignore` when `noIgnore`, and
//!   `--hidden` when `hidden`. `rg` does not follow symlinks by default,
//!   which is §7.4's outcome (symlinked files are never candidates,
//!   symlinked directories never descended, dangling links and cycles
//!   dropped silently).
//! * The skip list (§7.3) is 24 `--glob=!{name}` overrides. An `rg` override
//!   matches files and directories at any depth and prunes a matched
//!   directory, which is exactly the skip list; they come *after* the
//!   caller's globs because the last matching override wins.
//! * Caller globs are passed as `--glob` in their §8.2 canonical form. That
//!   form is a translation, not a filter: `rg` has no rule for `./` or `/./`
//!   (`-g ./nested/a.ts` and `-g nested/./a.ts` match nothing in rg 15.2.0),
//!   and the contract defines matching on the canonical text.
//!
//! # Candidates: three listings, intersected
//!
//! `rg` and the contract order their rules differently. In `rg` an override
//! that matches decides alone, and a `.gitignore` whitelist beats the
//! hidden rule; the contract drops hidden and skip-listed names first,
//! then applies ignore rules, then globs (§7.2, §7.6). Measured on rg
//! 15.2.0:
//!
//! * a caller's positive `-g` re-admits hidden and ignored files:
//!   `rg --files -g '*.ts'` lists `.secret.ts` without `--hidden`;
//! * a `!` rule re-admits hidden names: `.gitignore` = `!*` makes
//!   `rg --files` list `.gitignore` itself without `--hidden`.
//!
//! Both are bridged by composing `rg`'s own answers the contract's way. The
//! candidates are `W ∩ N ∩ A`, three `rg --files` listings:
//!
//! * `W`: the walk flags and the skip list, no caller globs (`rg`'s ignore
//!   rules, with its whitelist-beats-hidden order);
//! * `N`: `W` with `--no-ignore` (`rg`'s hidden rule alone, so a hidden name
//!   a `!` rule re-admitted in `W` is dropped again);
//! * `A`: `N` with the caller's globs (`rg`'s glob admission; what a
//!   positive glob re-admits is not in `W ∩ N`).
//!
//! A listing is taken once where two are the same command or the same
//! answer: without caller globs `A` is `N`; under `noIgnore` `N` is `W`;
//! and in a tree holding no `.gitignore` (under the walk flags `rg` reads
//! no other ignore file) `N` is `W` too. Each listing is kept for the next
//! call on the same tree, as long as the tree's names, types and
//! `.gitignore` files are unchanged (the private `walk_cache` module):
//! the second seam call of a literal retry, or the next law on a shared
//! tree, lists nothing again. The shipped laws used to start 2,745 `rg`
//! processes on this peer, 3 a law; now 1,761.
//!
//! The search (`--json`, native-peer §2.1) and the NUL detector (§2.2) walk
//! with the walk flags plus all globs; their answers are restricted to the
//! candidates, so a file that only a glob re-admitted is neither searched
//! nor counted. `filesSearched` is the number of candidates.
//!
//! # The `ignored` flag (§7.5)
//!
//! `rg` does not say what its ignore rules dropped, so the flag is inferred
//! from the listings: the files the rules dropped are `N \ W`. The flag is
//! set when a dropped file is in `A` (a file the globs admit), or when
//! every listed file under some directory was dropped (taken as "the
//! directory was dropped"). The inference is blind to a dropped directory
//! with no listed file (empty, or holding only hidden, skip-listed or
//! symlinked entries) and wrongly sees one when every file of a directory
//! is dropped by file rules the globs do not admit; both only change the
//! ignore sentence of an empty answer, and both are listed differences.
//!
//! # Checked agreements
//!
//! `tests/ripgrep_walk.rs` holds the trees. Besides the rules above, `rg`
//! agrees with the contract on nested scopes (nearest scope first, last
//! matching line wins, `/` anchoring, `!` negation, directory-only rules,
//! no re-inclusion under an ignored directory); the §9.2–§9.3 grammar (BOM,
//! CRLF, trailing whitespace and `\ `, escapes, classes including `[]a]`
//! and an unclosed `[`, nested and empty brace alternatives, a malformed
//! line dropping only itself, `?` as one byte); rules crossing a nested
//! `.git` (only because of `--no-require-git`: without it rg stops at the
//! nested repository); `.gitignore` above the root, `.ignore`, `.rgignore`
//! and `.git/info/exclude` not read; `?` in caller globs as one byte; and
//! symlinks, FIFOs, dangling links and cycles.
//!
//! # Known differences between `rg`'s walk and the contract
//!
//! [`crate::differences`] lists them (`peers/expected/differences.toml`)
//! with the laws they fail, the tests that show each, and how a sweep
//! recognises them by the answer they predict; the tests assert each still
//! differs, so the list cannot go stale.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::ScopedJoinHandle;
use std::time::{Duration, Instant};

use super::nul::has_nul;
use super::process::{Output, run_batched};
use super::walk_cache::{CallListings, Key, Listing};
use super::{
    Ripgrep, files_args, glob_answer, grep_answer, json, nul_paths, output_path, search_args,
    split_file_root,
};
use crate::contract::skip::SKIP_LIST;
use crate::contract::{
    ErrorCode, GlobInput, GlobOutput, GrepInput, GrepOutput, StdError, canonical_glob,
    validate_pattern,
};
use crate::peer::Search;

/// The `ripgrep-walk` peer.
#[derive(Debug, Default)]
pub struct RipgrepWalk {
    rg: Ripgrep,
}

impl RipgrepWalk {
    /// A peer running the `rg` at `program` (a path, or a name looked up on `PATH`).
    pub fn new(program: impl Into<PathBuf>) -> RipgrepWalk {
        RipgrepWalk {
            rg: Ripgrep::new(program),
        }
    }

    /// A peer running `rg` as `options` say (as [`Ripgrep::with_options`]).
    pub fn with_options(options: super::RgOptions) -> RipgrepWalk {
        RipgrepWalk {
            rg: Ripgrep::with_options(options),
        }
    }

    /// The same peer with another per-call timeout (as
    /// [`Ripgrep::with_timeout`]).
    pub fn with_timeout(self, timeout: Duration) -> RipgrepWalk {
        RipgrepWalk {
            rg: self.rg.with_timeout(timeout),
        }
    }

    /// `Ok(version)` when a suitable `rg` answers, else a sentence for a
    /// person saying how to install one (as [`Ripgrep::availability`]).
    pub fn availability(&self) -> Result<&str, &super::RgUnavailable> {
        self.rg.availability()
    }
}

/// Where `rg` walks and with which flags.
struct Walk<'p> {
    rg: &'p super::RgOptions,
    /// When every `rg` of the call must have ended.
    deadline: Instant,
    /// `rg`'s working directory: the root, or a file root's parent.
    cwd: String,
    /// `.` for a directory root, the basename for a file root.
    target: Vec<String>,
    explicit_file: bool,
    hidden: bool,
    no_ignore: bool,
    /// The caller's globs as `--glob=` arguments (canonical form).
    caller: Vec<String>,
    /// The skip list as `--glob=!name` arguments.
    skip: Vec<String>,
}

impl<'p> Walk<'p> {
    /// §7.1: resolve the root; only the root can fail.
    fn new(
        rg: &'p super::RgOptions,
        deadline: Instant,
        root: &str,
        hidden: bool,
        no_ignore: bool,
        globs: &[String],
    ) -> Result<Walk<'p>, StdError> {
        let meta = std::fs::metadata(root).map_err(|e| StdError::cannot_search(root, &e))?;
        let explicit_file = meta.is_file();
        let (cwd, target) = if explicit_file {
            split_file_root(root)
        } else {
            // §7.1 step 3: listing the root fails like `stat` did.
            std::fs::read_dir(root).map_err(|e| StdError::cannot_search(root, &e))?;
            (root.to_string(), ".".to_string())
        };
        // §7.1 step 2: a file root is searched whatever globs and skip list say.
        let (caller, skip) = if explicit_file {
            (Vec::new(), Vec::new())
        } else {
            (
                globs
                    .iter()
                    .map(|g| format!("--glob={}", canonical_glob(g)))
                    .collect(),
                SKIP_LIST.iter().map(|n| format!("--glob=!{n}")).collect(),
            )
        };
        Ok(Walk {
            rg,
            deadline,
            cwd,
            target: vec![target],
            explicit_file,
            hidden,
            no_ignore,
            caller,
            skip,
        })
    }

    fn cwd_path(&self) -> &Path {
        Path::new(if self.cwd.is_empty() { "." } else { &self.cwd })
    }

    /// The walk arguments (caller globs, then the skip list: the last
    /// matching override wins) inserted before `--` of `base`.
    fn with_globs<'a>(&'a self, base: Vec<&'a str>, caller: bool) -> Vec<&'a str> {
        let at = base.iter().position(|a| *a == "--").unwrap_or(base.len());
        let mut args = base;
        let globs = self
            .caller
            .iter()
            .filter(|_| caller)
            .chain(&self.skip)
            .map(String::as_str);
        args.splice(at..at, globs);
        args
    }

    /// Run `args` on the target; a rejection (native-peer §1.2) fails with `code`.
    fn run(&self, args: &[&str], code: ErrorCode) -> Result<Output, StdError> {
        let out = run_batched(self.rg, self.cwd_path(), args, &self.target, self.deadline)?;
        match out.rejection() {
            Some(message) => Err(StdError::new(code, message)),
            None => Ok(out),
        }
    }

    /// `rg --files`: the relative paths (`./` removed) it lists, or what
    /// the last call on the same tree listed so ([`walk_cache`]).
    fn list(
        &self,
        kept: &CallListings,
        no_ignore: bool,
        caller: bool,
        code: ErrorCode,
    ) -> Result<Listing, StdError> {
        let key = Key {
            hidden: self.hidden,
            no_ignore,
            globs: caller.then(|| self.caller.clone()),
        };
        kept.get(key, || {
            let args = self.with_globs(files_args(no_ignore, self.hidden), caller);
            let out = self.run(&args, code)?;
            Ok(nul_paths(&out).map(|p| relative(p).to_string()).collect())
        })
    }

    /// The listings a call may reuse: those of the last call on this
    /// thread, when it asked about the same tree as it is now.
    fn kept(&self) -> CallListings {
        if self.explicit_file {
            // `rg` lists a named file whatever the flags: nothing to keep.
            CallListings::none()
        } else {
            CallListings::open(self.rg, &self.cwd)
        }
    }

    /// The three listings, run concurrently (those not kept from the last
    /// call on the same tree), and the candidates `W ∩ N ∩ A` (module doc).
    fn listings(&self, kept: &CallListings, code: ErrorCode) -> Result<Listings, StdError> {
        // Without caller globs, `A` is `N`'s very command line; under
        // `noIgnore` `N` is `W`'s, and in a tree with no `.gitignore` the
        // two list the same: each listing is taken once.
        let globbed = !self.caller.is_empty();
        let same_unignored = self.no_ignore || kept.has_no_gitignore();
        let (walked, unignored, admitted) = std::thread::scope(|s| {
            let admitted = globbed.then(|| s.spawn(|| self.list(kept, true, true, code)));
            let unignored =
                (!same_unignored).then(|| s.spawn(|| self.list(kept, true, false, code)));
            let walked = self.list(kept, self.no_ignore, false, code);
            (walked, unignored.map(joined), admitted.map(joined))
        });
        let walked = walked?;
        let unignored = match unignored {
            Some(listed) => listed?,
            None => Arc::clone(&walked),
        };
        let admitted = match admitted {
            Some(listed) => listed?,
            None => Arc::clone(&unignored),
        };
        let candidates = walked
            .iter()
            .filter(|f| unignored.contains(*f) && admitted.contains(*f))
            .cloned()
            .collect();
        Ok(Listings {
            walked,
            unignored,
            admitted,
            candidates,
        })
    }

    /// §7.5: never for a file root or under `noIgnore`.
    fn ignored(&self, listings: &Listings) -> bool {
        !self.explicit_file && !self.no_ignore && listings.ignored()
    }
}

impl Listings {
    /// §7.5, inferred from `N \ W` (module doc).
    fn ignored(&self) -> bool {
        let dropped: Vec<&String> = self.unignored.difference(self.walked.as_ref()).collect();
        if dropped.iter().any(|f| self.admitted.contains(*f)) {
            return true;
        }
        let kept_dirs: HashSet<&str> = self.walked.iter().flat_map(|f| dirs(f)).collect();
        dropped
            .iter()
            .any(|f| dirs(f).any(|d| !kept_dirs.contains(d)))
    }
}

/// The three listings of one call (module doc).
struct Listings {
    /// `W`: `rg`'s walk without caller globs.
    walked: Listing,
    /// `N`: `W` without ignore rules (`W` itself under `noIgnore`).
    unignored: Listing,
    /// `A`: `rg`'s glob admission over `N`'s walk.
    admitted: Listing,
    /// `W ∩ N ∩ A`.
    candidates: HashSet<String>,
}

/// A path `rg` printed, without one leading `./`.
fn relative(p: &str) -> &str {
    p.strip_prefix("./").unwrap_or(p)
}

/// The proper ancestor directories of a relative file path: `a`, `a/b` for `a/b/c`.
fn dirs(file: &str) -> impl Iterator<Item = &str> {
    file.match_indices('/').map(move |(at, _)| &file[..at])
}

/// The answer of a scoped thread; a panic there is a failed call.
fn joined<T>(handle: ScopedJoinHandle<'_, Result<T, StdError>>) -> Result<T, StdError> {
    handle.join().unwrap_or_else(|_| {
        Err(StdError::new(
            ErrorCode::RequestFailed,
            "an rg invocation thread panicked",
        ))
    })
}

impl Search for RipgrepWalk {
    fn name(&self) -> &str {
        "ripgrep-walk"
    }

    fn version(&self) -> String {
        self.rg.version()
    }

    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        validate_pattern(&input.pattern, input.fixed_strings)?;
        let walk = Walk::new(
            self.rg.options(),
            self.rg.deadline(),
            &input.root,
            input.hidden,
            input.no_ignore,
            &input.globs,
        )?;
        self.rg.ready()?;
        let code = ErrorCode::RequestFailed;
        let search_args = search_args(input);
        let search_args = walk.with_globs(search_args.iter().map(String::as_str).collect(), true);
        // The binary set by `has_nul` over the candidates `rg`'s walk
        // chose, not by `rg --text -- '\x00'`: the same set (module doc of
        // `nul`), in bounded memory; a sparse file took `rg` to its memory
        // bound. A file root is checked before it is searched: `rg` given a
        // file by name searches all of it, and a large binary's rows
        // overflowed the capture cap before §11.1 could refuse the root
        // (`rg` names an explicit file whatever the globs, so the root alone
        // is checked). Files `rg` finds by walking are safe to search: it
        // stops at their first NUL.
        let cwd = walk.cwd_path();
        if walk.explicit_file && walk.target.iter().any(|t| has_nul(&cwd.join(t))) {
            return Err(StdError::binary_root(&input.root));
        }
        let kept = walk.kept();
        let (listings, search) = std::thread::scope(|s| {
            let search = s.spawn(|| walk.run(&search_args, code));
            let listings = walk.listings(&kept, code);
            (listings, joined(search))
        });
        let (listings, search) = (listings?, search?);
        kept.keep();
        let candidates = &listings.candidates;
        let binary_set: HashSet<String> = candidates
            .iter()
            .filter(|p| has_nul(&cwd.join(p)))
            .map(|p| output_path(&walk.cwd, p))
            .collect();
        if walk.explicit_file && !binary_set.is_empty() {
            return Err(StdError::binary_root(&input.root));
        }
        let mut rows = json::parse_stream(&search.stdout)?;
        rows.retain(|r| candidates.contains(relative(&r.path)));
        grep_answer(
            input,
            &walk.cwd,
            rows,
            &binary_set,
            candidates.len(),
            || Ok(walk.ignored(&listings)),
        )
    }

    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        let patterns = std::slice::from_ref(&input.pattern);
        let walk = Walk::new(
            self.rg.options(),
            self.rg.deadline(),
            &input.root,
            input.hidden,
            input.no_ignore,
            patterns,
        )?;
        self.rg.ready()?;
        // native-peer §3 step 1: `rg`'s own refusal is `invalid_pattern`.
        let code = ErrorCode::InvalidPattern;
        let kept = walk.kept();
        let listings = walk.listings(&kept, code)?;
        kept.keep();
        let paths = listings
            .candidates
            .iter()
            .map(|p| output_path(&walk.cwd, p))
            .collect();
        glob_answer(input, paths, || Ok(walk.ignored(&listings)))
    }
}
