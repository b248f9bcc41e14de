//! Newline-framed JSON, both sides of the protocol: one message a line,
//! `\n`-terminated, no line longer than a cap ([`MAX_LINE_BYTES`] unless a
//! peer's configuration tightens it).
//!
//! The cap rule lives in one place, [`CappedLine`]: it sees the input as
//! the chunks a buffered reader holds (`fill_buf`, then `consume` what it
//! says) and does no I/O itself, so the server's blocking reads
//! ([`read_line`], over [`std::io::BufRead`]) and the client's async ones
//! ([`read_line_async`], over tokio's `AsyncBufRead`, feature `external`)
//! are the same rule. A line over the cap is never held in memory whole.
//!
//! [`MAX_LINE_BYTES`]: super::MAX_LINE_BYTES

use std::io::{self, BufRead, Write};

use serde::Serialize;
#[cfg(feature = "external")]
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// How a line read ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Line {
    /// A whole line: its bytes are in the buffer, its `\n` is consumed
    /// and not kept.
    Complete,
    /// The input ended inside a line: its bytes are in the buffer, with
    /// no `\n` after them.
    Unterminated,
    /// The input ended where a line would start.
    Eof,
    /// The line is longer than the cap; none of it is kept.
    TooLong,
}

/// What is done with the rest of a line over the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Overlong {
    /// Leave it unread and report at once: the client kills the peer that
    /// wrote it anyway, and a peer writing without end is not waited for.
    Stop,
    /// Read it to its `\n` (or the end) and drop it, so that the next line
    /// can be read: the server answers the line with an error and serves
    /// on.
    Skip,
}

/// One line being read under a cap: what a read keeps between the chunks
/// of a buffered reader.
#[derive(Debug)]
pub(super) struct CappedLine {
    cap: usize,
    overlong: Overlong,
    /// The line has passed the cap.
    over: bool,
}

impl CappedLine {
    /// A line of at most `cap` bytes (its `\n` not counted).
    pub(super) fn new(cap: usize, overlong: Overlong) -> CappedLine {
        CappedLine {
            cap,
            overlong,
            over: false,
        }
    }

    /// Take the line's part of `chunk`, what the reader holds now (empty at
    /// the end of the input), into `line`. Returns how many bytes to
    /// consume, and how the line ended if it did.
    pub(super) fn feed(&mut self, chunk: &[u8], line: &mut Vec<u8>) -> (usize, Option<Line>) {
        if chunk.is_empty() {
            let end = if self.over {
                Line::TooLong
            } else if line.is_empty() {
                Line::Eof
            } else {
                Line::Unterminated
            };
            return (0, Some(end));
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (at, true),
            None => (chunk.len(), false),
        };
        if !self.over && line.len() + take <= self.cap {
            line.extend_from_slice(&chunk[..take]);
        } else {
            self.over = true;
            line.clear();
            if self.overlong == Overlong::Stop {
                return (0, Some(Line::TooLong));
            }
        }
        let used = if done { take + 1 } else { take };
        let end = match (done, self.over) {
            (false, _) => None,
            (true, false) => Some(Line::Complete),
            (true, true) => Some(Line::TooLong),
        };
        (used, end)
    }
}

/// Read one line into `line` (which the caller clears), blocking.
pub(super) fn read_line<R: BufRead>(
    input: &mut R,
    line: &mut Vec<u8>,
    mut capped: CappedLine,
) -> io::Result<Line> {
    loop {
        let (used, end) = capped.feed(input.fill_buf()?, line);
        input.consume(used);
        if let Some(end) = end {
            return Ok(end);
        }
    }
}

/// Read one line into `line` (which the caller clears), async.
#[cfg(feature = "external")]
pub(super) async fn read_line_async<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    mut capped: CappedLine,
) -> io::Result<Line> {
    loop {
        let (used, end) = capped.feed(input.fill_buf().await?, line);
        input.consume(used);
        if let Some(end) = end {
            return Ok(end);
        }
    }
}

/// `message` as one line: its JSON and a `\n`.
pub(super) fn encode<T: Serialize>(message: &T) -> serde_json::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    Ok(line)
}

