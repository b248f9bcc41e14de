//! The `lawsuite` generator, the harness's default: a seed becomes a
//! [`Plan`] over a much wider ground than the TypeScript kit's
//! ([`crate::kit::smthrs`], conformance-kit §2).
//!
//! Where `smthrs` reproduces a fixed vocabulary draw for draw, this
//! generator aims at the corners of `search-contract.md` that §2's ground
//! never reaches:
//!
//! * **the walk (§7)**: trees up to five directory levels deep; names with
//!   spaces, non-ASCII (`é`, `😀`, CJK), dots and leading dashes; hidden
//!   files and directories; skip-list directories with contents and a
//!   skip-list name used as a *file* (§7.3);
//! * **`.gitignore` (§9)**: a root file and nested ones whose rules are
//!   drawn from the names actually under them — negation, anchoring,
//!   directory rules, `**`, comments, blank lines, trailing spaces, classes
//!   and malformed lines (`[z-a]`, `{broken`);
//! * **reading (§11)**: binaries (a NUL early or after 9000 bytes), empty
//!   files, a file holding only `\n`, lines longer than the 500-character
//!   preview and lines of 499, 500 and 501 characters with a multibyte
//!   character at the edge, missing final newlines, symbol-bearing code
//!   (§15);
//! * **patterns (§10, §12, §18)**: literals from the tree's own words,
//!   classes, alternation, every quantifier, anchors, escaped
//!   metacharacters, `.`; a share of invalid patterns, of non-ASCII ones and
//!   of metacharacter-bearing literals that exercise the literal retry;
//! * **every input field**, including `ignoreCase` + `smartCase` together
//!   in about 3 % of calls (peer-level calls may do that; the flow layer
//!   refuses it, §3 check 1), `limit: 0`, globs (§8) positive and `!`,
//!   anchored, braced, with trailing spaces or `./`, and roots that are the
//!   plan root, a subdirectory, a file (hidden, binary, skipped…) or a
//!   missing path.
//!
//! [`Ground::Full`] adds what needs more than plain files: CRLF lines,
//! invalid UTF-8, a BOM, symlinks (to files, to directories, dangling,
//! loops), an unreadable directory and an unreadable file (mode `0o000`),
//! an empty directory. A lone `\r` is never generated where grep and glob
//! can see it (spec README Q3: the peers are unreconciled there); the
//! file-flow fixture of steps 6–8, which only `read` and `ls` calls see,
//! has CRLF, lone CRs and invalid UTF-8 on both grounds, since the flows
//! leave nothing unreconciled there.
//!
//! # Reproducibility and the draw order
//!
//! The PRNG is ChaCha8 seeded from the seed as `rand_chacha::ChaCha8Rng::seed_from_u64`
//! seeds it (lawsuite's own copy of that stream, checked against the crate),
//! whose stream is fixed by its specification on every platform. Only integer draws are used:
//! every draw is one `next_u64` mapped to `0..n` by the multiply-shift
//! `(x · n) >> 64`, and a percentage is `below(100) < p`. A plan's JSON is
//! therefore the same bytes everywhere for the same seed, root, options
//! and [`VERSION`]. **Any change to the order below, to a weight table or
//! to a vocabulary changes plans and must bump [`VERSION`]** (and the
//! golden hashes in this module's tests).
//!
//! 1. *Shape*: the directory count (`3 + below(6)`), then per directory:
//!    chain-or-pick (`percent(50)`), the parent (a pick, only when not
//!    chaining), the name.
//! 2. *Files*, for each index `0..files`: directory, name form, stem,
//!    extension, then the content ([`content`'s order](#content-draws)).
//! 3. *Extras*, only when `files > 0`: two skip-list directories (name,
//!    parent, deep?), one skip-list name used as a file (name, parent),
//!    each name being two draws (undotted?, pick); on the full ground, in
//!    this order, a link to a file, a link to a directory, a dangling link,
//!    link loops, a link to the parent, an unreadable directory, an
//!    unreadable file and an empty directory, each gated by one percentage
//!    draw followed (when it passes) by its picks; then the `.gitignore` files: the nested count, the nested
//!    directories, and per file (root first) the rule count, per rule the
//!    form, a file pick, a directory pick, the form's own pick (if any) and
//!    the negation draw (comments, blanks and malformed lines take no
//!    negation draw), and on the full ground the CRLF and BOM draws.
//! 4. *Grep calls*, `calls` of them, each: pattern (its grammar branch,
//!    then that branch's draws), `fixedStrings`, case mode, globs (count,
//!    then each glob), `beforeContext`, `afterContext`, `maxCount`
//!    (present?, then its value), `filesWithMatches`, `hidden`,
//!    `noIgnore`, `symbols`, `limit`, root.
//! 5. *Glob calls*, `calls` of them, each: pattern (one glob), `hidden`,
//!    `noIgnore`, `limit` (bucket, then a value in it), root.
//! 6. *File-flow fixture* (version 2), only when `files > 0`: the number of
//!    `read` fixture files, each one's kind and that kind's draws; the
//!    listed directory's size (bucket, then a value), per entry a
//!    directory-or-file draw; on the full ground a dangling link and a link
//!    to the parent, each gated by one percentage draw.
//! 7. *Read calls*, `calls` of them, each: target (kind, then its pick or
//!    spelling), `offset` (kind, then its value), `limit` (likewise).
//! 8. *Ls calls*, `calls` of them, each: target (kind, then its pick and,
//!    for a directory, the trailing-`/` draw), `offset`, `limit`.
//! 9. *Corners* (version 4), only when `files > 0` and `calls > 0`: under
//!    `corners/`, each gated by one percentage draw and then its own draws,
//!    a nested `.gitignore` with brace rules, a glob whose alternatives
//!    share 64 bytes or more, a long valid glob, an empty-line grep, a file
//!    longer than one 64 KiB read with before-context across the read, and
//!    a `read` of a missing relative path, and (version 5) a grep for a
//!    bracket class whose `-` follows an escaped `-` with a grep for a
//!    set-operation look-alike (`corners`'s module doc says why each).
//!    Their calls go after steps 4, 5 and 7's (and the look-alike after
//!    the plan's other flow calls).
//!
//! Step 9 comes after every earlier draw, so version 4 kept every call of
//! version 3 (and its tree, plus `corners/`); version 5 appended the class
//! corner to step 9, so it kept every call and file of version 4 (plus
//! `corners/classes.txt` and its two calls).
//!
//! Steps 6–8 come after every earlier draw, so version 2 kept each seed's
//! tree (plus the fixture) and its grep and glob calls from version 1. The
//! fixture lives under `flows.fixture/node_modules/`, a skip-listed
//! directory (§7.3) that none of those calls can reach, so their answers
//! are version 1's too. It holds, on both grounds, what the file flows of
//! `read-ls-flows.md` need: around 2,000 lines, lines around 2,000
//! scalars, pages around 60,000 bytes, CRLF and lone CRs, NULs, invalid
//! UTF-8, a BOM, empty and newline-only files, and a directory of 0–1,005
//! entries whose names need UTF-16 order (and, on the full ground, links).
//! `read` calls name fixture files, tree files, notable entries,
//! directories, missing paths and the root; `ls` calls the fixture's
//! directory, tree directories, the root, files, missing paths and notable
//! entries; offsets and limits are absent, 1, small, at or past the count,
//! around the 2,000 / 1,000 caps, huge, or 0 (which the flows refuse).
//!
//! A glob is: its form, a file pick, a directory pick, the form's own pick
//! (if any), the negation draw. A root is: its kind, then for a directory a
//! pick and a spelling draw, for a file or notable entry a pick, for a
//! missing path one of three spellings.
//!
//! <a id="content-draws"></a>Content: the kind, then the kind's own draws,
//! then (full ground only) CRLF, invalid UTF-8 (and where), BOM, then the
//! final-newline draw. The empty and newline-only kinds draw nothing after
//! the kind.
//!
//! Draws whose result is thrown away (a path already taken, a pick from an
//! empty list) are still made, so the order never depends on them.
//!
//! Since version 3, a drawn grep or glob call that validation refuses
//! (search-contract §3–§5) is not put at the peer seam, which receives only
//! validated input, but in [`Plan::flow`] as the same request to the whole
//! flow, where refusing it with the exact error is the contract. The draws
//! are the same; a seam call carries the normalised input.
//!
//! ```
//! use lawsuite::kit::lawsuite::{plan, GeneratorOptions, Ground, GENERATOR, VERSION};
//!
//! let options = GeneratorOptions { ground: Ground::Full, ..GeneratorOptions::default() };
//! let first = plan(7, "/r", &options);
//! assert_eq!((first.generator.as_str(), first.version, first.seed), (GENERATOR, VERSION, 7));
//! // 16 grep and 16 glob draws: at the seam when validation passes them,
//! // else asked of the flow (`flow/grep`, `flow/glob`); then step 9's
//! // corner calls (at most 2 grep, 3 glob and 1 read).
//! let searches = first.grep.len() + first.glob.len() + first.flow.len();
//! assert!((32..=32 + 5).contains(&searches));
//! assert!((16..=17).contains(&first.read.len()));
//! assert_eq!(first.ls.len(), 16);
//! // Every call's root is the plan root or the plan root plus "/…".
//! assert!(first.grep.iter().all(|call| call.root == "/r" || call.root.starts_with("/r/")));
//! // Same seed, same bytes.
//! assert_eq!(serde_json::to_string(&first)?, serde_json::to_string(&plan(7, "/r", &options))?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod content;
mod corners;
mod extras;
mod flow_calls;
mod flow_fixture;
mod gitignore;
mod layout;
mod search_calls;
mod tree;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::call::Call;
use crate::contract::{GlobInput, GlobRequest, GrepInput, GrepRequest};
use crate::kit::draws::Draws;
use crate::kit::plan::Plan;
use corners::corners;
use extras::{full_extras, skip_list_extras};
use flow_calls::{FlowContext, ls_call, read_call};
use flow_fixture::flow_fixture;
use gitignore::gitignores;
use layout::{generated_file, shape};
use search_calls::{CallContext, glob_call, grep_call};
use tree::Tree;

