//! The most an answer to a call may hold: [`Bounds`].
//!
//! A call's own input bounds its answer: a grep answers at most `limit`
//! matches (or files), each with at most `max(beforeContext, afterContext)`
//! context rows on either side (search-contract §13, §13.1, §14); a glob at
//! most `limit` paths (§6.3); the flows cap their limits at 200 matches and 1000 paths
//! or entries (§19, read-ls-flows §2). An answer past its bounds is itself
//! a contract violation, whatever else it says.
//!
//! The harness checks bounds before it keeps an answer: an external peer's
//! answer is counted straight from its response line, before anything is
//! built from it ([`Bounds::check_json`]), and an in-process peer's typed
//! answer before it becomes JSON ([`Bounds::check`]). So a peer answering a
//! million matches costs its line, not gigabytes, and says at once what
//! is wrong.
//!
//! ```
//! use lawsuite::call::{Bounds, Call};
//! use lawsuite::contract::GrepRequest;
//!
//! let call = Call::FlowGrep(GrepRequest {
//!     limit: Some(500),
//!     before_context: Some(1),
//!     after_context: Some(0),
//!     ..GrepRequest::new("x")
//! });
//! let bounds = call.bounds();
//! assert_eq!(bounds.items, 200); // the flow caps the limit at 200
//! // `x\n\nx\n`: row 2 is before-context of hit 3, but one line from both
//! // hits, so §13.1 gives it to the earlier one as `after`, past its
//! // afterContext of 0. One row a side is what §13.1 can hand a match.
//! let tie = r#"{"matches":[{"file":"a","line":1,"text":"x","before":[],"after":[{"line":2,"text":""}]}],"files":[],"filesSearched":1,"skippedBinary":0,"truncated":false}"#;
//! assert_eq!(bounds.check_json(tie), Ok(()));
//! let answer = r#"{"matches":[{"file":"a","line":2,"text":"x","before":[{"line":1,"text":""}],"after":[{"line":3,"text":""},{"line":4,"text":""}]}],"files":[],"filesSearched":1,"skippedBinary":0,"truncated":false}"#;
//! let err = bounds.check_json(answer).unwrap_err();
//! assert_eq!(err.to_string(), "answered match 1 with 2 after-context rows where §13.1 can give a match at most 1 (the larger of its beforeContext and afterContext)");
//! ```

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::contract::normalize::{glob_defaults, grep_defaults};
use crate::contract::{
    GlobInput, GlobRequest, GrepInput, GrepRequest, MAX_ENTRIES, MAX_GREP_MATCHES, Match,
};
use crate::flow::LsRequest;

/// The most one answer may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Entries of the answer's list: grep `matches` and `files`, glob
    /// `paths`, ls `entries`.
    pub items: u64,
    /// Context rows on one side of one match: `max(beforeContext,
    /// afterContext)`.
    ///
    /// Not `beforeContext` above and `afterContext` below: §13 collects a
    /// row within `B` lines before *some* kept match or `A` after one, and
    /// §13.1 then gives it to the *nearest* match (ties to the earlier), so
    /// a row collected as one match's before-context can be its neighbour's
    /// after-context (`x\n\nx`, `B = 1`, `A = 0`: row 2 is hit 1's `after`).
    /// What does hold: a row's owner is no farther from it than the match
    /// that collected it, which is at most `max(B, A)` lines away, and the
    /// rows on one side of a match are distinct lines all within that
    /// distance. So no answer the spec gives has more on either side, and
    /// a bound of `max(B, A)` a side refuses only answers the spec cannot
    /// give (pinned by `laws/grep/context-bounds.toml`).
    pub context: u64,
}

impl Bounds {
    /// No bound: `read` and `bash` answer text, capped by the protocol's
    /// line cap and checked by their laws.
    pub const NONE: Bounds = Bounds {
        items: u64::MAX,
        context: u64::MAX,
    };

    /// A seam grep: the input's limit and context.
    pub fn grep(input: &GrepInput) -> Bounds {
        Bounds {
            items: input.limit,
            context: input.before_context.max(input.after_context),
        }
    }

    /// The grep flow: the request's context, its limit capped at 200
    /// (search-contract §4). An invalid request answers an error, so its
    /// bounds never matter.
    pub fn flow_grep(request: &GrepRequest) -> Bounds {
        let input = grep_defaults(request);
        Bounds {
            items: input.limit.min(MAX_GREP_MATCHES),
            ..Bounds::grep(&input)
        }
    }

    /// A seam glob: the input's limit.
    pub fn glob(input: &GlobInput) -> Bounds {
        Bounds {
            items: input.limit,
            ..Bounds::NONE
        }
    }

    /// The glob flow: the request's limit capped at 1000 (§5).
    pub fn flow_glob(request: &GlobRequest) -> Bounds {
        Bounds {
            items: glob_defaults(request).limit.min(MAX_ENTRIES),
            ..Bounds::NONE
        }
    }

