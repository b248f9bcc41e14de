//! Binary detection (search-contract §11.1, native-peer §2.2) without
//! `rg`: whether a file holds a NUL byte anywhere, read as a stream that
//! stops at the first one.
//!
//! native-peer §2.2 asks `rg --files-with-matches --text -- '\x00'`. Its
//! answer is exactly "the targets with a NUL anywhere", but `rg` searches
//! lines, and a line must be whole before a match in it is reported: a
//! sparse 5 GiB file (all NULs, no line end) took 8–22 s and 3.86 GB, then
//! failed the call at `rg`'s memory bound. No mode of `rg` 15 avoids that
//! (`--null-data` refuses the pattern, `-U` reads the whole file, both
//! measured on a 1 GiB sparse file at 1.7–2.1 GB). This scan gives the same
//! set: it reads until the first NUL or the end, as §11.1 says ("the whole
//! file is inspected... as it is streamed"), in a fixed 64 KiB buffer. A
//! sparse file's hole is found at its first byte of hole.
//!
//! A file that cannot be opened or read is not binary, as it is not for
//! `rg --no-messages`: §11.1 skips an unreadable file silently, and the
//! search invocation skips it the same way.

use std::io::{ErrorKind, Read};
use std::path::Path;

/// The read buffer: any size gives the same answer; 64 KiB is what `rg`
/// itself reads at a time.
const CHUNK: usize = 64 * 1024;

/// Whether the file at `path` holds a NUL byte (0x00) anywhere; `false`
/// when it cannot be opened or read, or is not a regular file.
pub(crate) fn has_nul(path: &Path) -> bool {
    // Not a FIFO that `open` would wait on for ever.
    let Ok(mut file) = crate::regular_file::open(path) else {
        return false;
    };
    let mut buf = vec![0u8; CHUNK];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return false,
            Ok(n) => {
                if memchr::memchr(0, &buf[..n]).is_some() {
                    return true;
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_anywhere_is_found_and_text_is_not_binary() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        assert!(!has_nul(&write("text", b"hello\nworld\n")));
        assert!(!has_nul(&write("empty", b"")));
        assert!(has_nul(&write("first", b"\0hello")));
        // After several buffers of text, and as the very last byte.
        let mut late = b"x\n".repeat(3 * CHUNK);
        late.push(0);
        assert!(has_nul(&write("late", &late)));
        // On a buffer's boundary.
        let mut edge = vec![b'a'; CHUNK - 1];
        edge.push(0);
        assert!(has_nul(&write("edge", &edge)));
        assert!(!has_nul(&dir.path().join("missing")));
    }
}
