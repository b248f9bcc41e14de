//! `lawsuite --help` lists every `LAWSUITE_*` variable from the one table
//! (`lawsuite::environment::VARIABLES`), and each `lawsuite run` flag a
//! variable sets says so as `[env: LAWSUITE_…]`. Six of the ten variables
//! used to be in no `--help`.

use std::process::Command;

use lawsuite::environment::VARIABLES;

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// The help text with every run of whitespace one space, so a line that
/// wraps reads the same.
fn help(args: &[&str]) -> String {
    let out = Command::new(LAWSUITE).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn lawsuite_help_lists_every_variable_with_its_meaning() {
    for args in [&["--help"][..], &["-h"]] {
        let text = help(args);
        let missing: Vec<&str> = VARIABLES
            .iter()
            .filter(|v| {
                let meaning = v.meaning.split_whitespace().collect::<Vec<_>>().join(" ");
                !text.contains(&format!("{} {meaning}", v.name))
            })
            .map(|v| v.name)
            .collect();
        assert!(
            missing.is_empty(),
            "{args:?} leaves out {missing:?}: {text}"
        );
    }
}

#[test]
fn each_run_flag_a_variable_sets_names_it() {
    let text = help(&["run", "--help"]);
    let flagged: Vec<_> = VARIABLES.iter().filter(|v| v.flag.is_some()).collect();
    assert!(flagged.len() >= 4, "{flagged:?}");
    for v in flagged {
        // The option's line (`--seeds <A..B|N>`), not an example's use.
        let flag = format!(" --{} <", v.flag.unwrap_or_default());
        let at = text
            .find(&flag)
            .unwrap_or_else(|| panic!("no {flag} in lawsuite run --help: {text}"));
        // The flag's own help: up to the next flag.
        let rest = &text[at + flag.len()..];
        let own = &rest[..rest.find(" --").unwrap_or(rest.len())];
        assert!(own.contains(&format!("[env: {}]", v.name)), "{flag}: {own}");
    }
    // Only those: a flag no variable sets says nothing of one.
    assert_eq!(
        text.matches("[env: ").count(),
        VARIABLES.iter().filter(|v| v.flag.is_some()).count()
    );
}