    /// `ls`: one page, at most 1000 entries (read-ls-flows §2).
    pub fn ls(_: &LsRequest) -> Bounds {
        Bounds {
            items: MAX_ENTRIES,
            ..Bounds::NONE
        }
    }

    /// Check a typed grep answer.
    pub fn check_grep(&self, matches: &[Match], files: &[String]) -> Result<(), Overrun> {
        self.check_items("matches", matches.len())?;
        self.check_items("files", files.len())?;
        for (i, m) in matches.iter().enumerate() {
            self.check_rows(i, Side::Before, m.before.len())?;
            self.check_rows(i, Side::After, m.after.len())?;
        }
        Ok(())
    }

    /// Check a typed answer's one list (`paths`, `entries`).
    pub fn check(&self, key: &str, len: usize) -> Result<(), Overrun> {
        self.check_items(key, len)
    }

    /// Check an answer's JSON text without building it: the lists are
    /// counted, every other value skipped. Text that is not an object is
    /// left to the answer's own decoding to refuse.
    pub fn check_json(&self, text: &str) -> Result<(), Overrun> {
        if *self == Bounds::NONE {
            return Ok(());
        }
        let found = Cell::new(None);
        let mut de = serde_json::Deserializer::from_str(text);
        match de.deserialize_map(Answer {
            bounds: self,
            found: &found,
        }) {
            Ok(()) => Ok(()),
            // Ours only: a bound was passed. Any other error is the
            // answer's decoding's to name.
            Err(_) => found.take().map_or(Ok(()), Err),
        }
    }

    fn check_items(&self, key: &str, len: usize) -> Result<(), Overrun> {
        if len as u64 > self.items {
            return Err(Overrun::Items {
                key: key.to_string(),
                len,
                most: self.items,
            });
        }
        Ok(())
    }

    fn check_rows(&self, index: usize, side: Side, len: usize) -> Result<(), Overrun> {
        let most = self.context;
        if len as u64 > most {
            return Err(Overrun::Rows {
                index,
                side,
                len,
                most,
            });
        }
        Ok(())
    }
}

/// An answer holding more than its call allows: a contract violation
/// whatever else it says. `Display` says what it held and what the call
/// allows.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Overrun {
    /// More entries in a list than the call's limit.
    Items {
        /// The list (`matches`, `files`, `paths`, `entries`).
        key: String,
        /// How many it held (counted up to one past the bound).
        len: usize,
        /// The most it may hold.
        most: u64,
    },
    /// More context rows on one side of a match than §13.1 can give.
    Rows {
        /// The match, 0-based.
        index: usize,
        /// Which side.
        side: Side,
        /// How many rows it held.
        len: usize,
        /// The most it may hold.
        most: u64,
    },
    /// More bytes than a correct answer on the tree can hold
    /// ([`crate::call::Budget`]).
    Bytes {
        /// How many it held.
        len: usize,
        /// The most it may hold.
        most: u64,
    },
}

impl fmt::Display for Overrun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Overrun::Items { key, len, most } => write!(
                f,
                "answered {len} {key} where the call allows at most {most} (its limit)"
            ),
            Overrun::Rows {
                index,
                side,
                len,
                most,
            } => write!(
                f,
                "answered match {} with {len} {side}-context rows where §13.1 can give a match at most {most} (the larger of its beforeContext and afterContext)",
                index + 1
            ),
            Overrun::Bytes { len, most } => write!(
                f,
                "answered {len} bytes where a correct answer to this call on this tree holds at most {most} (its limit times the tree's longest path, previews, context rows and symbols)"
            ),
        }
    }
}

impl std::error::Error for Overrun {}

/// A passed bound: kept in `found` for [`Bounds::check_json`] to return,
/// and a serde error that stops the reading.
fn passed<E: de::Error>(found: &Cell<Option<Overrun>>, why: Overrun) -> E {
    found.set(Some(why));
    E::custom("bound passed")
}

/// A side of a match's context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `before`.
    Before,
    /// `after`.
    After,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Before => "before",
            Side::After => "after",
        })
    }
}

/// The top-level answer object: its lists counted, the rest skipped.
struct Answer<'a> {
    bounds: &'a Bounds,
    found: &'a Cell<Option<Overrun>>,
}

impl<'de> Visitor<'de> for Answer<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an answer object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "matches" => map.next_value_seed(List {
                    bounds: self.bounds,
                    found: self.found,
                    key: "matches",
                    matches: true,
                })?,
                "files" | "paths" | "entries" => {
                    let key = match &*key {
                        "files" => "files",
                        "paths" => "paths",
                        _ => "entries",
                    };
                    map.next_value_seed(List {
                        bounds: self.bounds,
                        found: self.found,
                        key,
                        matches: false,
                    })?
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// One counted list; with `matches`, each element's context lists too.
struct List<'a> {
    bounds: &'a Bounds,
    found: &'a Cell<Option<Overrun>>,
    key: &'static str,
    matches: bool,
}

