//! The front door: every law, regression and seed of this checkout's
//! project (`lawsuite.toml`: the peers of `peers/peers.toml`), one libtest
//! trial each, the reference (`portable`) judged by the laws too. See
//! `lawsuite::suite`.

use lawsuite::suite::Suite;

fn main() {
    // The reference is a subject here: this checkout keeps it conformant.
    Suite::from_project().judge_reference().run()
}