/// The name recorded in [`Plan::generator`].
pub const GENERATOR: &str = "lawsuite";

/// The version recorded in [`Plan::version`]. Bump it with any change to
/// the draw order, a weight table or a vocabulary (see the module doc), so
/// that a regression file is never replayed against a different tree.
pub const VERSION: u32 = 5;

/// The ground a plan covers: the peer seam's [`Ground`], re-exported here
/// because the generator is what it chooses between.
pub use crate::peer::Ground;

/// How big a plan to generate, and over which ground.
///
/// ```
/// use lawsuite::kit::lawsuite::{GeneratorOptions, Ground};
/// let options: GeneratorOptions = serde_json::from_str(r#"{"ground":"full"}"#)?;
/// assert_eq!(options, GeneratorOptions { files: 24, calls: 16, ground: Ground::Full });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GeneratorOptions {
    /// Generated files, before the extras (skip-list directories,
    /// `.gitignore` files, full-ground links…), which are added only when
    /// this is non-zero. A file whose drawn path is already taken is
    /// dropped, so a plan may hold fewer.
    pub files: usize,
    /// Grep calls, and separately glob calls.
    pub calls: usize,
    /// The ground to cover.
    pub ground: Ground,
}

impl Default for GeneratorOptions {
    /// 24 files, 16 calls of each kind, the shared ground.
    fn default() -> GeneratorOptions {
        GeneratorOptions {
            files: 24,
            calls: 16,
            ground: Ground::Shared,
        }
    }
}

