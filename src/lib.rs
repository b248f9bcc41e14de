//! lawsuite: a conformance-first harness for the Smithers Ripgrep Subset v1.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

pub mod contract;
pub mod flow;
pub mod kit;
pub mod peer;
pub mod portable;
pub mod protocol;
pub mod registry;
pub mod ripgrep;
pub mod suite;
