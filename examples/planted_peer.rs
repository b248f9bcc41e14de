//! A Rust peer with a planted bug, served over the peer protocol: what a
//! peer author's own implementation looks like to `lawsuite run`, `diff`,
//! `fuzz` and `record` once it is wrapped in [`lawsuite::protocol::serve`].
//!
//! ```sh
//! cargo build --example planted_peer
//! # peers.toml:
//! #   [[peer]]
//! #   name = "planted"
//! #   command = ["target/debug/examples/planted_peer", "rare"]
//! lawsuite run --registry peers.toml --peer planted
//! ```
//!
//! The peer is the reference with one thing changed, chosen by its first
//! argument:
//!
//! * `rare`: a grep with `maxCount`, `ignoreCase`, `afterContext` of 2 or
//!   more and `limit` 1 counts one file too many in `filesSearched`. No
//!   default seed asks such a call; lawsuite's generator asks one every few
//!   dozen seeds, so `lawsuite fuzz` finds it and the default seeds do not.
//! * `flaky`: every glob's `total` is one too high on about one call in
//!   four, drawn at random, so two askings of one call can differ
//!   (`lawsuite run --repeat N` calls such a trial flaky).
//! * `glob`: the walk of a glob never sees a file whose name holds a
//!   digit. One file with such a name shows it; from seed to seed it shows
//!   in different fields (`/paths` and `/total`; `/paths` items added and
//!   lost where a limit lets another path in; `/truncated`; a notice where
//!   nothing is left), and a campaign keeps it as one group, shrunk to one
//!   file.
//! * `honest`: nothing changed.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, BufReader};

use lawsuite::contract::glob::GlobList;
use lawsuite::contract::notice::glob_answer;
use lawsuite::portable::walk::{WalkOptions, walk};
use lawsuite::protocol::serve;
use lawsuite::testing::Altered;

fn main() -> io::Result<()> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "rare".into());
    let peer = match mode.as_str() {
        "rare" => Altered::new("planted-rare").on_grep(|input, answer| {
            let mut answer = answer?;
            if input.limit == 1
                && input.max_count.is_some()
                && input.ignore_case
                && input.after_context >= 2
            {
                answer.files_searched += 1;
            }
            Ok(answer)
        }),
        "flaky" => Altered::new("planted-flaky").on_glob(|_, answer| {
            let mut answer = answer?;
            // A fresh `RandomState` is seeded anew each call: a draw
            // without a dependency.
            if RandomState::new().build_hasher().finish().is_multiple_of(4) {
                answer.total += 1;
            }
            Ok(answer)
        }),
        "glob" => Altered::new("planted-glob").on_glob(|input, answer| {
            // The walk never sees a file whose name holds a digit: the
            // matches are listed again without them, then limited, counted
            // and given their notice as the contract says.
            answer?;
            let globs = GlobList::new(std::slice::from_ref(&input.pattern))?;
            let walked = walk(&WalkOptions {
                root: &input.root,
                hidden: input.hidden,
                no_ignore: input.no_ignore,
                globs: &globs,
            })?;
            let paths = walked
                .candidates
                .into_iter()
                .map(|c| c.path)
                .filter(|path| {
                    let name = path.rsplit('/').next().unwrap_or(path);
                    !name.bytes().any(|b| b.is_ascii_digit())
                })
                .collect();
            glob_answer(input, paths, || Ok(walked.ignored))
        }),
        "honest" => Altered::new("planted-honest"),
        other => {
            eprintln!("planted_peer: unknown mode {other:?}; give rare, flaky, glob or honest");
            std::process::exit(2);
        }
    };
    let stdin = io::stdin();
    serve(&peer, BufReader::new(stdin.lock()), io::stdout().lock())
}