/// Builds a plan for `seed`: the tree, then `options.calls` grep calls,
/// as many glob calls, then (version 2) the file-flow fixture and as many
/// `read` and `ls` calls, then (version 4) the corners (draw order in the
/// module doc).
///
/// Every call's `root` (or `path`) is `root` itself or `"{root}/{relative}"`
/// by plain concatenation (as in [`crate::kit::smthrs::plan`]), so a caller
/// can rebase a plan by replacing that prefix. The tree holds at most
/// `options.files` generated files plus extras: five skip-list entries,
/// three `.gitignore` files, on the full ground at most eleven links,
/// directories and unreadable entries, and at most 17 files of step 9's
/// corners; and the file-flow fixture under
/// `flows.fixture/node_modules/`, which grep and glob never see: at most
/// five files for `read`, a directory of at most 1,005 entries for `ls`,
/// and two links. Nothing here panics, whatever the options.
///
/// ```
/// use lawsuite::kit::lawsuite::{plan, GeneratorOptions};
/// use lawsuite::kit::materialize::TempTree;
///
/// let plan = plan(0, "/r", &GeneratorOptions::default());
/// let fixture = plan.files.iter().filter(|f| f.path.starts_with("flows.fixture/")).count();
/// assert!(plan.files.len() - fixture <= 24 + 5 + 3 + 17);
/// assert!(fixture <= 5 + 1 + 1005);
/// let tree = TempTree::with_files(&plan.files)?;
/// assert!(tree.path().join(".gitignore").is_file());
/// assert!(plan.ls.iter().all(|call| call.path.starts_with("/r")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan(seed: u64, root: &str, options: &GeneratorOptions) -> Plan {
    generate(seed, root, options).0
}

