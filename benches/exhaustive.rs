//! What the bounded-exhaustive families cost and find (issue 46):
//! per family and size, the shapes and calls (counted by enumerating
//! them), each peer's CPU-seconds to answer every call alone, and what
//! each subject disagreed on with `portable`.
//!
//! ```sh
//! cargo bench --bench exhaustive                                   # default sizes, portable and model
//! LAWSUITE_EXHAUSTIVE_SIZES=glob:1-4,pattern:3 cargo bench --bench exhaustive
//! LAWSUITE_EXHAUSTIVE_PEERS=portable,model,ripgrep,ripgrep-walk cargo bench --bench exhaustive
//! ```
//!
//! CPU time is the process's user and system time and its children's
//! (`rg`), from `/proc/self/stat` (10 ms ticks). Disagreements are counted
//! by call, the documented ones (a listed difference of the built-in that
//! predicts the answer exactly) apart, with the first few shown.

use std::collections::BTreeMap;

use lawsuite::conformance::peers::builtin_subject;
use lawsuite::kit::compare::{Compared, Divergence};
use lawsuite::kit::exhaustive::{BatchTrees, Family};
use lawsuite::peer::Subject;
use lawsuite::registry::PeerOptions;

fn main() {
    let sizes = sizes();
    let names: Vec<String> = std::env::var("LAWSUITE_EXHAUSTIVE_PEERS")
        .unwrap_or_else(|_| "portable,model".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let options = PeerOptions::default();
    let peers: Vec<Subject> = names
        .iter()
        .filter_map(
            |n| match n.parse().map(|b| builtin_subject(n, b, &options)) {
                Err(unknown) => {
                    eprintln!("{unknown}");
                    None
                }
                Ok(Ok(s)) => Some(s),
                Ok(Err(u)) => {
                    eprintln!("{}: unavailable: {}", u.name, u.why);
                    None
                }
            },
        )
        .collect();
    let Some(reference) = peers.iter().find(|p| p.name() == "portable") else {
        eprintln!("portable is the reference and must be among the peers");
        return;
    };
    println!(
        "| family | size | shapes | calls | {} |",
        names.join(" CPU-s | ") + " CPU-s"
    );
    for (family, size) in &sizes {
        let count = family.count(*size);
        let mut row = format!("| {family} | {size} | {} | {} |", count.shapes, count.calls);
        for peer in &peers {
            let before = cpu_secs();
            let mut trees = BatchTrees::new();
            for plan in family.batches(*size) {
                if let Err(e) = trees.compare(&plan, Compared::from(peer), &[]) {
                    eprintln!("{family} {size}: {e}");
                }
            }
            row.push_str(&format!(" {:.2} |", cpu_secs() - before));
        }
        println!("{row}");
        let subjects: Vec<Compared<'_>> = peers
            .iter()
            .filter(|p| p.name() != "portable")
            .map(Compared::from)
            .collect();
        if subjects.is_empty() {
            continue;
        }
        let mut found: Found = BTreeMap::new();
        let mut trees = BatchTrees::new();
        for plan in family.batches(*size) {
            let divergences = match trees.compare(&plan, Compared::from(reference), &subjects) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("{family} {size}: {e}");
                    continue;
                }
            };
            for d in &divergences {
                tally(d, &plan, &mut found);
            }
        }
        for (peer, (count, documented, first)) in found {
            println!(
                "  {peer}: {count} calls disagree, documented {documented:?}; first: {}",
                first.join(" | ")
            );
        }
    }
}

/// By peer: calls it disagreed on, the documented ones by difference,
/// and the first few said.
type Found = BTreeMap<String, (usize, BTreeMap<String, usize>, Vec<String>)>;

/// Count `d`'s disagreeing subjects.
fn tally(d: &Divergence, plan: &lawsuite::kit::plan::Plan, found: &mut Found) {
    let Some(reference) = d.reference_answer() else {
        return;
    };
    for a in d.answers.iter().skip(1) {
        if a.answer.agrees(reference) && !reference.is_fault() {
            continue;
        }
        let entry = found.entry(a.peer.clone()).or_default();
        match &a.explained {
            Some(why) => *entry.1.entry(why.clone()).or_default() += 1,
            None => {
                entry.0 += 1;
                if entry.2.len() < 40 {
                    let mut call = serde_json::to_string(&d.call).unwrap_or_default();
                    // A `.gitignore` rule's call: say the rule.
                    let dir = d
                        .call
                        .root()
                        .strip_prefix(&format!("{}/", plan.root))
                        .unwrap_or("");
                    for name in [format!("{dir}/.gitignore"), format!("{dir}/d/.gitignore")] {
                        if let Some(f) = plan.files.iter().find(|f| f.path == name) {
                            call.push_str(&format!(
                                " {name}={:?}",
                                String::from_utf8_lossy(&f.content)
                            ));
                        }
                    }
                    entry.2.push(format!(
                        "{call} -> ref {} / {}",
                        reference.shown(),
                        a.answer.shown()
                    ));
                }
            }
        }
    }
}

/// `LAWSUITE_EXHAUSTIVE_SIZES` (`glob:1-4,pattern:3`), or each family at
/// its default size.
fn sizes() -> Vec<(Family, usize)> {
    let Ok(spec) = std::env::var("LAWSUITE_EXHAUSTIVE_SIZES") else {
        return Family::ALL.iter().map(|f| (*f, f.default_size())).collect();
    };
    let mut out = Vec::new();
    for part in spec.split(',') {
        let Some((family, range)) = part.split_once(':') else {
            continue;
        };
        let Ok(family) = family.parse::<Family>() else {
            eprintln!("unknown family {family}");
            continue;
        };
        let (a, b) = range.split_once('-').unwrap_or((range, range));
        let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) else {
            continue;
        };
        out.extend((a..=b).map(|k| (family, k)));
    }
    out
}

/// The process's CPU seconds so far, its children's (`rg`) included.
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12) + ticks(13) + ticks(14)) / 100.0
}
