//! How the command line reads as one tool: its subcommands in four groups
//! with a line each and a "start here", one `--format` wherever results
//! are printed, the variables beside the flags they stand for, and the
//! old spellings of renamed commands and flags kept one release with a
//! warning.
//!
//! The rules are held by the tests at the end of this file over the whole
//! [`command`], so a subcommand or flag added later meets them too.

use clap::{CommandFactory, ValueEnum};

/// A group of subcommands in `lawsuite --help`.
pub struct Group {
    /// Its heading.
    pub title: &'static str,
    /// Its subcommands, in the order a user meets them.
    pub commands: &'static [&'static str],
}

/// Every visible subcommand, each in one group (the tests hold both).
pub const GROUPS: &[Group] = &[
    Group {
        title: "Run and judge",
        commands: &["run", "peers", "call", "check"],
    },
    Group {
        title: "Keep findings",
        commands: &["fuzz", "record", "shrink", "as-law"],
    },
    Group {
        title: "Compare and time",
        commands: &["diff", "history", "merge", "report", "survey", "bench"],
    },
    Group {
        title: "Set up and inspect",
        commands: &["init", "docs", "plan", "serve"],
    },
];

/// The first thing `lawsuite --help` says after the usage.
pub const START_HERE: &str = "\
Start here:
  lawsuite init --lang rust|node|python DIR   a project with a skeleton peer
  cd DIR && lawsuite run                      judge it (Rust: cargo test)";

/// A subcommand or flag that was renamed: the old spelling still works
/// for one release, with a warning.
pub struct Renamed {
    /// The subcommand whose flag it is (`None`: a subcommand itself).
    pub command: Option<&'static str>,
    /// The old spelling.
    pub old: &'static str,
    /// The new one.
    pub new: &'static str,
}

/// Every renamed spelling (each is a hidden subcommand or flag; the tests
/// hold the list and the hidden ones to each other).
pub const RENAMED: &[Renamed] = &[
    Renamed {
        command: None,
        old: "differ",
        new: "survey",
    },
    Renamed {
        command: Some("run"),
        old: "--laws",
        new: "--law-dir",
    },
    Renamed {
        command: Some("survey"),
        old: "--calls",
        new: "--call-count",
    },
    Renamed {
        command: Some("bench"),
        old: "--calls",
        new: "--call-file",
    },
    Renamed {
        command: Some("check"),
        old: "--json",
        new: "--format json",
    },
    Renamed {
        command: Some("peers"),
        old: "--json",
        new: "--format json",
    },
    Renamed {
        command: Some("survey"),
        old: "--json",
        new: "--format json",
    },
];

/// Say on stderr that `old` is now `new`.
pub fn warn_renamed(old: &str, new: &str) {
    eprintln!(
        "warning: `{old}` is now `{new}`; the old spelling still works in this release and goes in the next"
    );
}

/// The value of a renamed flag, when it was given (with the warning).
pub fn renamed_value<T>(value: Option<T>, old: &str, new: &str) -> Option<T> {
    if value.is_some() {
        warn_renamed(old, new);
    }
    value
}

/// `--format` of a command that prints for people or for tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlainFormat {
    /// For people.
    Human,
    /// One JSON document.
    Json,
}

/// `--format human|json`, and the `--json` it replaces.
#[derive(Debug, Clone, clap::Args)]
pub struct FormatArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = PlainFormat::Human, help_heading = "Output")]
    format: PlainFormat,
    /// Renamed `--format json` (warns; goes in the next release).
    #[arg(long, hide = true, conflicts_with = "format")]
    json: bool,
}

impl FormatArgs {
    /// Whether JSON was asked for, by `--format json` or the old `--json`
    /// (which warns).
    pub fn json(&self) -> bool {
        if self.json {
            warn_renamed("--json", "--format json");
            return true;
        }
        self.format == PlainFormat::Json
    }
}

/// The command line, with what derive cannot say: the grouped list of
/// subcommands, every variable after `lawsuite --help`
/// ([`lawsuite::environment::VARIABLES`]), and `[env: LAWSUITE_…]` in the
/// help of each `run` flag a variable sets. Only the text: clap reads no
/// variable, the environment is read in one place
/// ([`lawsuite::environment::Environment::read`]).
pub fn command() -> clap::Command {
    use lawsuite::environment::VARIABLES;
    let cli = crate::Cli::command();
    let template = format!(
        "{{before-help}}{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{START_HERE}\n\n{}\
         `lawsuite help COMMAND` (or `COMMAND --help`) shows a command's options and examples.\n\n\
         {}\n\nOptions:\n{{options}}{{after-help}}",
        grouped(&cli),
        renamed()
    );
    cli.help_template(template)
        .after_help(format!(
            "Environment variables (read once, before anything runs; a value one cannot take is an error naming it):\n{}",
            lawsuite::environment::help()
        ))
        .mut_subcommand("run", |run| {
            VARIABLES.iter().fold(run, |run, variable| {
                let Some(id) = variable.flag.and_then(|flag| {
                    run.get_arguments()
                        .find(|arg| arg.get_long() == Some(flag))
                        .map(|arg| arg.get_id().clone())
                }) else {
                    return run;
                };
                run.mut_arg(id, |arg| {
                    let env = format!("[env: {}]", variable.name);
                    let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                    let long = arg.get_long_help().map(ToString::to_string);
                    let arg = arg.help(format!("{help} {env}"));
                    match long {
                        Some(long) => arg.long_help(format!("{long}\n\n{env}")),
                        None => arg,
                    }
                })
            })
        })
}

