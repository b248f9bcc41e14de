//! `ripgrep`: the peer that drives the real `rg` executable, as
//! `native-peer.md` describes.
//!
//! The single most important design fact (native-peer §0): `rg` does not
//! walk. The shared [`crate::portable::walk`] decides the candidates and
//! `rg` gets them as explicit paths; it only searches their contents,
//! and echoes the list for `glob`. The answer
//! is then reconciled to the contract (maxCount demotion, grouping, counts).
//!
//! One departure from native-peer §2.3: the NUL detector runs *before* the
//! search, which is given only the files without a NUL. `rg` searches a file
//! named on its command line to the end, so a large executable's rows
//! overflowed the 64 MiB capture cap before they could be dropped as
//! binary (`laws/grep/binary-large.toml`); the answers are otherwise the same.
//!
//! And one from native-peer §2.2: the NUL detector is not `rg` but a
//! streaming scan (the private `nul` module) that lists the same files. `rg` must hold a
//! whole line before it reports a match in it, and a sparse 5 GiB file (one
//! line of NULs) took it 8–22 s and 3.86 GB per call, then failed the call
//! at its memory bound; the scan stops at the file's first NUL.
//!
//! And one rg 15 bug worked around (drift 5, in `json`): with `--crlf`,
//! `--max-count` and after-context, rg reports an after-context line as a
//! `match` with no submatch when the pattern can match the empty text after
//! its `\n`; such a message on a terminated line is read as context, so it
//! never moves the `maxCount` cut
//! (`grep::limit::max-count-with-an-empty-line-pattern-…`). On a last line
//! with no terminator the same message is a real hit (`$` at the end of
//! input gets no submatch from rg:
//! `text::lines::dollar-matches-the-end-of-an-unterminated-last-line`).
//!
//! [`walk_peer`] holds the sibling peer, `ripgrep-walk`, which lets `rg`
//! walk so that the shared walk itself is checked.
//!
//! The binary is `LAWSUITE_RG` or `rg` on `PATH`. It is probed once, with
//! `rg --version` (its first line only, within the per-call timeout; a
//! probe past it is killed with its process group); a missing, silent or
//! too old `rg` makes every call fail with
//! `provider_unavailable`, and [`Ripgrep::availability`] tells a person how
//! to install one.

mod child;
pub mod json;
mod nul;
pub mod process;
mod walk_cache;
pub mod walk_peer;

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::contract::glob::GlobList;
use crate::contract::grouping::{Row, RowKind, group};
use crate::contract::notice::glob_answer;
use crate::contract::notice::{Unit, empty_answer_notice, truncation};
use crate::contract::symbols::annotate_file;
use crate::contract::text::preview;
use crate::contract::{
    GlobInput, GlobOutput, GrepInput, GrepOutput, Match, StdError, join_path, utf16_cmp,
    validate_pattern,
};
use crate::peer::Search;
use crate::portable::walk::{self, WalkOptions, basename};
pub use process::RgOptions;
use process::{Output, cannot_start, run_batched};
pub use walk_peer::RipgrepWalk;

/// The oldest `rg` the peer accepts (README Q6: measured on 14.1.1).
pub const MIN_VERSION: (u64, u64, u64) = (14, 1, 1);

/// The `ripgrep` peer.
#[derive(Debug, Default)]
pub struct Ripgrep {
    options: RgOptions,
    probe: OnceLock<Result<String, RgUnavailable>>,
}

impl Ripgrep {
    /// A peer running the `rg` at `program` (a path, or a name looked up on
    /// `PATH`), with the other [`RgOptions`] at their defaults.
    pub fn new(program: impl Into<PathBuf>) -> Ripgrep {
        Ripgrep::with_options(RgOptions::default().program(program))
    }

    /// A peer running `rg` as `options` say ([`Ripgrep::default`]: `rg` on
    /// `PATH`, a 60 s timeout, a 4 GiB memory bound).
    pub fn with_options(options: RgOptions) -> Ripgrep {
        Ripgrep {
            options,
            probe: OnceLock::new(),
        }
    }

