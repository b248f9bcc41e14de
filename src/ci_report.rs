//! Reports for CI from one `lawsuite run`: JUnit XML (one suite per peer)
//! and a Markdown summary per peer (laws passed / failed / expected
//! failures / skipped, seeds and divergences).

use std::fmt::Write;

use lawsuite::kit::compare::Divergence;
use serde_json::Value;

/// What one run found, borrowed from `lawsuite run`.
pub struct Summary<'a> {
    pub generator: &'a str,
    pub seeds: usize,
    pub peers: &'a [String],
    /// `{law, peer, verdict}` rows.
    pub laws: &'a [Value],
    /// `{file, peer, ok}` rows.
    pub regressions: &'a [Value],
    pub divergences: &'a [Divergence],
}

/// Per-peer counts.
#[derive(Default)]
struct Counts {
    pass: usize,
    fail: usize,
    xfail: usize,
    skipped: usize,
    regressions_failed: usize,
    divergent_calls: usize,
}

fn field<'v>(row: &'v Value, key: &str) -> &'v str {
    row.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Summary<'_> {
    fn counts(&self, peer: &str) -> Counts {
        let mut c = Counts::default();
        for row in self.laws.iter().filter(|r| field(r, "peer") == peer) {
            match field(row, "verdict") {
                "pass" => c.pass += 1,
                "expected failure" => c.xfail += 1,
                "skipped" => c.skipped += 1,
                _ => c.fail += 1,
            }
        }
        c.regressions_failed = self
            .regressions
            .iter()
            .filter(|r| field(r, "peer") == peer && r.get("ok") == Some(&Value::Bool(false)))
            .count();
        c.divergent_calls = self
            .divergences
            .iter()
            .filter(|d| {
                let reference = d.reference_answer();
                d.answers.iter().any(|a| {
                    a.peer == peer && Some(&a.answer) != reference && a.explained.is_none()
                })
            })
            .count();
        c
    }

    /// JUnit XML.
    pub fn junit(&self) -> String {
        let mut out = String::from(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"lawsuite\">\n",
        );
        for peer in self.peers {
            let c = self.counts(peer);
            let laws: Vec<&Value> = self
                .laws
                .iter()
                .filter(|r| field(r, "peer") == peer)
                .collect();
            let regressions: Vec<&Value> = self
                .regressions
                .iter()
                .filter(|r| field(r, "peer") == peer)
                .collect();
            let tests = laws.len() + regressions.len() + usize::from(c.divergent_calls > 0);
            let _ = writeln!(
                out,
                "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{}\" skipped=\"{}\">",
                escape(peer),
                c.fail + c.regressions_failed + usize::from(c.divergent_calls > 0),
                c.skipped + c.xfail
            );
            for row in laws {
                let name = escape(field(row, "law"));
                match field(row, "verdict") {
                    "pass" => {
                        let _ = writeln!(out, "    <testcase classname=\"law\" name=\"{name}\"/>");
                    }
                    "expected failure" => {
                        let _ = writeln!(
                            out,
                            "    <testcase classname=\"law\" name=\"{name}\"><skipped message=\"expected failure\"/></testcase>"
                        );
                    }
                    "skipped" => {
                        let _ = writeln!(
                            out,
                            "    <testcase classname=\"law\" name=\"{name}\"><skipped message=\"method not declared by the peer\"/></testcase>"
                        );
                    }
                    verdict => {
                        let _ = writeln!(
                            out,
                            "    <testcase classname=\"law\" name=\"{name}\"><failure message=\"{}\"/></testcase>",
                            escape(verdict)
                        );
                    }
                }
            }
            for row in regressions {
                let name = escape(field(row, "file"));
                if row.get("ok") == Some(&Value::Bool(true)) {
                    let _ = writeln!(
                        out,
                        "    <testcase classname=\"regression\" name=\"{name}\"/>"
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "    <testcase classname=\"regression\" name=\"{name}\"><failure message=\"answer differs from the recorded one\"/></testcase>"
                    );
                }
            }
            if c.divergent_calls > 0 {
                let _ = writeln!(
                    out,
                    "    <testcase classname=\"seed\" name=\"{} seeds of {}\"><failure message=\"{} divergent calls\"/></testcase>",
                    self.seeds,
                    escape(self.generator),
                    c.divergent_calls
                );
            }
            out.push_str("  </testsuite>\n");
        }
        out.push_str("</testsuites>\n");
        out
    }

    /// A Markdown table, one row per peer.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "## lawsuite: {} seeds of {}\n\n| peer | laws passed | failed | expected failures | skipped | regressions failed | divergent calls |\n| --- | --- | --- | --- | --- | --- | --- |\n",
            self.seeds, self.generator
        );
        for peer in self.peers {
            let c = self.counts(peer);
            let _ = writeln!(
                out,
                "| {peer} | {} | {} | {} | {} | {} | {} |",
                c.pass, c.fail, c.xfail, c.skipped, c.regressions_failed, c.divergent_calls
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn failures_and_skips_are_counted_per_peer() {
        let peers = vec!["portable".to_string(), "mine".to_string()];
        let laws = vec![
            json!({"law": "a::x", "peer": "portable", "verdict": "pass"}),
            json!({"law": "a::x", "peer": "mine", "verdict": "fail"}),
            json!({"law": "a::<y>", "peer": "mine", "verdict": "skipped"}),
        ];
        let summary = Summary {
            generator: "smthrs",
            seeds: 12,
            peers: &peers,
            laws: &laws,
            regressions: &[],
            divergences: &[],
        };
        let xml = summary.junit();
        assert!(
            xml.contains(r#"<testsuite name="mine" tests="2" failures="1" skipped="1">"#),
            "{xml}"
        );
        assert!(xml.contains("a::&lt;y&gt;"), "names are escaped: {xml}");
        let md = summary.markdown();
        assert!(md.contains("| mine | 0 | 1 | 0 | 1 | 0 | 0 |"), "{md}");
    }
}
