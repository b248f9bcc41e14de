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
//! | [`smthrs`] | §2: the TypeScript kit's generator (mulberry32, vocabularies, draw order), reproduced draw for draw |
//! | [`materialize`] | §3: writing a plan's files under a root, refusing paths that would escape it; [`materialize::TempTree`] |
//! | [`case`] | §4: one call, answers rendered for comparison (failures by code) |
//! | [`compare`] | §4: a plan through N peers, divergences |
//! | [`report`] | §5: human (diff + replay command) and JSON reports |
//! | [`shrink`] | reducing a divergence to a minimal tree and call |
//! | [`regression`] | `fixtures/regressions/*.json`: recorded, replayed |
//!
//! The generator is a port, not a reinterpretation: a seed must give the
//! same tree and calls as `@smthrs/std`'s `plan`, so that a divergence found
//! on one side can be replayed on the other by its seed alone.

pub mod case;
pub mod compare;
pub mod materialize;
pub mod plan;
pub mod regression;
pub mod report;
pub mod shrink;
pub mod smthrs;