    /// The same peer with another per-call timeout
    /// ([`RgOptions::timeout`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Ripgrep {
        self.options = self.options.timeout(timeout);
        self
    }

    /// How it runs `rg`.
    pub fn options(&self) -> &RgOptions {
        &self.options
    }

    /// When a call starting now must be done.
    pub(crate) fn deadline(&self) -> Instant {
        let now = Instant::now();
        now.checked_add(self.options.get_timeout())
            .unwrap_or(now + process::DEFAULT_RG_TIMEOUT)
    }

    /// `Ok(version)` when a suitable `rg` answers, else a sentence for a
    /// person that says what is wrong and how to install a suitable one.
    pub fn availability(&self) -> Result<&str, &RgUnavailable> {
        self.probe
            .get_or_init(|| probe(&self.options))
            .as_ref()
            .map(String::as_str)
    }

    pub(crate) fn ready(&self) -> Result<(), StdError> {
        match self.availability() {
            Ok(_) => Ok(()),
            Err(_) => Err(cannot_start()),
        }
    }
}

/// Why no suitable `rg` answers: `Display` is a sentence for a person
/// that says what is wrong and how to install a suitable one.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum RgUnavailable {
    /// `rg --version` could not be run.
    CannotRun {
        /// The program.
        program: PathBuf,
        /// What the OS said (shared: the probe's answer is kept and
        /// handed out again).
        source: Arc<std::io::Error>,
    },
    /// It ran but printed no ripgrep version.
    NoVersion {
        /// The program.
        program: PathBuf,
    },
    /// `--version` printed no first line before the probe's deadline (the
    /// per-call timeout, [`RgOptions::timeout`]); it was killed, with its
    /// process group.
    TimedOut {
        /// The program.
        program: PathBuf,
        /// How long it was given.
        after: Duration,
    },
    /// It is older than [`MIN_VERSION`].
    TooOld {
        /// The program.
        program: PathBuf,
        /// The version it printed.
        version: (u64, u64, u64),
    },
}

impl fmt::Display for RgUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hint = process::INSTALL_HINT;
        match self {
            RgUnavailable::CannotRun { program, source } => write!(
                f,
                "cannot run `{} --version` ({source}); {hint}",
                program.display()
            ),
            RgUnavailable::NoVersion { program } => write!(
                f,
                "`{} --version` printed no ripgrep version; {hint}",
                program.display()
            ),
            RgUnavailable::TimedOut { program, after } => write!(
                f,
                "`{} --version` printed no version line within {} ms and was killed (LAWSUITE_RG_TIMEOUT_MS sets how long it may take); {hint}",
                program.display(),
                after.as_millis()
            ),
            RgUnavailable::TooOld {
                program,
                version: (a, b, c),
            } => write!(
                f,
                "{} is ripgrep {a}.{b}.{c}, older than 14.1.1; {hint}",
                program.display()
            ),
        }
    }
}