/// The renamed spellings, a line.
fn renamed() -> String {
    let each: Vec<String> = RENAMED
        .iter()
        .map(|r| match r.command {
            None => format!("{} → {}", r.old, r.new),
            Some(command) => format!("{command} {} → {}", r.old, r.new),
        })
        .collect();
    format!(
        "Renamed in this release (the old spellings still work, with a warning): {}.",
        each.join(", ")
    )
}

/// The subcommands in their groups, a line each: `  name  purpose`.
fn grouped(cli: &clap::Command) -> String {
    let width = GROUPS
        .iter()
        .flat_map(|g| g.commands)
        .map(|name| name.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for group in GROUPS {
        out.push_str(group.title);
        out.push_str(":\n");
        for name in group.commands {
            let about = cli
                .find_subcommand(name)
                .and_then(|c| c.get_about())
                .map(ToString::to_string)
                .unwrap_or_default();
            out.push_str(&format!("  {name:width$}  {about}\n"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    //! Every subcommand held to the rules of issue "right the first time":
    //! grouped with a one-line purpose, nothing that reads like another,
    //! one `--format`, `--project` wherever peers are named, headings, and
    //! each variable shown.

    use std::collections::{BTreeMap, BTreeSet};

    use super::*;

    /// The widest a purpose may be and still fit one line of an 80-column
    /// terminal beside the longest name.
    const PURPOSE_WIDTH: usize = 80 - 2 - 7 - 2;

    /// More options than this and a command's help needs headings.
    const OPTIONS_WITHOUT_HEADINGS: usize = 5;

    /// Commands that print results (the rest print data in its wire form,
    /// `call`'s answer and `plan`'s JSON, write a file, or serve).
    const PRINTS_RESULTS: &[&str] = &[
        "run", "peers", "check", "fuzz", "diff", "history", "merge", "survey", "bench",
    ];

    fn visible(cli: &clap::Command) -> Vec<&clap::Command> {
        cli.get_subcommands()
            .filter(|c| !c.is_hide_set() && c.get_name() != "help")
            .collect()
    }

    fn options(command: &clap::Command) -> Vec<&clap::Arg> {
        command
            .get_arguments()
            .filter(|a| !a.is_positional() && !a.is_hide_set())
            .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
            .collect()
    }

    #[test]
    fn every_subcommand_is_in_one_group_with_a_one_line_purpose() {
        let cli = command();
        let mut seen = BTreeMap::new();
        for group in GROUPS {
            for name in group.commands {
                assert!(
                    seen.insert(*name, group.title).is_none(),
                    "{name} is in two groups"
                );
            }
        }
        for sub in visible(&cli) {
            let name = sub.get_name();
            assert!(seen.contains_key(name), "{name} is in no group of GROUPS");
            let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
            assert!(!about.is_empty(), "{name} has no purpose line");
            assert!(
                !about.contains('\n') && about.chars().count() <= PURPOSE_WIDTH,
                "{name}'s purpose is not one line of at most {PURPOSE_WIDTH} characters: {about:?}"
            );
        }
        for name in seen.keys() {
            assert!(
                visible(&cli).iter().any(|c| c.get_name() == *name),
                "GROUPS names {name}, which is not a visible subcommand"
            );
        }
        let help = cli.clone().render_help().to_string();
        assert!(help.contains(START_HERE), "no start-here line:\n{help}");
        for group in GROUPS {
            assert!(help.contains(&format!("{}:\n", group.title)), "{help}");
        }
    }

    /// `diff`/`differ`, `--law`/`--laws`: one spelling must not be another
    /// with a few letters added.
    #[test]
    fn no_name_reads_like_another() {
        let cli = command();
        let names: Vec<&str> = visible(&cli).iter().map(|c| c.get_name()).collect();
        for a in &names {
            for b in &names {
                assert!(
                    a == b || !b.starts_with(a),
                    "subcommands {a} and {b} read alike"
                );
            }
        }
        for sub in visible(&cli) {
            let longs: Vec<&str> = options(sub).iter().filter_map(|a| a.get_long()).collect();
            for a in &longs {
                assert!(
                    !longs.contains(&format!("{a}s").as_str()),
                    "{}: --{a} and --{a}s read alike",
                    sub.get_name()
                );
            }
        }
    }

    /// A flag name means one kind of value in every command (`--calls`
    /// was a count in one and a file in another). `--format`'s values
    /// differ by what a command can print, its meaning does not.
    #[test]
    fn a_flag_takes_one_kind_of_value_everywhere() {
        let cli = command();
        let mut kinds = BTreeMap::new();
        for sub in visible(&cli) {
            for arg in options(sub) {
                let Some(long) = arg.get_long() else { continue };
                if long == "format" {
                    continue;
                }
                let kind = arg.get_value_parser().type_id();
                let (first_kind, first) = kinds.entry(long).or_insert((kind, sub.get_name()));
                assert!(
                    *first_kind == kind,
                    "--{long} takes one kind of value in {first} and another in {}",
                    sub.get_name()
                );
            }
        }
    }

    #[test]
    fn every_command_that_prints_results_takes_one_format_flag() {
        let cli = command();
        for sub in visible(&cli) {
            let name = sub.get_name();
            let has = |long: &str| options(sub).iter().any(|a| a.get_long() == Some(long));
            assert!(!has("json"), "{name} has a visible --json");
            assert_eq!(
                has("format"),
                PRINTS_RESULTS.contains(&name),
                "{name}: --format is for exactly the commands that print results"
            );
        }
    }

    /// A peer's name means something only in a project: every command
    /// that takes `--peer` takes `--project` (but `serve`, which serves
    /// built-ins only and reads no project).
    #[test]
    fn every_command_that_names_peers_takes_a_project() {
        let cli = command();
        for sub in visible(&cli) {
            let longs: BTreeSet<&str> = options(sub).iter().filter_map(|a| a.get_long()).collect();
            if longs.contains("peer") && sub.get_name() != "serve" {
                assert!(
                    longs.contains("project"),
                    "{} has --peer but no --project",
                    sub.get_name()
                );
            }
        }
        let serve = cli.find_subcommand("serve").unwrap();
        assert!(
            options(serve)
                .iter()
                .all(|a| a.get_long() != Some("project"))
        );
    }

    #[test]
    fn a_command_with_many_options_heads_them() {
        let cli = command();
        for sub in visible(&cli) {
            let options = options(sub);
            if options.len() <= OPTIONS_WITHOUT_HEADINGS {
                continue;
            }
            for arg in options {
                assert!(
                    arg.get_help_heading().is_some(),
                    "{}: --{} has no heading among {} options",
                    sub.get_name(),
                    arg.get_long().unwrap_or("?"),
                    sub.get_arguments().count()
                );
            }
        }
    }

    #[test]
    fn every_variable_is_listed_and_shown_beside_its_flag() {
        let mut cli = command();
        let help = cli.render_long_help().to_string();
        let run = cli.find_subcommand_mut("run").unwrap();
        let run_help = run.render_help().to_string();
        for variable in lawsuite::environment::VARIABLES {
            assert!(
                help.contains(variable.name),
                "lawsuite --help lacks {}",
                variable.name
            );
            if let Some(flag) = variable.flag {
                let line = run_help
                    .lines()
                    .skip_while(|l| !l.contains(&format!("--{flag}")))
                    .take_while(|l| {
                        !l.trim_start().starts_with("--") || l.contains(&format!("--{flag}"))
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                assert!(
                    line.contains(&format!("[env: {}]", variable.name)),
                    "run --{flag} does not show [env: {}]: {line:?}",
                    variable.name
                );
            }
        }
    }

    /// Each renamed spelling is a hidden subcommand or flag of the command
    /// it names, and each hidden one is a renamed spelling.
    #[test]
    fn renamed_spellings_are_exactly_the_hidden_ones() {
        let cli = command();
        let mut hidden = BTreeSet::new();
        for sub in cli.get_subcommands() {
            if sub.is_hide_set() {
                // Its flags are those of the command it was renamed to.
                hidden.insert((None, sub.get_name().to_string()));
                continue;
            }
            for arg in sub.get_arguments().filter(|a| a.is_hide_set()) {
                let Some(long) = arg.get_long() else { continue };
                hidden.insert((Some(sub.get_name().to_string()), format!("--{long}")));
            }
        }
        let listed: BTreeSet<(Option<String>, String)> = RENAMED
            .iter()
            .map(|r| (r.command.map(str::to_string), r.old.to_string()))
            .collect();
        assert_eq!(hidden, listed);
        for renamed in RENAMED {
            let new = renamed.new.split(' ').next().unwrap();
            let found = match renamed.command {
                None => visible(&cli).iter().any(|c| c.get_name() == new),
                Some(command) => {
                    let sub = cli.find_subcommand(command).unwrap();
                    options(sub)
                        .iter()
                        .any(|a| a.get_long().map(|l| format!("--{l}")).as_deref() == Some(new))
                }
            };
            assert!(
                found,
                "{} is renamed to {}, which does not exist",
                renamed.old, renamed.new
            );
        }
    }
}
