//! The front door: every regression and seed (and law) of the peers in
//! `peers/peers.toml`, one libtest trial each. See `lawsuite::suite`.

use lawsuite::registry::Registry;
use lawsuite::suite::Suite;

fn main() {
    let registry = match Registry::load(&Registry::default_path()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let suite = Suite::from_registry(&registry);
    // The suite holds its own handles; dropping these lets external peer
    // processes be shut down before the test binary exits.
    drop(registry);
    suite.run()
}