impl<'de> DeserializeSeed<'de> for List<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for List<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut len = 0usize;
        loop {
            let more = if self.matches {
                seq.next_element_seed(OneMatch {
                    bounds: self.bounds,
                    found: self.found,
                    index: len,
                })?
            } else {
                seq.next_element::<IgnoredAny>()?.map(|_| ())
            };
            if more.is_none() {
                return Ok(());
            }
            len += 1;
            // Said as soon as it is known: the rest is not read.
            self.bounds
                .check_items(self.key, len)
                .map_err(|why| passed(self.found, why))?;
        }
    }

    // Anything else is the answer's decoding's to refuse.
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::invalid_type(de::Unexpected::Map, &self))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// One match: its `before` and `after` counted.
struct OneMatch<'a> {
    bounds: &'a Bounds,
    found: &'a Cell<Option<Overrun>>,
    index: usize,
}

impl<'de> DeserializeSeed<'de> for OneMatch<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for OneMatch<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a match")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let side = match &*key {
                "before" => Side::Before,
                "after" => Side::After,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let rows = map.next_value::<Rows>()?.0;
            self.bounds
                .check_rows(self.index, side, rows)
                .map_err(|why| passed(self.found, why))?;
        }
        Ok(())
    }

    // Not a match: the answer's decoding says so.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// The length of a list of context rows (0 for anything that is not one).
struct Rows(usize);

impl<'de> serde::Deserialize<'de> for Rows {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rows, D::Error> {
        struct Count;
        impl<'de> Visitor<'de> for Count {
            type Value = Rows;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("context rows")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rows, A::Error> {
                let mut n = 0;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Rows(n))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Rows, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Rows(0))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Rows, E> {
                Ok(Rows(0))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Rows, E> {
                Ok(Rows(0))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Rows, E> {
                Ok(Rows(0))
            }
        }
        d.deserialize_any(Count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check's sentence when it refuses, for comparing with the
    /// expected text.
    trait Text {
        fn text(self) -> Option<String>;
    }

    impl Text for Result<(), Overrun> {
        fn text(self) -> Option<String> {
            self.err().map(|e| e.to_string())
        }
    }

    fn grep(limit: u64, before: u64, after: u64) -> Bounds {
        Bounds::grep(&GrepInput {
            limit,
            before_context: before,
            after_context: after,
            ..crate::contract::normalize::grep_defaults(&GrepRequest::new("x"))
        })
    }

    #[test]
    fn lists_past_their_bounds_are_named_and_the_rest_passes() {
        let b = grep(2, 0, 1);
        assert_eq!(
            b.check_json(r#"{"matches":[],"files":["a","b"]}"#).text(),
            None
        );
        assert_eq!(
            b.check_json(r#"{"files":["a","b","c"],"matches":[]}"#)
                .text(),
            Some("answered 3 files where the call allows at most 2 (its limit)".into())
        );
        // One row above a match with beforeContext 0 is what §13.1 gives
        // when afterContext 1 collected it for the match before.
        assert_eq!(
            b.check_json(r#"{"matches":[{"before":[{"line":1}],"after":[]}]}"#)
                .text(),
            None
        );
        assert_eq!(
            b.check_json(r#"{"matches":[{"before":[{"line":1},{"line":2}],"after":[]}]}"#).text(),
            Some("answered match 1 with 2 before-context rows where §13.1 can give a match at most 1 (the larger of its beforeContext and afterContext)".into())
        );
        assert_eq!(
            grep(2, 0, 0).check_json(r#"{"matches":[{"before":[],"after":[{"line":2}]}]}"#).text(),
            Some("answered match 1 with 1 after-context rows where §13.1 can give a match at most 0 (the larger of its beforeContext and afterContext)".into())
        );
        let glob = Bounds {
            items: 1,
            ..Bounds::NONE
        };
        assert!(
            glob.check_json(r#"{"paths":["a","b"],"total":2}"#)
                .text()
                .is_some()
        );
        assert_eq!(glob.check_json(r#"{"paths":["a"],"total":2}"#).text(), None);
    }

    /// Malformed answers are not this check's to refuse: the typed
    /// decoding names what is wrong with them.
    #[test]
    fn malformed_answers_pass_to_the_decoder() {
        let b = grep(5, 0, 0);
        for text in [
            "",
            "[]",
            "3",
            r#"{"matches":3}"#,
            r#"{"matches":[1,"x"]}"#,
            "{\"matches\":[",
        ] {
            assert_eq!(b.check_json(text).text(), None, "{text}");
        }
    }

    /// A million matches are refused after the limit's worth is read.
    #[test]
    fn a_huge_list_is_refused_without_reading_it_all() {
        let mut text = String::from(r#"{"matches":["#);
        for i in 0..100_000 {
            if i > 0 {
                text.push(',');
            }
            text.push_str(r#"{"file":"a","line":1,"text":"x","before":[],"after":[]}"#);
        }
        text.push_str("]}");
        let err = grep(200, 0, 0).check_json(&text).text().unwrap();
        assert_eq!(
            err,
            "answered 201 matches where the call allows at most 200 (its limit)"
        );
    }
}
