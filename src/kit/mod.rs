//! The conformance kit (`conformance-kit.md`): reproducible plans of
//! generated trees and calls, and the code that writes those trees to disk.
//!
//! A differential run has three steps. A *generator* turns a seed into a
//! [`plan::Plan`]: a small file tree plus a list of normalised `grep` and
//! `glob` inputs. [`materialize`] writes the tree under a fresh directory.
//! Then every call runs through two peers and any answer that is not
//! byte-identical is a divergence (§4, in its own module).
//!
//! | module | spec section |
//! | --- | --- |
//! | [`plan`] | §1: `GeneratedFile`, `Plan` and the plan options |
//! | [`generator`] | the `lawsuite` generator, the default: a much wider ground (deep and odd names, skip-list dirs, nested `.gitignore`s, binaries, preview edges, a pattern and glob grammar; on the full ground CRLF, invalid UTF-8, symlinks, unreadable dirs) on ChaCha8 |
//! | [`smthrs`] | §2: the TypeScript kit's generator (mulberry32, vocabularies, draw order), reproduced draw for draw |
//! | [`materialize`] | §3: writing a plan's files under a root, refusing paths that would escape it; [`materialize::TempTree`] |
//!
//! The `smthrs` generator is a port, not a reinterpretation: a seed must
//! give the same tree and calls as `@smthrs/std`'s `plan`, so that a
//! divergence found on one side can be replayed on the other by its seed
//! alone. The `lawsuite` generator owes nothing to the TypeScript kit; it
//! is reproducible on its own terms (ChaCha8, integer draws, a documented
//! draw order and a version bumped with it).

pub mod generator;
pub mod materialize;
pub mod plan;
pub mod smthrs;
