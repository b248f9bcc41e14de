//! What a peer process wrote on stderr, bounded: its first and its last
//! bytes, with how much was left out between them.
//!
//! Runtimes put the reason of a crash in different places: V8 and the JVM
//! print the error first and a long stack after it, Python prints the
//! traceback first and the reason last, and a chatty peer may log for
//! minutes before it dies. Keeping only the end (or only the start) drops
//! the reason for one of them; keeping both keeps it for all of them, in a
//! fixed amount of memory however much a peer writes.

use std::collections::VecDeque;

/// The head and the tail of a byte stream, `cap` bytes in all.
#[derive(Debug, Default)]
pub(crate) struct HeadTail {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    /// Bytes seen past the head, the tail's included.
    after_head: u64,
    cap: usize,
}

impl HeadTail {
    /// Keep at most `cap` bytes: the first half and the last half.
    pub(crate) fn new(cap: usize) -> HeadTail {
        HeadTail {
            cap,
            ..HeadTail::default()
        }
    }

    fn head_cap(&self) -> usize {
        self.cap / 2
    }

    fn tail_cap(&self) -> usize {
        self.cap - self.head_cap()
    }

    /// Take the next chunk of the stream.
    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        let room = self.head_cap().saturating_sub(self.head.len());
        let into_head = room.min(chunk.len());
        self.head.extend_from_slice(&chunk[..into_head]);
        chunk = &chunk[into_head..];
        self.after_head += chunk.len() as u64;
        let cap = self.tail_cap();
        let chunk = &chunk[chunk.len().saturating_sub(cap)..];
        let overflow = (self.tail.len() + chunk.len()).saturating_sub(cap);
        self.tail.drain(..overflow.min(self.tail.len()));
        self.tail.extend(chunk);
    }

    /// The text (lossy UTF-8): the whole stream when it fit, else the head,
    /// `… K bytes elided …` and the tail, each cut at a character boundary
    /// so no half character turns into a replacement character.
    pub(crate) fn text(&self) -> String {
        let (a, b) = self.tail.as_slices();
        let tail = [a, b].concat();
        let elided = self.after_head - tail.len() as u64;
        if elided == 0 {
            return String::from_utf8_lossy(&[self.head.as_slice(), &tail].concat()).into_owned();
        }
        let head = &self.head[..char_start_before(&self.head, self.head.len())];
        let skip = tail
            .iter()
            .take_while(|b| is_continuation(**b))
            .count()
            .min(3);
        let tail = &tail[skip..];
        let elided = elided + (self.head.len() - head.len()) as u64 + skip as u64;
        format!(
            "{}\n… {elided} bytes elided …\n{}",
            String::from_utf8_lossy(head),
            String::from_utf8_lossy(tail)
        )
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0b1100_0000 == 0b1000_0000
}

/// The end of `bytes[..end]` backed off to before a character that is not
/// whole there (at most 3 bytes back: a UTF-8 character is at most 4).
fn char_start_before(bytes: &[u8], end: usize) -> usize {
    let mut start = end;
    // Step back over continuation bytes to the lead byte, if any.
    while start > 0 && end - start < 3 && is_continuation(bytes[start - 1]) {
        start -= 1;
    }
    let Some(&lead) = start.checked_sub(1).and_then(|i| bytes.get(i)) else {
        return end;
    };
    let width = match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        // Not a lead byte: not text; leave it to the lossy decoding.
        _ => return end,
    };
    if end - (start - 1) < width {
        start - 1
    } else {
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_stream_is_kept_whole() {
        let mut t = HeadTail::new(10);
        t.push(b"abc");
        t.push(b"defg");
        assert_eq!(t.text(), "abcdefg");
        t.push(b"hij");
        assert_eq!(t.text(), "abcdefghij");
    }

    #[test]
    fn a_long_stream_keeps_its_start_and_its_end() {
        let mut t = HeadTail::new(20);
        t.push(b"Error: the reason first\n");
        for _ in 0..1000 {
            t.push(b"    at a frame\n");
        }
        t.push(b"the reason last");
        let text = t.text();
        assert!(text.starts_with("Error: the\n…"), "{text}");
        assert!(text.ends_with("…\neason last"), "{text}");
        // 24 + 15000 + 15 bytes in, 20 kept.
        assert!(text.contains("\n… 15019 bytes elided …\n"), "{text}");
    }

    #[test]
    fn cuts_fall_between_characters() {
        // "é" is 2 bytes, "€" 3: neither half may show as U+FFFD.
        let mut t = HeadTail::new(8);
        t.push("aaaé".as_bytes()); // head: "aaa" + half of é
        t.push(&[b'x'; 50]);
        t.push("€yz".as_bytes()); // tail: the last 4 bytes, half of €
        let text = t.text();
        assert!(!text.contains('\u{fffd}'), "{text:?}");
        assert!(text.starts_with("aaa\n…"), "{text:?}");
        assert!(text.ends_with("…\nyz"), "{text:?}");
        // Every byte is either shown or counted.
        let shown = "aaa".len() + "yz".len();
        let total = "aaaé".len() + 50 + "€yz".len();
        assert!(
            text.contains(&format!("… {} bytes elided …", total - shown)),
            "{text:?}"
        );
    }
}
