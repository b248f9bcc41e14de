//! STUB: §3, §5
use super::*;
/// §3.
pub fn normalize_grep(_r: &GrepRequest) -> Result<GrepInput, StdError> { todo!() }
/// §5.
pub fn normalize_glob(_r: &GlobRequest) -> Result<GlobInput, StdError> { todo!() }
