//! The lines of a results file, one at a time, in memory that does not
//! grow with the line or the file.
//!
//! A line is held whole up to [`LINE_BUFFER`] bytes and parsed where it
//! lies; a longer one is parsed from the stream as it is read, never held
//! (one 300 MB line cost `diff` 930 MB when lines were read whole, then
//! parsed to a `Value`, then to an outcome). Each reader keeps of a line
//! only what it needs: its type picks the shape (a run line, an outcome
//! as the caller's `O`, a peer stopped, the summary), a trial id is kept
//! as its [`Key`] where only its identity matters, and a string a report
//! only shows is kept as a [`Cut`]. What a shape does not name is skipped
//! without being held.

use std::cell::RefCell;
use std::fmt;
use std::hash::{BuildHasher, RandomState};
use std::io::{self, BufRead, Read};
use std::marker::PhantomData;
use std::sync::OnceLock;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::conformance::Summary;
use crate::conformance::verdict::CASE_VALUE_BYTES;
use crate::report::RunInfo;

/// How many bytes of one line are held whole and parsed where they lie:
/// 1 MiB. A longer line is parsed from the stream as it is read. Lines
/// lawsuite writes are far shorter (a failing outcome's report keeps
/// [`CASE_VALUE_BYTES`] of each value), so this is a size of a read, not
/// a bound: a line of any length is read, the same either side of it.
pub const LINE_BUFFER: usize = 1 << 20;

/// How many bytes of one string of a results file a reader keeps when
/// it only shows it (a reason, a report's text): [`CASE_VALUE_BYTES`],
/// as the run itself keeps of an answer. A longer string is kept as its
/// head and tail around how many bytes were left out
/// ([`crate::kit::report::cut`]), never whole.
pub const KEPT_STRING: usize = CASE_VALUE_BYTES;

/// `text` as a reader keeps it: whole up to [`KEPT_STRING`] bytes.
pub(crate) fn kept(text: &str) -> String {
    crate::kit::report::cut(text, KEPT_STRING * 3 / 4, KEPT_STRING / 4).into_owned()
}

/// A trial id's identity, 128 bits of it: two SipHash-1-3 values under
/// keys drawn once per process. Different ids share a key with odds
/// under 10^-25 for ten million trials, so keys stand for ids in the
/// indexes that find a trial twice or match two runs' trials, which then
/// hold 16 bytes a trial whatever its id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Key(pub(crate) [u64; 2]);

impl Key {
    /// The key of `id`.
    pub(crate) fn of(id: &str) -> Key {
        static STATES: OnceLock<[RandomState; 2]> = OnceLock::new();
        let [a, b] = STATES.get_or_init(|| [RandomState::new(), RandomState::new()]);
        Key([a.hash_one(id), b.hash_one(id)])
    }
}

/// Visits one string and makes something of it, without holding it.
struct StrVisitor<T>(fn(&str) -> T, &'static str);

impl<T> Visitor<'_> for StrVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.1)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok((self.0)(v))
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        d.deserialize_str(StrVisitor(Key::of, "a trial id"))
    }
}

/// A string a reader only shows: whole up to [`KEPT_STRING`] bytes, else
/// [`kept`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cut(pub(crate) String);

impl<'de> Deserialize<'de> for Cut {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cut, D::Error> {
        d.deserialize_str(StrVisitor(|s| Cut(kept(s)), "a string"))
    }
}

/// A trial id with its key, and as a report shows it ([`Cut`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Id {
    pub(crate) key: Key,
    pub(crate) shown: String,
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        d.deserialize_str(StrVisitor(
            |s| Id {
                key: Key::of(s),
                shown: kept(s),
            },
            "a trial id",
        ))
    }
}

/// A verdict's tag, as an outcome line spells it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Tag {
    #[default]
    Pass,
    Fail,
    ExpectedFailure,
    UnexpectedPass,
    Skipped,
    Broken,
    Flaky,
}

