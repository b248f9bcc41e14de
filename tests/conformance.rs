//! The front door: every law, regression and seed of this checkout's
//! project (`lawsuite.toml`: the peers of `peers/peers.toml`), one libtest
//! trial each. See `lawsuite::suite`.

use lawsuite::suite::Suite;

fn main() {
    Suite::from_project().run()
}