impl std::error::Error for RgUnavailable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RgUnavailable::CannotRun { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// `rg --version`, bounded: its first line only, read until the per-call
/// timeout.
///
/// The probe is the first `rg` any call of the peer needs, so it may take
/// what one call may ([`RgOptions::timeout`], `LAWSUITE_RG_TIMEOUT_MS`,
/// 60 s by default) and no more: a program that never answered
/// `--version` used to hang lawsuite for good, and one that printed
/// without end took it to 3.08 GB.
fn probe(options: &RgOptions) -> Result<String, RgUnavailable> {
    let program = options.get_program();
    let timeout = options.get_timeout();
    let line =
        process::version_line(program, timeout).map_err(|source| RgUnavailable::CannotRun {
            program: program.to_path_buf(),
            source: Arc::new(source),
        })?;
    let line = match line {
        Ok(line) => line,
        Err(process::ProbeFailure::TimedOut) => {
            return Err(RgUnavailable::TimedOut {
                program: program.to_path_buf(),
                after: timeout,
            });
        }
        Err(process::ProbeFailure::TooLong) => {
            return Err(RgUnavailable::NoVersion {
                program: program.to_path_buf(),
            });
        }
    };
    let version = process::parse_version(&line).ok_or_else(|| RgUnavailable::NoVersion {
        program: program.to_path_buf(),
    })?;
    if version < MIN_VERSION {
        return Err(RgUnavailable::TooOld {
            program: program.to_path_buf(),
            version,
        });
    }
    Ok(line.trim().to_string())
}

/// The flags that make `rg` independent of the host's configuration
/// (native-peer §2.1: `--no-config` and the `--no-ignore-*` set).
pub const HOST_INDEPENDENCE: [&str; 6] = [
    "--no-config",
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-parent",
    "--no-ignore-exclude",
    "--no-ignore-dot",
];

/// Where `rg` runs and what it is given: cwd and targets relative to it.
struct Targets {
    cwd: String,
    targets: Vec<String>,
    explicit_file: bool,
    ignored: bool,
}

fn targets(
    root: &str,
    hidden: bool,
    no_ignore: bool,
    globs: &GlobList,
) -> Result<Targets, StdError> {
    let walked = walk::walk(&WalkOptions {
        root,
        hidden,
        no_ignore,
        globs,
    })?;
    if walked.explicit_file {
        let (cwd, name) = split_file_root(root);
        return Ok(Targets {
            cwd,
            targets: vec![name],
            explicit_file: true,
            ignored: false,
        });
    }
    Ok(Targets {
        cwd: root.to_string(),
        targets: walked.candidates.into_iter().map(|c| c.relative).collect(),
        explicit_file: false,
        ignored: walked.ignored,
    })
}

/// §1: for an explicit-file root, `rg` runs in the root's parent and is
/// given the basename: `(cwd, target)`.
pub(crate) fn split_file_root(root: &str) -> (String, String) {
    match root.rfind('/') {
        Some(0) => ("/".to_string(), root[1..].to_string()),
        Some(i) => (root[..i].to_string(), root[i + 1..].to_string()),
        None => (".".to_string(), root.to_string()),
    }
}

/// §2.5: `normalize(join(cwd, p without one leading "./"))`.
pub(crate) fn output_path(cwd: &str, p: &str) -> String {
    join_path(cwd, p.strip_prefix("./").unwrap_or(p))
}

impl Search for Ripgrep {
    fn name(&self) -> &str {
        "ripgrep"
    }

    fn version(&self) -> String {
        match self.availability() {
            Ok(v) => v.to_string(),
            Err(_) => "unavailable".to_string(),
        }
    }

    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        // The contract's grammar is the reference; `rg` never sees a pattern
        // the contract rejects.
        validate_pattern(&input.pattern, input.fixed_strings)?;
        let globs = GlobList::new(&input.globs)?;
        let t = targets(&input.root, input.hidden, input.no_ignore, &globs)?;
        self.ready()?;
        let deadline = self.deadline();
        let cwd = Path::new(if t.cwd.is_empty() { "." } else { &t.cwd });