impl Tag {
    /// Every tag, by its number ([`Tag::number`]).
    pub(crate) const ALL: [Tag; 7] = [
        Tag::Pass,
        Tag::Fail,
        Tag::ExpectedFailure,
        Tag::UnexpectedPass,
        Tag::Skipped,
        Tag::Broken,
        Tag::Flaky,
    ];

    /// As [`crate::conformance::Verdict::tag`] says it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tag::Pass => "pass",
            Tag::Fail => "fail",
            Tag::ExpectedFailure => "expected_failure",
            Tag::UnexpectedPass => "unexpected_pass",
            Tag::Skipped => "skipped",
            Tag::Broken => "broken",
            Tag::Flaky => "flaky",
        }
    }

    /// Whether it fails a run ([`crate::conformance::Verdict::is_failure`]).
    pub(crate) fn is_failure(self) -> bool {
        matches!(
            self,
            Tag::Fail | Tag::UnexpectedPass | Tag::Broken | Tag::Flaky
        )
    }

    /// Its number, 0 to 6, for packed indexes.
    pub(crate) fn number(self) -> u8 {
        self as u8
    }

    /// The tag of `number` ([`Tag::number`]).
    pub(crate) fn from_number(number: u8) -> Tag {
        Tag::ALL[usize::from(number) % Tag::ALL.len()]
    }
}

/// A `peerStopped` line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct Stopped {
    #[serde(default)]
    pub(crate) peer: String,
    #[serde(default)]
    pub(crate) at: String,
    #[serde(default)]
    pub(crate) why: String,
}

/// The summary line: the counts, and how the run ended.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct SummaryLine {
    #[serde(flatten)]
    pub(crate) summary: Summary,
    #[serde(default)]
    pub(crate) complete: Option<bool>,
    #[serde(default)]
    pub(crate) incomplete: Option<String>,
}

/// One line, by its type, its outcome kept as `O`.
#[derive(Debug)]
pub(crate) enum Line<O> {
    Run(Box<RunInfo>),
    Outcome(O),
    Stopped(Stopped),
    Summary(Box<SummaryLine>),
    /// A type no results file has (`None`: no `type`, or not a string).
    Unknown(Option<String>),
}

/// Why a line is not a results line.
#[derive(Debug)]
pub(crate) enum Fault {
    /// It could not be read.
    Io(io::Error),
    /// It is not JSON, or it ends before its JSON does.
    Syntax(serde_json::Error),
    /// It is JSON, but not a line of `ty`.
    Data {
        ty: Option<String>,
        err: serde_json::Error,
    },
}

/// One line read: its number, whether a line end closed it, its length in
/// bytes (line end aside), and what it is.
#[derive(Debug)]
pub(crate) struct Got<O> {
    pub(crate) n: u64,
    pub(crate) whole: bool,
    pub(crate) bytes: u64,
    pub(crate) got: Result<Line<O>, Fault>,
}

/// Parses a line by its type: the type first, as lawsuite writes it, then
/// the rest as the type's shape, read as it comes; a line whose `type` is
/// not its first key is held as a `Value` first.
struct LineSeed<'a, O> {
    ty: &'a RefCell<Option<String>>,
    outcome: PhantomData<O>,
}

impl<'de, O: DeserializeOwned> DeserializeSeed<'de> for LineSeed<'_, O> {
    type Value = Line<O>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Line<O>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, O: DeserializeOwned> Visitor<'de> for LineSeed<'_, O> {
    type Value = Line<O>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object with a \"type\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line<O>, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Line::Unknown(None));
        };
        if first == "type" {
            let Value::String(ty) = map.next_value::<Value>()? else {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                return Ok(Line::Unknown(None));
            };
            *self.ty.borrow_mut() = Some(ty.clone());
            return dispatch(&ty, MapAccessDeserializer::new(map));
        }
        let mut rest = serde_json::Map::new();
        rest.insert(first, map.next_value()?);
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            rest.insert(key, value);
        }
        let Some(ty) = rest.get("type").and_then(Value::as_str).map(str::to_string) else {
            return Ok(Line::Unknown(None));
        };
        *self.ty.borrow_mut() = Some(ty.clone());
        dispatch(&ty, Value::Object(rest)).map_err(de::Error::custom)
    }
}

