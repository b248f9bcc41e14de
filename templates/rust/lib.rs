//! Your search. lawsuite never sees this file: tests/conformance.rs calls
//! into it through the contract's seam.