        // The binary set first, and only the other targets searched. `rg`
        // given a file by name searches all of it (its binary detection only
        // turns NULs into line ends), so a large binary's rows (an
        // executable's empty or non-ASCII lines) overflowed the capture cap
        // before step 2.6.1 could drop them. native-peer §2.3 runs the two
        // invocations concurrently; the answer is the same either way, as
        // rows of binary files are never kept.
        // The binary set by [`nul::has_nul`], not `rg`: the same set, in
        // bounded memory (a sparse file took `rg` to its memory bound).
        let binary_set: HashSet<String> = t
            .targets
            .iter()
            .filter(|p| nul::has_nul(&cwd.join(p)))
            .map(|p| output_path(&t.cwd, p))
            .collect();
        if t.explicit_file && !binary_set.is_empty() {
            return Err(StdError::binary_root(&input.root));
        }
        let text: Vec<String> = t
            .targets
            .iter()
            .filter(|p| !binary_set.contains(&output_path(&t.cwd, p)))
            .cloned()
            .collect();
        let search_args = search_args(input);
        let search_args: Vec<&str> = search_args.iter().map(String::as_str).collect();
        let search = run_batched(&self.options, cwd, &search_args, &text, deadline)?;
        rejected(&search)?;
        let rows = json::parse_stream(&search.stdout)?;
        grep_answer(input, &t.cwd, rows, &binary_set, t.targets.len(), || {
            Ok(t.ignored)
        })
    }

    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        let patterns = std::slice::from_ref(&input.pattern);
        let globs = GlobList::new(patterns)?;
        let t = targets(&input.root, input.hidden, input.no_ignore, &globs)?;
        self.ready()?;
        let cwd = Path::new(if t.cwd.is_empty() { "." } else { &t.cwd });
        let args = files_args(input.no_ignore, input.hidden);
        let result = run_batched(&self.options, cwd, &args, &t.targets, self.deadline())?;
        if let Some(message) = result.rejection() {
            return Err(StdError::new(
                crate::contract::ErrorCode::InvalidPattern,
                message,
            ));
        }
        let paths: Vec<String> = nul_paths(&result)
            .filter(|p| {
                let rel = p.strip_prefix("./").unwrap_or(p);
                // The compiled list, not `included_by_globs`, which would
                // compile the glob again for every path.
                t.explicit_file || globs.includes(rel, basename(rel))
            })
            .map(|p| output_path(&t.cwd, p))
            .collect();
        glob_answer(input, paths, || Ok(t.ignored))
    }
}

/// native-peer §2.3 step 2: a rejection of either invocation fails the
/// call with `request_failed` and `rg`'s trimmed stderr.
pub(crate) fn rejected(result: &Output) -> Result<(), StdError> {
    match result.rejection() {
        Some(message) => Err(StdError::new(
            crate::contract::ErrorCode::RequestFailed,
            message,
        )),
        None => Ok(()),
    }
}

/// native-peer §2.6 after the invocations: reconcile the rows (steps 1–6),
/// count (step 7) and, for an empty answer, ask for the walk's `ignored`
/// flag (step 8; asked lazily because `ripgrep-walk` pays an `rg` run for it).
pub(crate) fn grep_answer(
    input: &GrepInput,
    cwd: &str,
    rows: Vec<json::RgRow>,
    binary: &HashSet<String>,
    files_searched: usize,
    ignored: impl FnOnce() -> Result<bool, StdError>,
) -> Result<GrepOutput, StdError> {
    let mut out = reconcile(input, cwd, rows, binary);
    out.files_searched = files_searched as u64;
    out.skipped_binary = binary.len() as u64;
    if out.matches.is_empty() && out.files.is_empty() && !out.truncated {
        out.notice = empty_answer_notice(
            &input.root,
            &input.globs,
            input.hidden,
            input.no_ignore,
            ignored()?,
        );
    }
    Ok(out)
}

/// The `glob` listing's arguments (native-peer §3), ending with `--`.
pub(crate) fn files_args(no_ignore: bool, hidden: bool) -> Vec<&'static str> {
    let mut args = vec!["--files", "--null"];
    args.extend(HOST_INDEPENDENCE);
    if no_ignore {
        args.push("--no-ignore");
    }
    args.extend(["--no-messages", "--sort", "path"]);
    if hidden {
        args.push("--hidden");
    }
    args.push("--");
    args
}

/// The search invocation's arguments, in the order of native-peer §2.1.
pub(crate) fn search_args(input: &GrepInput) -> Vec<String> {
    let mut args: Vec<String> = ["--json", "--stats"].map(String::from).to_vec();
    args.extend(HOST_INDEPENDENCE.map(String::from));
    if input.no_ignore {
        args.push("--no-ignore".into());
    }
    args.extend(
        [
            "--no-messages",
            "--sort",
            "path",
            "--encoding=utf-8",
            "--crlf",
        ]
        .map(String::from),
    );
    if input.hidden {
        args.push("--hidden".into());
    }
    if input.fixed_strings {
        args.push("--fixed-strings".into());
    }
    // Drift 3: `--smart-case` overrides `--ignore-case` in rg, so only one is passed.
    if input.ignore_case {
        args.push("--ignore-case".into());
    } else if input.smart_case {
        args.push("--smart-case".into());
    }
    for (flag, n) in [
        ("--before-context", input.before_context),
        ("--after-context", input.after_context),
    ] {
        if n > 0 {
            args.push(flag.into());
            args.push(n.to_string());
        }
    }
    if let Some(m) = input.max_count {
        args.push("--max-count".into());
        args.push(m.to_string());
    }
    args.push("--".into());
    args.push(input.pattern.clone());
    args
}