fn dispatch<'de, O: DeserializeOwned, D: Deserializer<'de>>(
    ty: &str,
    d: D,
) -> Result<Line<O>, D::Error> {
    Ok(match ty {
        "run" => Line::Run(Box::new(RunInfo::deserialize(d)?)),
        "outcome" => Line::Outcome(O::deserialize(d)?),
        "peerStopped" => Line::Stopped(Stopped::deserialize(d)?),
        "summary" => Line::Summary(Box::new(SummaryLine::deserialize(d)?)),
        other => {
            IgnoredAny::deserialize(d)?;
            Line::Unknown(Some(other.to_string()))
        }
    })
}

/// The lines of a results file, read from `input`.
#[derive(Debug)]
pub(crate) struct Lines<R> {
    input: R,
    n: u64,
    held: Vec<u8>,
    /// Bytes read so far.
    pub(crate) offset: u64,
}

/// How much of a line is held.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Held {
    /// All of it; its line end is read.
    Whole,
    /// All of it, the last line, with no line end.
    Last,
    /// Its first [`LINE_BUFFER`] bytes; the rest is still to read.
    Head,
}

impl<R: BufRead> Lines<R> {
    /// The lines of `input`, from its start.
    pub(crate) fn new(input: R) -> Lines<R> {
        Lines {
            input,
            n: 0,
            held: Vec::new(),
            offset: 0,
        }
    }

    /// The next line that is not blank, its outcome kept as `O`; `None`
    /// at the end.
    pub(crate) fn next<O: DeserializeOwned>(&mut self) -> Option<Got<O>> {
        loop {
            self.n += 1;
            let held = match self.hold() {
                Ok(Some(held)) => held,
                Ok(None) => return None,
                Err(e) => {
                    return Some(Got {
                        n: self.n,
                        whole: true,
                        bytes: self.held.len() as u64,
                        got: Err(Fault::Io(e)),
                    });
                }
            };
            let read = self.parse(held);
            match &read {
                Some(_) => return read,
                // A blank line.
                None => continue,
            }
        }
    }

    /// Hold the next line, or its head.
    fn hold(&mut self) -> io::Result<Option<Held>> {
        self.held.clear();
        loop {
            let available = self.input.fill_buf()?;
            if available.is_empty() {
                return Ok((!self.held.is_empty()).then_some(Held::Last));
            }
            let room = LINE_BUFFER - self.held.len();
            let window = &available[..available.len().min(room)];
            if let Some(end) = memchr::memchr(b'\n', window) {
                self.held.extend_from_slice(&window[..end]);
                self.input.consume(end + 1);
                self.offset += end as u64 + 1;
                return Ok(Some(Held::Whole));
            }
            let taken = window.len();
            self.held.extend_from_slice(window);
            self.input.consume(taken);
            self.offset += taken as u64;
            if self.held.len() == LINE_BUFFER {
                return Ok(Some(Held::Head));
            }
        }
    }

    /// Parse the held line (and, for a long one, the rest of it as it is
    /// read); `None` for a blank line.
    fn parse<O: DeserializeOwned>(&mut self, held: Held) -> Option<Got<O>> {
        let ty = RefCell::new(None);
        let seed = LineSeed::<O> {
            ty: &ty,
            outcome: PhantomData,
        };
        let blank = self.held.iter().all(u8::is_ascii_whitespace);
        if held != Held::Head {
            if blank {
                return None;
            }
            let mut de = serde_json::Deserializer::from_slice(&self.held);
            let got = seed.deserialize(&mut de).and_then(|l| de.end().map(|()| l));
            return Some(Got {
                n: self.n,
                whole: held == Held::Whole,
                bytes: self.held.len() as u64,
                got: got.map_err(|e| fault(e, ty.into_inner())),
            });
        }
        let Lines {
            input,
            held,
            offset,
            ..
        } = self;
        let mut rest = Rest {
            input,
            run: 0,
            end: End::Open,
            bytes: 0,
            blank,
        };
        let got = {
            let stream = io::Cursor::new(&held[..]).chain(&mut rest);
            let mut de = serde_json::Deserializer::from_reader(stream);
            seed.deserialize(&mut de).and_then(|l| de.end().map(|()| l))
        };
        let drained = rest.drain();
        *offset += rest.bytes;
        let whole = rest.end == End::Newline;
        let got = match drained {
            Err(e) => Err(Fault::Io(e)),
            // All of it spaces, read as it came.
            Ok(()) if rest.blank => return None,
            Ok(()) => got.map_err(|e| fault(e, ty.into_inner())),
        };
        Some(Got {
            n: self.n,
            whole,
            bytes: held.len() as u64 + rest.bytes - u64::from(whole),
            got,
        })
    }
}

