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
    Suite::from_registry(&registry).run()
}
