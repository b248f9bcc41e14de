//! The per-file scan (search-contract §11 reading, §13 maxCount, context and
//! the boundary hit).
//!
//! A file is streamed through a buffer of complete lines; it is never loaded
//! whole just to search it. Lines that cannot match are skipped with the
//! matcher's buffer-level candidate search (the regex engine's own
//! accelerated search, or an inner literal prefilter where it has none, as
//! ripgrep does) and every candidate line is confirmed with the exact
//! per-line test on its bytes, so the candidate regex may over-approximate
//! but never decides an answer. As in `grep-searcher`, a line is decoded
//! (§11.2) only when it is kept, and lines are counted only up to a line
//! whose number is needed.
//!
//! One read may answer several questions ([`scan_path_each`]): the
//! portable peer asks a regex and its §18 literal retry of each file at
//! once.
//!
//! Memory is bounded by the budget: at most `cap` hits are kept, each with
//! its context rows, however many lines match; beyond that lines are only
//! counted. The bytes of the whole file are still inspected for NUL (§11.1:
//! a NUL after megabytes of text makes the file binary).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use memchr::{memchr, memrchr};

use crate::contract::Matcher;
use crate::contract::grouping::{Row, RowKind};
use crate::contract::text::{line_text, preview};

/// Bytes read per `read` call.
const CHUNK: usize = 64 * 1024;

/// What one file scan is asked.
#[derive(Debug)]
pub struct ScanConfig<'a> {
    /// The compiled pattern.
    pub matcher: &'a Matcher,
    /// `beforeContext`.
    pub before: u64,
    /// `afterContext`.
    pub after: u64,
    /// `maxCount`, per file.
    pub max_count: Option<u64>,
    /// How many hits to keep with their context (`remaining + 1`, §13;
    /// 0 keeps none and only counts).
    pub cap: u64,
    /// Stop counting at the first hit (`filesWithMatches` needs only `count > 0`).
    pub first_only: bool,
}

/// The outcome of scanning one candidate.
#[derive(Debug, PartialEq, Eq)]
pub enum FileScan {
    /// Could not be opened or read: counts in `filesSearched` only (§11.1).
    Unreadable,
    /// Holds a NUL byte: counts in `skippedBinary` (§11.1).
    Binary,
    /// A text file: its match count (≤ `maxCount`) and kept rows, sorted by line.
    Text {
        /// Matching lines counted (§13 step 1).
        count: u64,
        /// Kept hits and context rows, ascending by line.
        rows: Vec<Row>,
    },
}

/// Scan the file at `path`.
pub fn scan_path(path: &Path, config: &ScanConfig<'_>) -> FileScan {
    one(scan_path_each(path, &[config]))
}