fn fault(err: serde_json::Error, ty: Option<String>) -> Fault {
    use serde_json::error::Category;
    match err.classify() {
        Category::Io => Fault::Io(err.into()),
        Category::Syntax | Category::Eof => Fault::Syntax(err),
        Category::Data => Fault::Data { ty, err },
    }
}

/// Where the rest of a long line stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Open,
    Newline,
    Eof,
}

/// The rest of a long line as a reader: up to its line end, which it
/// consumes and does not give.
struct Rest<'a, R> {
    input: &'a mut R,
    /// Bytes at the front of `input`'s buffer known to hold no line end.
    run: usize,
    end: End,
    /// Bytes consumed, the line end included.
    bytes: u64,
    /// No byte but white space so far.
    blank: bool,
}

impl<R: BufRead> Read for Rest<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.end != End::Open || out.is_empty() {
            return Ok(0);
        }
        // `serde_json` reads a byte at a time: the line end is looked for
        // once per buffer, not once per byte.
        if self.run == 0 {
            let available = self.input.fill_buf()?;
            match memchr::memchr(b'\n', available) {
                _ if available.is_empty() => {
                    self.end = End::Eof;
                    return Ok(0);
                }
                Some(0) => {
                    self.input.consume(1);
                    self.bytes += 1;
                    self.end = End::Newline;
                    return Ok(0);
                }
                Some(end) => self.run = end,
                None => self.run = available.len(),
            }
        }
        let available = self.input.fill_buf()?;
        let n = out.len().min(self.run).min(available.len());
        out[..n].copy_from_slice(&available[..n]);
        if self.blank {
            self.blank = available[..n].iter().all(u8::is_ascii_whitespace);
        }
        self.input.consume(n);
        self.run -= n;
        self.bytes += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> Rest<'_, R> {
    /// Read to the line's end, whatever a parse left.
    fn drain(&mut self) -> io::Result<()> {
        let mut sink = [0u8; 8192];
        while self.read(&mut sink)? > 0 {}
        Ok(())
    }
}

/// A value of a results line as a report shows it: every string kept as
/// [`Cut`] keeps it, so an outcome with a 300 MB reason costs what one
/// with a 16 KiB reason does.
pub(crate) struct CutValue;

impl<'de> DeserializeSeed<'de> for CutValue {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CutValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(kept(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(CutValue)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(Cut(key)) = map.next_key::<Cut>()? {
            out.insert(key, map.next_value_seed(CutValue)?);
        }
        Ok(Value::Object(out))
    }
}

/// An outcome as a report shows it: its strings kept as [`Cut`] keeps
/// them.
#[derive(Clone, Debug)]
pub(crate) struct CutOutcome(pub(crate) crate::conformance::Outcome);

impl<'de> Deserialize<'de> for CutOutcome {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CutOutcome, D::Error> {
        let value = CutValue.deserialize(d)?;
        crate::conformance::Outcome::deserialize(value)
            .map(CutOutcome)
            .map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Head {
        id: Id,
        verdict: Tag,
    }

    fn lines(text: &[u8]) -> Vec<Got<Head>> {
        let mut lines = Lines::new(io::BufReader::with_capacity(64, text));
        std::iter::from_fn(|| lines.next::<Head>()).collect()
    }