/// NUL-separated paths of `--null` output, empty pieces dropped (drift 4:
/// a name holding `\n` stays one path).
pub(crate) fn nul_paths(output: &Output) -> impl Iterator<Item = &str> {
    output
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .filter_map(|p| std::str::from_utf8(p).ok())
}

/// native-peer §2.6 steps 1–6.
fn reconcile(
    input: &GrepInput,
    cwd: &str,
    rows: Vec<json::RgRow>,
    binary: &HashSet<String>,
) -> GrepOutput {
    // Step 1 and 2: drop binary files' rows; sort by file then line.
    let mut rows: Vec<(String, Row)> = rows
        .into_iter()
        .map(|r| {
            let text = r
                .text
                .strip_suffix('\n')
                .map_or(r.text.as_str(), |t| t.strip_suffix('\r').unwrap_or(t));
            (
                output_path(cwd, &r.path),
                Row {
                    line: r.line,
                    text: preview(text),
                    kind: r.kind,
                },
            )
        })
        .filter(|(file, _)| !binary.contains(file))
        .collect();
    rows.sort_by(|(fa, ra), (fb, rb)| utf16_cmp(fa, fb).then(ra.line.cmp(&rb.line)));
    rows.dedup_by(|(fb, rb), (fa, ra)| fa == fb && ra.line == rb.line);
    // Step 3: maxCount demotion.
    if let Some(m) = input.max_count {
        let mut current: Option<&str> = None;
        let mut seen = 0;
        for (file, row) in rows.iter_mut() {
            if current != Some(file.as_str()) {
                current = Some(file.as_str());
                seen = 0;
            }
            if row.kind == RowKind::Match {
                seen += 1;
                if seen > m {
                    row.kind = RowKind::Context;
                }
            }
        }
    }
    let mut out = GrepOutput::default();
    // Per file, in order.
    let mut groups: Vec<Match> = Vec::new();
    let mut files: Vec<String> = Vec::new();
    let mut start = 0;
    while start < rows.len() {
        let file = rows[start].0.clone();
        let end = start + rows[start..].iter().take_while(|(f, _)| *f == file).count();
        let file_rows: Vec<Row> = rows[start..end].iter().map(|(_, r)| r.clone()).collect();
        let file_groups = group(&file, &file_rows);
        if !file_groups.is_empty() {
            files.push(file);
            groups.extend(file_groups);
        }
        start = end;
    }
    let limit = usize::try_from(input.limit).unwrap_or(usize::MAX);
    let (total, unit) = if input.files_with_matches {
        let total = files.len() as u64;
        files.truncate(limit);
        out.files = files;
        (total, Unit::Files)
    } else {
        let total = groups.len() as u64;
        groups.truncate(limit);
        if input.symbols {
            attach_symbols(&mut groups);
        }
        out.matches = groups;
        (total, Unit::Matches)
    };
    out.truncated = total > input.limit;
    if out.truncated {
        out.notice = Some(truncation(input.limit, total, unit));
    }
    out
}

/// Step 6: symbols from each returned file's text; a read failure keeps the
/// hits without symbols.
fn attach_symbols(matches: &mut [Match]) {
    let mut start = 0;
    while start < matches.len() {
        let file = matches[start].file.clone();
        let end = start
            + matches[start..]
                .iter()
                .take_while(|m| m.file == file)
                .count();
        annotate_file(std::path::Path::new(&file), &mut matches[start..end]);
        start = end;
    }
}
