//! STUB — to be replaced: decoding, lines, previews (§11).
/// §11.4.
pub fn preview(_line: &str) -> String {
    todo!()
}
/// §11.5.
pub fn source_lines(_bytes: &[u8]) -> Vec<String> {
    todo!()
}
/// §11.3.
pub fn line_text(_line: &str) -> &str {
    todo!()
}
