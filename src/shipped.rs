//! The data lawsuite ships inside the library: the laws (`laws/`) and the
//! expected failures of its built-in peers (`peers/expected/`), compiled in
//! by `build.rs` so they travel with an installed binary or a dependency
//! on lawsuite (by path or git), whatever directory it runs from.
//!
//! ```
//! let laws = lawsuite::shipped::laws();
//! assert!(laws.iter().any(|(path, _)| *path == "grep/context.toml"));
//! ```

include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

/// The shipped law files: `(path under laws/, text)`, sorted by path.
pub fn laws() -> &'static [(&'static str, &'static str)] {
    LAWS
}

/// The shipped tables of the built-in peers' known differences (read by
/// [`crate::differences`]): `(path under peers/expected/, text)`, sorted
/// by path.
pub fn expected() -> &'static [(&'static str, &'static str)] {
    EXPECTED
}