/// Scan the file at `path` for each of `configs`, reading it once: the
/// answers, in the order of `configs`, are each what [`scan_path`] answers
/// for that config alone.
///
/// The portable peer searches a regex and its literal retry (§18) this way
/// ([`crate::flow::search::WithLiteral`]): a search of a real tree is
/// mostly the kernel's work of reading it, so a second read was a second
/// search's cost.
pub fn scan_path_each(path: &Path, configs: &[&ScanConfig<'_>]) -> Vec<FileScan> {
    #[cfg(test)]
    OPENED.with(|opened| opened.set(opened.get() + 1));
    let Ok(file) = File::open(path) else {
        return configs.iter().map(|_| FileScan::Unreadable).collect();
    };
    match scan_reader_each(file, configs) {
        Ok(scans) => scans,
        // §11.1: a streaming read that fails before any byte arrived is
        // retried once as a whole-file read; never combine two reads.
        Err(ReadFailure { bytes_seen: 0 }) => match std::fs::read(path) {
            Ok(bytes) => scan_reader_each(&bytes[..], configs)
                .unwrap_or_else(|_| configs.iter().map(|_| FileScan::Unreadable).collect()),
            Err(_) => configs.iter().map(|_| FileScan::Unreadable).collect(),
        },
        Err(_) => configs.iter().map(|_| FileScan::Unreadable).collect(),
    }
}

#[cfg(test)]
thread_local! {
    /// Files this thread opened to scan them, for tests that count reads
    /// of a tree without timing them (a one-thread search scans on the
    /// caller's thread).
    pub(crate) static OPENED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The one answer of a scan asked one question.
fn one(mut scans: Vec<FileScan>) -> FileScan {
    scans.pop().unwrap_or(FileScan::Unreadable)
}

/// A read error, and how many bytes had arrived before it.
#[derive(Debug)]
pub struct ReadFailure {
    /// Bytes read before the failure.
    pub bytes_seen: u64,
}

/// Scan any byte stream (the file body) with the rules of §11 and §13.
pub fn scan_reader<R: Read>(reader: R, config: &ScanConfig<'_>) -> Result<FileScan, ReadFailure> {
    scan_reader_each(reader, &[config]).map(one)
}

/// [`scan_reader`] for each of `configs`, over one read of the stream (as
/// [`scan_path_each`]).
pub fn scan_reader_each<R: Read>(
    reader: R,
    configs: &[&ScanConfig<'_>],
) -> Result<Vec<FileScan>, ReadFailure> {
    // One buffer per scanning thread: allocating and zero-filling a fresh
    // 64 KiB buffer per file cost more than searching a small file (the
    // M-tree benchmark: 20,000 files, 80 MB).
    thread_local! {
        static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    let work = &mut Work::default();
    BUFFER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            let result = scan_with(&mut buf, reader, configs, work);
            if buf.len() > 4 * CHUNK {
                // A file with a huge line grew it; do not keep that memory.
                *buf = Vec::new();
            }
            result
        }
        Err(_) => scan_with(&mut Vec::new(), reader, configs, work),
    })
}

/// What a scan did, for tests that bound its work without timing it.
#[derive(Debug, Default)]
struct Work {
    /// Bytes handed to the search for a line end that closes a region.
    // Only tests read it; counting costs one addition per 64 KiB read.
    #[cfg_attr(not(test), allow(dead_code))]
    newline_searched: u64,
    /// Bytes whose line ends were counted, over every question.
    #[cfg_attr(not(test), allow(dead_code))]
    newline_counted: u64,
}

fn scan_with<R: Read>(
    buf: &mut Vec<u8>,
    mut reader: R,
    configs: &[&ScanConfig<'_>],
    work: &mut Work,
) -> Result<Vec<FileScan>, ReadFailure> {
    let mut states: Vec<Scanner<'_, '_>> = configs.iter().map(|c| Scanner::new(c)).collect();
    let mut filled = 0usize; // bytes of `buf` holding file data
    let mut scan_from = 0usize; // start of the first unprocessed line in `buf`
    let mut bytes_seen = 0u64;
    let mut first_region = true;
    // `buf[scan_from..no_newline_until]` is known to hold no line end.
    let mut no_newline_until = 0usize;
    loop {
        if buf.len() < filled + CHUNK {
            buf.resize(filled + CHUNK, 0);
        }
        let n = loop {
            match reader.read(&mut buf[filled..filled + CHUNK]) {
                Ok(n) => break n,
                // (No law reaches a read that fails after a successful
                // open of a regular file, so mutating this arm survives the
                // laws: see docs/mutants.md.)
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(ReadFailure { bytes_seen }),
            }
        };
        let fresh = filled..filled + n;
        filled += n;
        bytes_seen += n as u64;
        let eof = n == 0;
        if memchr(0, &buf[fresh]).is_some() {
            return Ok(configs.iter().map(|_| FileScan::Binary).collect());
        }
        if states.iter().all(Scanner::done) {
            // Only the NUL check is left for the rest of the file.
            filled = 0;
            scan_from = 0;
            no_newline_until = 0;
            if eof {
                break;
            }
            continue;
        }
        if !eof && filled - scan_from < CHUNK {
            // Read on before searching: a file smaller than a chunk (most
            // of a source tree) is then one region, ending at the end of
            // the file, whose lines need not be counted unless one is
            // looked at (on the cargo registry's sources, counting every
            // file's lines was 2.6 % of the CPU time of a rare literal).
            // Where regions end changes the work, never the answer (the
            // laws pin that), so mutating this test is equivalent.
            continue;
        }
        let region_end = if eof {
            filled
        } else {
            // Only the bytes not searched yet can hold a line end: what was
            // kept from earlier regions is the part after the last one.
            // Searching the whole buffer again made a long line quadratic
            // (128 MB on one line: 78 s).
            let unsearched = no_newline_until..filled;
            no_newline_until = filled;
            work.newline_searched += unsearched.len() as u64;
            match memrchr(b'\n', &buf[unsearched.clone()]) {
                Some(i) => unsearched.start + i + 1,
                None => continue, // a line longer than the buffer: read more
            }
        };
        if first_region && region_end > scan_from {
            // §11.2: a leading UTF-8 BOM is not part of line 1.
            if buf[scan_from..region_end].starts_with(b"\xEF\xBB\xBF") {
                scan_from += 3;
            }
            first_region = false;
        }
        let region = &buf[scan_from..region_end];
        // Region boundaries sit after a `\n`, and no UTF-8 sequence contains
        // that byte, so decoding region by region (or line by line) never
        // splits a scalar. A matcher with a raw-safe literal set searches
        // the bytes as they are, and only the lines it looks at are decoded
        // (validating every region was 5 % of the CPU time of a rare
        // literal on the cargo registry's sources). The region is decoded
        // at most once, for the scanners that need it.
        let mut decoded: Option<Cow<'_, [u8]>> = None;
        for state in states.iter_mut().filter(|s| !s.done()) {
            if state.config.matcher.searches_raw_bytes() {
                state.region(region, eof);
            } else {
                let text = decoded.get_or_insert_with(|| match std::str::from_utf8(region) {
                    Ok(_) => Cow::Borrowed(region),
                    Err(_) => Cow::Owned(String::from_utf8_lossy(region).into_owned().into_bytes()),
                });
                state.region(text, eof);
            }
        }
        if eof {
            break;
        }
        buf.copy_within(region_end..filled, 0);
        filled -= region_end;
        scan_from = 0;
        no_newline_until = filled;
    }
    work.newline_counted += states.iter().map(|s| s.newline_counted).sum::<u64>();
    Ok(states.into_iter().map(Scanner::finish).collect())
}

/// One line of a region, decoded (§11.2: invalid sequences become U+FFFD).
fn decode(line: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(line)
}

/// A line's bytes without its terminator (§11.3): the `\n`, and one `\r`
/// before it.
fn line_bytes(line: &[u8]) -> &[u8] {
    match line.strip_suffix(b"\n") {
        Some(body) => body.strip_suffix(b"\r").unwrap_or(body),
        None => line,
    }
}

/// The per-file state of §13 step 1.
///
/// Lines are counted lazily, as `grep-searcher` counts them: only up to a
/// line whose number is needed (a kept hit, a context row, the end of a
/// region that more of the file follows), never up to a candidate line
/// that turns out not to match. (A one-byte literal's candidates, counted
/// each, were part of what made it cost 33 % more than a strong literal,
/// issue 47.)
struct Scanner<'c, 'a> {
    config: &'c ScanConfig<'a>,
    /// The number of the line starting at `counted` in the current region.
    line: u64,
    /// Where in the current region `line` was counted up to: a line start.
    /// Between a jump to a candidate line and its confirmation as a kept
    /// hit, the lines in between are not counted yet.
    counted: usize,
    count: u64,
    kept: u64,
    rows: Vec<Row>,
    /// The last line number already stored as a row (0 = none).
    last_row: u64,
    /// Lines up to this number are after-context of a kept hit.
    after_until: u64,
    /// Previews of the last `before` lines of earlier regions, for
    /// before-context that crosses a region boundary.
    tail: VecDeque<(u64, String)>,
    /// Bytes counted for line ends ([`Work`]).
    newline_counted: u64,
}

impl<'c, 'a> Scanner<'c, 'a> {
    fn new(config: &'c ScanConfig<'a>) -> Self {
        Scanner {
            config,
            line: 1,
            counted: 0,
            count: 0,
            kept: 0,
            rows: Vec::new(),
            last_row: 0,
            after_until: 0,
            tail: VecDeque::new(),
            newline_counted: 0,
        }
    }

    /// May another line still be a hit? (§13: after `M` hits no line is even tested.)
    fn counting(&self) -> bool {
        if self.config.first_only && self.count > 0 {
            return false;
        }
        self.config.max_count.is_none_or(|m| self.count < m)
    }

    fn collecting(&self) -> bool {
        self.kept < self.config.cap
    }

    /// Nothing left to learn from the text (the NUL check goes on).
    ///
    /// (`line` may lag behind the lines looked at, but only past
    /// `after_until`: it stops being counted on a jump to a candidate,
    /// which is taken only there, and `after_until` moves only at a kept
    /// hit, where it is counted again. So this and the after-context test
    /// of [`Scanner::region`] read the same with the lagging value.)
    fn done(&self) -> bool {
        !self.counting() && self.line > self.after_until
    }

    fn finish(self) -> FileScan {
        FileScan::Text {
            count: self.count,
            rows: self.rows,
        }
    }

    /// Count the lines of `text` up to `at` (a line start at or after
    /// `counted`).
    fn count_to(&mut self, text: &[u8], at: usize) {
        self.line += count_newlines(&text[self.counted..at]);
        self.newline_counted += (at - self.counted) as u64;
        self.counted = at;
    }

    /// Process a run of complete lines (the last one may be unterminated at
    /// the end of the file). `text` is UTF-8 unless the matcher
    /// [searches raw bytes](Matcher::searches_raw_bytes); a candidate line
    /// is confirmed on its bytes ([`Matcher::is_match_bytes`]) and decoded
    /// only when kept. `last`: the file ends with this region, so the line
    /// count past its last hit is never needed.
    fn region(&mut self, text: &[u8], last: bool) {
        // The previous region was counted to its end.
        let region_first = self.line;
        self.counted = 0;
        let mut pos = 0;
        while pos < text.len() {
            if self.line > self.after_until {
                if !self.counting() {
                    // No hit and no context can follow; skip the rest.
                    break;
                }
                // Jump to the next candidate line.
                match self.config.matcher.find_line_candidate(text, pos) {
                    None => break,
                    Some(at) => {
                        let at = at.min(text.len());
                        pos = memrchr(b'\n', &text[pos..at]).map_or(pos, |i| pos + i + 1);
                        if pos == text.len() {
                            // An empty match after the final `\n` is not a line.
                            break;
                        }
                    }
                }
            }
            let end = memchr(b'\n', &text[pos..]).map_or(text.len(), |i| pos + i + 1);
            self.line_at(text, region_first, pos, end);
            pos = end;
        }
        if !last {
            self.count_to(text, text.len());
            self.remember_tail(text, region_first);
        }
    }

    /// Decide one line: hit, context, or nothing (§13 step 1).
    fn line_at(&mut self, text: &[u8], region_first: u64, start: usize, end: usize) {
        let bytes = line_bytes(&text[start..end]);
        let hit = self.counting() && self.config.matcher.is_match_bytes(bytes);
        if hit {
            self.count += 1;
            if self.collecting() {
                self.count_to(text, start);
                self.before_context(text, region_first, start);
                self.push(RowKind::Match, bytes);
                self.kept += 1;
                self.after_until = self.line.saturating_add(self.config.after);
                self.line += 1;
                self.counted = end;
                return;
            }
        }
        // Counted up to here only when the line follows a counted one (after
        // a kept hit): the only lines that can be context.
        if self.counted != start {
            return;
        }
        // A hit past the cap is counted, not kept, so near a kept hit it is
        // context like any other line (§13 step 1).
        if self.line <= self.after_until && self.line > self.last_row {
            self.push(RowKind::Context, bytes);
        }
        self.line += 1;
        self.counted = end;
    }

    /// Keep line `self.line`, whose text (without terminator) is `bytes`,
    /// decoded (§11.2) and cut to its preview (§11.4).
    fn push(&mut self, kind: RowKind, bytes: &[u8]) {
        self.rows.push(Row {
            line: self.line,
            text: preview(&decode(bytes)),
            kind,
        });
        self.last_row = self.line;
    }

    /// Store the up-to-`before` lines above the hit at `start` that are not
    /// rows yet, taking older ones from the remembered tail.
    fn before_context(&mut self, text: &[u8], region_first: u64, start: usize) {
        let first_wanted = self
            .line
            .saturating_sub(self.config.before)
            .max(self.last_row + 1)
            .max(1);
        if first_wanted >= self.line {
            return;
        }
        let mut found: Vec<(u64, String)> = Vec::new();
        let mut line_end = start; // exclusive end (after `\n`) of the line above
        let mut number = self.line;
        while number > first_wanted && number > region_first {
            number -= 1;
            let above_end = line_end - 1; // the `\n` ending line `number`
            let line_start = memrchr(b'\n', &text[..above_end]).map_or(0, |i| i + 1);
            let line = decode(&text[line_start..line_end]);
            found.push((number, preview(line_text(&line))));
            line_end = line_start;
        }
        // Lines above this region come from the tail of the previous ones.
        for (n, t) in self.tail.iter().rev() {
            if *n < first_wanted {
                break;
            }
            if *n < number {
                found.push((*n, t.clone()));
            }
        }
        found.sort_by_key(|(n, _)| *n);
        for (line, text) in found {
            self.rows.push(Row {
                line,
                text,
                kind: RowKind::Context,
            });
        }
    }

    /// Keep previews of the last `before` lines of this region for a hit at
    /// the top of the next one. Costs nothing without before-context.
    ///
    /// The early return and the trimming below only save work and memory:
    /// a tail kept when no hit is collected, or longer than `before`, is
    /// never read past its last `before` lines (`before_context` picks rows
    /// by line number), so mutating either is equivalent (docs/mutants.md).
    fn remember_tail(&mut self, text: &[u8], region_first: u64) {
        if self.config.before == 0 || !self.collecting() || text.is_empty() {
            return;
        }
        let want = usize::try_from(self.config.before).unwrap_or(usize::MAX);
        let mut fresh: Vec<(u64, String)> = Vec::new();
        let mut line_end = text.len();
        let mut number = self.line;
        while number > region_first && fresh.len() < want {
            number -= 1;
            let content_end = if text[line_end - 1] == b'\n' {
                line_end - 1
            } else {
                line_end
            };
            let line_start = memrchr(b'\n', &text[..content_end]).map_or(0, |i| i + 1);
            let line = decode(&text[line_start..line_end]);
            fresh.push((number, preview(line_text(&line))));
            line_end = line_start;
        }
        for item in fresh.into_iter().rev() {
            self.tail.push_back(item);
        }
        while self.tail.len() > want {
            self.tail.pop_front();
        }
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::text::{decode_lossy, lines};
    use proptest::prelude::*;

    /// A reader handing out at most `step` bytes per call, so regions are
    /// tiny and every cross-region path (before-context from the tail,
    /// BOM split across reads) is exercised.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// §13 step 1 written the obvious way, over the whole decoded text.
    fn reference(text: &[u8], config: &ScanConfig<'_>) -> FileScan {
        if text.contains(&0) {
            return FileScan::Binary;
        }
        let decoded = decode_lossy(text);
        let all: Vec<&str> = lines(&decoded).collect();
        let mut count = 0u64;
        let mut kept: Vec<usize> = Vec::new();
        let mut is_hit = vec![false; all.len()];
        for (i, line) in all.iter().enumerate() {
            let counting =
                !(config.first_only && count > 0) && config.max_count.is_none_or(|m| count < m);
            if counting && config.matcher.is_match(line) {
                count += 1;
                if (kept.len() as u64) < config.cap {
                    kept.push(i);
                    is_hit[i] = true;
                }
            }
        }
        let mut rows = Vec::new();
        for (i, line) in all.iter().enumerate() {
            let n = i as u64 + 1;
            let kind = if is_hit[i] {
                RowKind::Match
            } else if kept.iter().any(|&k| {
                let k = k as u64 + 1;
                (n < k && k - n <= config.before) || (n > k && n - k <= config.after)
            }) {
                RowKind::Context
            } else {
                continue;
            };
            rows.push(Row {
                line: n,
                text: preview(line),
                kind,
            });
        }
        FileScan::Text { count, rows }
    }

    fn body() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![
            Just(&b"needle"[..]),
            Just(&b"hay"[..]),
            Just(&b""[..]),
            Just(&b"a needle\r"[..]),
            Just(&b"\xff needle"[..]),
            Just(&b"x\ry"[..]),
        ];
        (
            proptest::collection::vec((line, any::<bool>()), 0..24),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(lines, bom, final_nl)| {
                let mut out = Vec::new();
                if bom {
                    out.extend_from_slice(b"\xEF\xBB\xBF");
                }
                let n = lines.len();
                for (i, (l, crlf)) in lines.into_iter().enumerate() {
                    out.extend_from_slice(l);
                    if i + 1 < n || final_nl {
                        out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                    }
                }
                out
            })
    }

    proptest! {
        #[test]
        fn streaming_scan_equals_the_obvious_one(
            text in body(),
            step in 1usize..9,
            before in 0u64..4,
            after in 0u64..4,
            max_count in proptest::option::of(1u64..4),
            cap in 0u64..5,
            first_only: bool,
            // `^[^h] needle` matches the U+FFFD that stands for `\xff`;
            // the classes with no literal search raw bytes.
            pattern in prop_oneof![
                Just("needle"), Just("^needle$"), Just(""), Just("y$"), Just("e.$"),
                Just("^[^h] needle"), Just("[a-z]{6}"), Just("^[a-z]+$"), Just("[x-z]$"),
            ],
        ) {
            let matcher = Matcher::new(pattern, false, false).unwrap();
            let config = ScanConfig { matcher: &matcher, before, after, max_count, cap, first_only };
            let streamed = scan_reader(Trickle { data: &text, step }, &config).unwrap();
            prop_assert_eq!(streamed, reference(&text, &config));
        }
    }

    proptest! {
        /// One read for two questions (the portable peer's regex and its
        /// §18 literal) answers each as a scan of its own does, whichever
        /// is done first (a `maxCount`, `filesWithMatches`).
        #[test]
        fn one_read_answers_each_question_as_its_own_scan(
            text in body(),
            step in 1usize..9,
            before in 0u64..3,
            after in 0u64..3,
            max_count in proptest::option::of(1u64..3),
            caps in (0u64..4, 0u64..4),
            first_only: (bool, bool),
            patterns in (0usize..6, 0usize..6),
        ) {
            // (pattern, fixedStrings): regexes, searched raw or decoded,
            // and literals with metacharacters.
            const PATTERNS: [(&str, bool); 6] = [
                ("needle", false), ("e.$", false), ("[a-z]{6}", false),
                ("a needle", true), ("e.", true), ("^[^h] needle", false),
            ];
            let matcher = |i: usize| Matcher::new(PATTERNS[i].0, PATTERNS[i].1, false).unwrap();
            let (a, b) = (matcher(patterns.0), matcher(patterns.1));
            let config = |matcher, cap, first_only| ScanConfig { matcher, before, after, max_count, cap, first_only };
            let (a, b) = (config(&a, caps.0, first_only.0), config(&b, caps.1, first_only.1));
            let both = scan_reader_each(Trickle { data: &text, step }, &[&a, &b]).unwrap();
            let alone = [&a, &b].map(|c| scan_reader(Trickle { data: &text, step }, c).unwrap());
            prop_assert_eq!(both, Vec::from(alone));
        }
    }

    /// A 16 MiB line read 64 KiB at a time: each byte is searched for a
    /// line end once. Searching the whole buffer again after every read (as
    /// the scan once did) examined 2 GiB here, and 128 MiB took 78 s.
    #[test]
    fn a_long_line_is_searched_for_its_end_once() {
        let mut text = vec![b'x'; 16 << 20];
        text.extend_from_slice(b" needle\nnext\n");
        let matcher = Matcher::new("needle", false, false).unwrap();
        let config = ScanConfig {
            matcher: &matcher,
            before: 0,
            after: 1,
            max_count: None,
            cap: 1,
            first_only: false,
        };
        let mut work = Work::default();
        let reader = Trickle {
            data: &text,
            step: CHUNK,
        };
        let FileScan::Text { count, rows } =
            one(scan_with(&mut Vec::new(), reader, &[&config], &mut work).unwrap())
        else {
            panic!("not text");
        };
        assert_eq!(count, 1);
        assert_eq!(rows.len(), 2);
        assert!(
            work.newline_searched <= text.len() as u64,
            "{} bytes searched for a line end in a {}-byte file",
            work.newline_searched,
            text.len()
        );
    }

    /// Lines are counted only up to a line whose number is needed: a file
    /// whose candidate lines all fail to match counts none. (The scan used
    /// to count up to every candidate: here every line is one, as the
    /// case-insensitive `[a-z]+_resume` has no accelerated strategy in
    /// `meta` and is searched by its inner literal.)
    #[test]
    fn lines_are_counted_only_up_to_a_kept_line() {
        let matcher = Matcher::new("[a-z]+_resume", false, true).unwrap();
        let config = |cap| ScanConfig {
            matcher: &matcher,
            before: 0,
            after: 0,
            max_count: None,
            cap,
            first_only: false,
        };
        // Candidates (the literal, no letter before it) between lines that
        // are none.
        let misses = "filler\n _resume\n".repeat(1000);
        let mut work = Work::default();
        let scan =
            one(scan_with(&mut Vec::new(), misses.as_bytes(), &[&config(1)], &mut work).unwrap());
        assert_eq!(
            scan,
            FileScan::Text {
                count: 0,
                rows: vec![]
            }
        );
        assert_eq!(work.newline_counted, 0);
        // A hit on the last line counts the lines above it, once.
        let text = format!("{misses}x_resume\n");
        let mut work = Work::default();
        let FileScan::Text { count, rows } =
            one(scan_with(&mut Vec::new(), text.as_bytes(), &[&config(1)], &mut work).unwrap())
        else {
            panic!("not text");
        };
        assert_eq!((count, rows[0].line), (1, 2001));
        assert_eq!(work.newline_counted, misses.len() as u64);
    }

    #[test]
    fn nul_after_megabytes_makes_the_file_binary() {
        let mut text = "needle\n".repeat(200_000).into_bytes();
        text.push(0);
        let matcher = Matcher::new("needle", false, false).unwrap();
        let config = ScanConfig {
            matcher: &matcher,
            before: 0,
            after: 0,
            max_count: Some(1),
            cap: 1,
            first_only: false,
        };
        assert_eq!(scan_reader(&text[..], &config).unwrap(), FileScan::Binary);
    }

    #[test]
    fn a_million_hits_are_counted_not_stored() {
        let text = "needle\n".repeat(1_000_000);
        let matcher = Matcher::new("needle", false, false).unwrap();
        let config = ScanConfig {
            matcher: &matcher,
            before: 1,
            after: 1,
            max_count: None,
            cap: 3,
            first_only: false,
        };
        let FileScan::Text { count, rows } = scan_reader(text.as_bytes(), &config).unwrap() else {
            panic!("not text");
        };
        assert_eq!(count, 1_000_000);
        // Three kept hits, then line 4: a hit past the cap, kept as the
        // after-context of hit 3 and nothing more.
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[3].kind, RowKind::Context);
    }
}
