//! Coverage: the spec sections no law pins.

use super::load::LoadedLaw;

/// The sections of `read-ls-flows.md` every law set must pin: `read`
/// (§1.1–§1.7), `ls` (§2.1–§2.4), glob paging (§3) and the `bash` capture
/// rules (§4).
pub const READ_LS_SECTIONS: [&str; 13] = [
    "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "2.1", "2.2", "2.3", "2.4", "3", "4",
];

/// The sections no law pins, e.g. `search-contract §5` or `read-ls-flows
/// §1.6`: every `search-contract` section §2–§18 (a law on §13.1 covers
/// §13) and every one of [`READ_LS_SECTIONS`] (exactly, or by one of its
/// subsections).
pub fn uncovered_sections(laws: &[LoadedLaw]) -> Vec<String> {
    let mut search = std::collections::BTreeSet::new();
    let mut flows = std::collections::BTreeSet::new();
    for law in laws {
        let spec = &law.law.spec;
        let Some(after) = spec.split('§').nth(1) else {
            continue;
        };
        let section: String = after
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let section = section.trim_end_matches('.');
        if spec.starts_with("search-contract") {
            let digits: String = section.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<u32>() {
                search.insert(n);
            }
        } else if spec.starts_with("read-ls-flows") {
            flows.insert(section.to_string());
        }
    }
    let mut out: Vec<String> = (2..=18)
        .filter(|n| !search.contains(n))
        .map(|n| format!("search-contract §{n}"))
        .collect();
    for section in READ_LS_SECTIONS {
        let covered = flows
            .iter()
            .any(|s| s == section || s.starts_with(&format!("{section}.")));
        if !covered {
            out.push(format!("read-ls-flows §{section}"));
        }
    }
    out
}