/// Write `message` as one line and flush it.
pub(super) fn write_line<W: Write, T: Serialize>(output: &mut W, message: &T) -> io::Result<()> {
    let bytes = encode(message).map_err(io::Error::other)?;
    output.write_all(&bytes)?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `input` read through chunks of `chunk` bytes, under
    /// `cap`, with what each holds.
    fn lines(input: &[u8], chunk: usize, cap: usize, overlong: Overlong) -> Vec<(Line, String)> {
        let mut reader = io::BufReader::with_capacity(chunk, input);
        let mut out = Vec::new();
        loop {
            let mut line = Vec::new();
            let end = read_line(&mut reader, &mut line, CappedLine::new(cap, overlong))
                .expect("in-memory reads do not fail");
            out.push((end, String::from_utf8(line).unwrap()));
            if matches!(end, Line::Eof | Line::Unterminated)
                || (end == Line::TooLong && overlong == Overlong::Stop)
            {
                return out;
            }
        }
    }

    fn complete(text: &str) -> (Line, String) {
        (Line::Complete, text.to_string())
    }

    #[test]
    fn a_line_at_the_cap_is_whole_and_one_byte_over_is_too_long() {
        for chunk in [1, 2, 3, 64] {
            for overlong in [Overlong::Stop, Overlong::Skip] {
                assert_eq!(
                    lines(b"abcd\nok\n", chunk, 4, overlong),
                    [complete("abcd"), complete("ok"), (Line::Eof, String::new())],
                    "chunks of {chunk}"
                );
                let over = lines(b"abcde\nok\n", chunk, 4, overlong);
                assert_eq!(over[0], (Line::TooLong, String::new()), "chunks of {chunk}");
                if overlong == Overlong::Skip {
                    // The rest of the long line is skipped, the next one read.
                    assert_eq!(over[1..], [complete("ok"), (Line::Eof, String::new())]);
                } else {
                    assert_eq!(over.len(), 1);
                }
            }
        }
    }

    #[test]
    fn a_line_split_over_chunks_is_read_whole() {
        let input = b"{\"a\":1}\n\n{\"b\":[2,3]}\n";
        for chunk in 1..=input.len() {
            assert_eq!(
                lines(input, chunk, 64, Overlong::Skip),
                [
                    complete("{\"a\":1}"),
                    complete(""),
                    complete("{\"b\":[2,3]}"),
                    (Line::Eof, String::new())
                ],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn the_end_inside_a_line_is_unterminated_or_too_long() {
        assert_eq!(
            lines(b"ok\nlast", 3, 8, Overlong::Stop),
            [complete("ok"), (Line::Unterminated, "last".to_string())]
        );
        assert_eq!(
            lines(b"", 3, 8, Overlong::Stop),
            [(Line::Eof, String::new())]
        );
        // Skipped to the end of the input: still too long, not a line.
        assert_eq!(
            lines(b"0123456789", 3, 4, Overlong::Skip)[0],
            (Line::TooLong, String::new())
        );
    }

    #[test]
    fn stop_consumes_nothing_of_the_chunk_that_passes_the_cap() {
        let mut capped = CappedLine::new(4, Overlong::Stop);
        let mut line = Vec::new();
        assert_eq!(capped.feed(b"abc", &mut line), (3, None));
        assert_eq!(capped.feed(b"de\n", &mut line), (0, Some(Line::TooLong)));
        let mut capped = CappedLine::new(4, Overlong::Skip);
        let mut line = Vec::new();
        assert_eq!(capped.feed(b"abc", &mut line), (3, None));
        assert_eq!(capped.feed(b"de", &mut line), (2, None));
        assert_eq!(capped.feed(b"f\nx", &mut line), (2, Some(Line::TooLong)));
        assert!(line.is_empty());
    }

    #[cfg(feature = "external")]
    #[test]
    fn the_async_reader_follows_the_same_rule() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut input = tokio::io::BufReader::with_capacity(2, &b"abcd\nabcde\n"[..]);
            let mut line = Vec::new();
            let at_cap = CappedLine::new(4, Overlong::Stop);
            let end = read_line_async(&mut input, &mut line, at_cap).await;
            assert_eq!(
                (end.unwrap(), line.as_slice()),
                (Line::Complete, &b"abcd"[..])
            );
            line.clear();
            let over = CappedLine::new(4, Overlong::Stop);
            let end = read_line_async(&mut input, &mut line, over).await;
            assert_eq!(end.unwrap(), Line::TooLong);
        });
    }
}