    fn outcome(id: &str, why: &str) -> String {
        format!(
            r#"{{"type":"outcome","id":"{id}","item":"x","kind":"law","verdict":"broken","why":"{why}","seconds":0.1}}"#
        )
    }

    /// A line of `LINE_BUFFER` - 1, `LINE_BUFFER` and `LINE_BUFFER` + 1
    /// bytes and one of 8 MiB read the same: held, or read as they come.
    #[test]
    fn a_line_reads_the_same_either_side_of_the_buffer() {
        let short = outcome("law::a::p", "");
        for len in [
            LINE_BUFFER - 1,
            LINE_BUFFER,
            LINE_BUFFER + 1,
            8 * LINE_BUFFER,
        ] {
            let why = "w".repeat(len - short.len());
            let line = outcome("law::a::p", &why);
            assert_eq!(line.len(), len);
            let text = format!("{line}\n\n  \n{short}\n{line}");
            let read = lines(text.as_bytes());
            assert_eq!(read.len(), 3, "{len}");
            assert_eq!(
                read.iter()
                    .map(|r| (r.n, r.whole, r.bytes))
                    .collect::<Vec<_>>(),
                [
                    (1, true, len as u64),
                    (4, true, short.len() as u64),
                    (5, false, len as u64)
                ],
                "{len}"
            );
            for r in &read {
                let Ok(Line::Outcome(head)) = &r.got else {
                    panic!("{len}: {:?}", r.got);
                };
                assert_eq!(
                    (head.id.key, head.verdict),
                    (Key::of("law::a::p"), Tag::Broken)
                );
            }
        }
    }

    /// A long line cut off mid-way, trailing characters, a type that is
    /// not first, and lines that are not results lines.
    #[test]
    fn faults_are_told_apart() {
        let long = outcome("law::a::p", &"w".repeat(2 * LINE_BUFFER));
        let cut = &long[..long.len() - 10];
        let read = lines(cut.as_bytes());
        assert!(!read[0].whole && matches!(read[0].got, Err(Fault::Syntax(_))));
        let read = lines(format!("{long} x\n").as_bytes());
        assert!(read[0].whole && matches!(read[0].got, Err(Fault::Syntax(_))));
        let late = r#"{"id":"law::a::p","verdict":"pass","type":"outcome"}"#;
        let read = lines(format!("{late}\n").as_bytes());
        assert!(
            matches!(read[0].got, Ok(Line::Outcome(_))),
            "{:?}",
            read[0].got
        );
        let read = lines(b"{\"type\":\"outcome\",\"id\":3}\n{\"type\":\"elsewhere\"}\n[1]\n");
        assert!(
            matches!(&read[0].got, Err(Fault::Data { ty: Some(t), .. }) if t == "outcome"),
            "{:?}",
            read[0].got
        );
        assert!(matches!(&read[1].got, Ok(Line::Unknown(Some(t))) if t == "elsewhere"));
        assert!(matches!(&read[2].got, Err(Fault::Data { ty: None, .. })));
    }

    /// What a report keeps of a string past `KEPT_STRING`: its head and
    /// tail, and how many bytes it left out.
    #[test]
    fn a_cut_outcome_keeps_a_bounded_excerpt() {
        let line = outcome("law::a::p", &"w".repeat(3 * LINE_BUFFER));
        let mut lines = Lines::new(io::BufReader::new(line.as_bytes()));
        let Some(Got {
            got: Ok(Line::Outcome(CutOutcome(o))),
            ..
        }) = lines.next::<CutOutcome>()
        else {
            panic!("not an outcome");
        };
        let crate::conformance::Verdict::Broken { why } = &o.verdict else {
            panic!("{:?}", o.verdict);
        };
        assert!(why.len() <= KEPT_STRING + 40, "{}", why.len());
        assert!(why.contains(&format!(
            "[{} bytes left out]",
            3 * LINE_BUFFER - KEPT_STRING
        )));
    }
}
