//! `lawsuite init` and `lawsuite docs` ([`lawsuite::scaffold`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use lawsuite::scaffold::{self, DOCS, DOCS_DIR, Dependency, Lang};

/// The step a Node skeleton needs before its first run: link the adapter
/// package from the skeleton's copy (`file:lawsuite/node`), no registry.
const NPM_INSTALL: &str = "npm install --offline --no-audit --no-fund   # links the adapter package copied into lawsuite/node";

/// Where the user asked a Rust skeleton's lawsuite to come from.
pub struct Source {
    /// `--lawsuite-path DIR`.
    pub path: Option<PathBuf>,
    /// `--lawsuite-git URL`.
    pub git: Option<String>,
}

/// `lawsuite init [--lang L] DIR`: write the skeleton and say what to run
/// next, from where the user stands.
pub fn init(dir: &Path, lang: Option<Lang>, source: Source) -> anyhow::Result<ExitCode> {
    if lang != Some(Lang::Rust) && (source.path.is_some() || source.git.is_some()) {
        bail!(
            "--lawsuite-path and --lawsuite-git choose the lawsuite dependency of a Rust skeleton; add --lang rust"
        );
    }
    let (lawsuite, note) = dependency(source)?;
    let written = scaffold::write(dir, lang, &lawsuite)?;
    let mut out = std::io::stdout().lock();
    if lang == Some(Lang::Rust) {
        writeln!(out, "lawsuite dependency: {lawsuite} ({note})")?;
    }
    for path in written
        .iter()
        .filter(|p| !p.starts_with(dir.join(DOCS_DIR)))
    {
        writeln!(out, "wrote {}", path.display())?;
    }
    if lang.is_some() {
        writeln!(
            out,
            "wrote {} (the protocol, its schemas and the contract: offline)",
            dir.join(DOCS_DIR).display()
        )?;
    }
    // `init DIR` from elsewhere: the next commands need the project's directory.
    let here = dir == Path::new(".") || dir == Path::new("");
    let cd = if here {
        String::new()
    } else {
        format!(
            "  cd {}\n",
            lawsuite::conformance::shell_word(&dir.display().to_string())
        )
    };
    let next = match lang {
        None => format!(
            "next: register your peer in lawsuite.toml (the commented [[peer]] example), then\n{cd}  lawsuite peers    # each peer's handshake and one call\n  lawsuite run      # every shipped law, the regressions and seeds"
        ),
        Some(Lang::Node) => format!(
            "next: run the skeleton peer as it is, then replace its grep and glob with your search:\n{cd}  {NPM_INSTALL}\n  lawsuite peers    # its handshake and one call\n  lawsuite run      # every shipped law, the regressions and seeds"
        ),
        Some(Lang::Python) => format!(
            "next: run the skeleton peer as it is, then replace its grep and glob with your search:\n{cd}  lawsuite peers    # its handshake and one call\n  lawsuite run      # every shipped law, the regressions and seeds"
        ),
        Some(Lang::Rust) => format!(
            "next: run the skeleton as it is, then replace its glob (tests/conformance.rs) with your search:\n{cd}  cargo test --test conformance"
        ),
    };
    writeln!(out, "{next}")?;
    Ok(ExitCode::SUCCESS)
}

/// The dependency a Rust skeleton names, and why: the flag's, else the
/// source this binary was built from when it still holds this version,
/// else an error that asks for a flag (lawsuite is not on crates.io).
fn dependency(source: Source) -> anyhow::Result<(Dependency, String)> {
    let version = env!("CARGO_PKG_VERSION");
    if let Some(url) = source.git {
        if url.trim().is_empty() {
            bail!("--lawsuite-git needs a repository URL");
        }
        return Ok((Dependency::Git(url), "--lawsuite-git".into()));
    }
    if let Some(dir) = source.path {
        let found = scaffold::source_version(&dir)?;
        let dir = std::path::absolute(&dir)
            .with_context(|| format!("making {} absolute", dir.display()))?;
        let note = if found == version {
            "--lawsuite-path".to_string()
        } else {
            format!("--lawsuite-path; note: it holds lawsuite {found}, this binary is {version}")
        };
        return Ok((Dependency::Path(dir), note));
    }
    let dir = scaffold::built_source(built_from(), version)?;
    Ok((
        Dependency::Path(dir),
        format!("the source this binary was built from, lawsuite {version}"),
    ))
}

/// Where this binary's source may be: the directories above the binary
/// (`target/release/lawsuite` sits in its checkout), then the source
/// directory recorded when it was built (`cargo install --path` puts the
/// binary elsewhere). Each is checked before it is used.
fn built_from() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map(|exe| exe.ancestors().skip(1).map(Path::to_path_buf).collect())
        .unwrap_or_default();
    out.extend(option_env!("LAWSUITE_SOURCE_DIR").map(PathBuf::from));
    out
}

/// `lawsuite docs [NAME] [--write DIR]`.
pub fn docs(name: Option<&str>, write: Option<&Path>) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if let Some(dir) = write {
        for (name, text) in DOCS {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .with_context(|| format!("writing {} (nothing is overwritten)", path.display()))?;
            file.write_all(scaffold::for_copy(text).as_bytes())?;
        }
        writeln!(out, "wrote {} documents into {}", DOCS.len(), dir.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    match name {
        None => {
            writeln!(
                out,
                "The documents inside this lawsuite ({}); `lawsuite docs NAME` prints one:",
                env!("CARGO_PKG_VERSION")
            )?;
            for (name, text) in DOCS {
                writeln!(out, "  {name:<34} {}", title(text))?;
            }
        }
        Some(name) => match DOCS.iter().find(|(n, _)| *n == name) {
            Some((_, text)) => write!(out, "{text}")?,
            None => bail!(
                "no document is named {name:?}; `lawsuite docs` lists them (e.g. PROTOCOL.md, contract.md)"
            ),
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// A document's first heading, or a schema's title.
fn title(text: &str) -> String {
    if let Some(line) = text.lines().find(|l| l.starts_with("# ")) {
        return line.trim_start_matches("# ").to_string();
    }
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v["title"].as_str().map(str::to_string))
        .unwrap_or_default()
}