/// How many of a plan's calls step 9 added (they are the last of their
/// lists), for the tests that check steps 1–8's ranges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct CornerCalls {
    pub(super) grep: usize,
    pub(super) glob: usize,
    pub(super) read: usize,
    /// Greps refused by construction, asked of the flow (version 5).
    pub(super) flow: usize,
}

/// [`plan`], and how many of its calls are corners.
pub(super) fn generate(seed: u64, root: &str, options: &GeneratorOptions) -> (Plan, CornerCalls) {
    let mut draws = Draws::seeded(seed);
    let full = options.ground == Ground::Full;
    let mut tree = Tree::default();

    shape(&mut draws, &mut tree);
    for index in 0..options.files {
        generated_file(&mut draws, &mut tree, index, full);
    }
    if options.files > 0 {
        skip_list_extras(&mut draws, &mut tree);
        if full {
            full_extras(&mut draws, &mut tree);
        }
        gitignores(&mut draws, &mut tree, full);
    }

    let context = CallContext::new(&tree, root);
    // A drawn input that validation refuses goes to the flow (version 3):
    // the seam gets only validated input, as the contract promises a peer.
    // The draws are the same; only where a call goes changed.
    let mut flow = Vec::new();
    let mut grep = Vec::new();
    for _ in 0..options.calls {
        let input = grep_call(&mut draws, &context);
        match seam_or_flow_grep(input) {
            Ok(input) => grep.push(input),
            Err(call) => flow.push(*call),
        }
    }
    let mut glob = Vec::new();
    for _ in 0..options.calls {
        let input = glob_call(&mut draws, &context);
        match seam_or_flow_glob(input) {
            Ok(input) => glob.push(input),
            Err(call) => flow.push(*call),
        }
    }

    // Everything for the file flows is drawn after every grep and glob
    // draw, so those calls are the same for a seed as before they existed.
    let fixture = if options.files > 0 {
        flow_fixture(&mut draws, &mut tree, full)
    } else {
        Vec::new()
    };
    let flows = FlowContext::new(&context, &tree, fixture);
    let mut read: Vec<_> = (0..options.calls)
        .map(|_| read_call(&mut draws, &flows))
        .collect();
    let ls = (0..options.calls)
        .map(|_| ls_call(&mut draws, &flows))
        .collect();

    // Version 4: the corners, drawn last so every earlier draw is the same.
    // A plan asked for no files or no calls gets none.
    let mut added = CornerCalls::default();
    if options.files > 0 && options.calls > 0 {
        let corners = corners(&mut draws, &mut tree, root);
        added = CornerCalls {
            grep: corners.grep.len(),
            glob: corners.glob.len(),
            read: corners.read.len(),
            flow: corners.refused_grep.len(),
        };
        for input in corners.grep {
            match seam_or_flow_grep(input) {
                Ok(input) => grep.push(input),
                Err(call) => flow.push(*call),
            }
        }
        // Version 5: placed by construction, not by lawsuite's validation
        // (`corners`' module doc says why).
        added.grep += corners.accepted_grep.len();
        grep.extend(corners.accepted_grep);
        flow.extend(
            corners
                .refused_grep
                .iter()
                .map(|input| Call::FlowGrep(GrepRequest::from(input))),
        );
        for input in corners.glob {
            match seam_or_flow_glob(input) {
                Ok(input) => glob.push(input),
                Err(call) => flow.push(*call),
            }
        }
        read.extend(corners.read);
    }

    let plan = Plan {
        generator: GENERATOR.to_string(),
        version: VERSION,
        seed,
        ground: options.ground,
        root: root.to_string(),
        files: tree.entries,
        grep,
        glob,
        read,
        ls,
        flow,
    };
    (plan, added)
}

/// `input` normalised for the seam when validation passes it
/// (search-contract §3: the pattern, the globs, the numbers); else the same
/// call as a caller's request to the whole grep flow.
fn seam_or_flow_grep(input: GrepInput) -> Result<GrepInput, Box<Call>> {
    let request = GrepRequest::from(&input);
    // The seam gets what the flow would hand a peer: the normalised input.
    crate::contract::normalize_grep(&request).map_err(|_| Box::new(Call::FlowGrep(request)))
}

/// As [`seam_or_flow_grep`], for a glob call (search-contract §5).
fn seam_or_flow_glob(input: GlobInput) -> Result<GlobInput, Box<Call>> {
    let request = GlobRequest::from(&input);
    crate::contract::normalize_glob(&request).map_err(|_| Box::new(Call::FlowGlob(request)))
}
