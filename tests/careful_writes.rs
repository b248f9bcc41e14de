//! The one careful writer (`lawsuite::regular_file`): what it refuses
//! (devices, FIFOs, directories, read-only files), what it keeps (the
//! old file on any failure, its permissions and owner, a symlink), what it
//! leaves (no temporary, no lock file), and that read-modify-writes from
//! several threads and processes at once all keep their change.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

use lawsuite::file_error::FileErrorKind;
use lawsuite::regular_file::{Held, check_replaceable, replace_whole};

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
}

/// A FIFO is refused without being opened (opening it for writing would
/// block this test until a reader came), by every door, and nothing is
/// left beside it: no temporary, no lock file.
#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("baseline.jsonl");
    mkfifo(&fifo);
    let err = replace_whole(&fifo, "x\n").unwrap_err();
    assert!(
        matches!(err.kind(), FileErrorKind::NotAFile("a FIFO (named pipe)")),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}: it is a FIFO (named pipe), not a regular file",
            fifo.display()
        )
    );
    assert!(check_replaceable(&fifo).is_err());
    assert!(Held::acquire(&fifo).is_err() && Held::try_acquire(&fifo).is_err());
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(entries(dir.path()), ["baseline.jsonl"]);
}

/// A character device like `/dev/null` (1, 3), made in `dir`: the tests
/// never aim at the real one, which a writer that failed them would
/// replace (as root, a test run did). Making one needs root: elsewhere
/// `None`, said, except under `CI`, which runs as root.
fn device(dir: &Path) -> Option<PathBuf> {
    let node = dir.join("null-device");
    let made = Command::new("mknod")
        .arg(&node)
        .args(["c", "1", "3"])
        .output();
    match made {
        Ok(out) if out.status.success() => Some(node),
        other => {
            let why = match other {
                Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
                Err(e) => e.to_string(),
            };
            assert!(
                std::env::var_os("CI").is_none(),
                "CI runs as root and must be able to make a device node: {why}"
            );
            eprintln!("note: skipped: cannot make a device node here ({why})");
            None
        }
    }
}

/// A symlink to a device (as `--write-baseline` onto a link to
/// `/dev/null`) is refused, looked at through the link: the link stays a
/// link to the device, the device a device, and no lock file is made
/// beside it.
#[test]
fn a_symlink_to_a_device_is_refused_and_stays_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let Some(device) = device(dir.path()) else {
        return;
    };
    fs::create_dir(dir.path().join("out")).unwrap();
    let link = dir.path().join("out/baseline.jsonl");
    symlink(&device, &link).unwrap();
    let err = replace_whole(&link, "x\n").unwrap_err();
    assert!(
        matches!(err.kind(), FileErrorKind::NotAFile("a device")),
        "{err}"
    );
    assert!(Held::acquire(&link).is_err() && check_replaceable(&link).is_err());
    assert_eq!(fs::read_link(&link).unwrap(), device);
    assert!(
        fs::symlink_metadata(&device)
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert_eq!(entries(dir.path()), ["null-device", "out"]);
    assert_eq!(entries(&dir.path().join("out")), ["baseline.jsonl"]);
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("report.html");
    fs::create_dir(&sub).unwrap();
    let err = replace_whole(&sub, "x\n").unwrap_err();
    assert!(
        matches!(err.kind(), FileErrorKind::NotAFile("a directory")),
        "{err}"
    );
    assert!(sub.is_dir() && entries(&sub).is_empty());
    assert_eq!(entries(dir.path()), ["report.html"]);
}

/// A new file in a directory that does not exist is refused before
/// anything is made, naming the file.
#[test]
fn a_new_file_needs_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("missing/baseline.jsonl");
    let err = check_replaceable(&file).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}: its directory does not exist", file.display())
    );
    assert!(replace_whole(&file, "x\n").is_err());
    fs::write(dir.path().join("plain"), "").unwrap();
    let err = check_replaceable(&dir.path().join("plain/baseline.jsonl")).unwrap_err();
    assert!(err.to_string().contains("Not a directory"), "{err}");
    assert_eq!(entries(dir.path()), ["plain"]);
}

/// A symlink that points nowhere is refused (opening it would make a
/// file at its target, which the user did not name).
#[test]
fn a_dangling_symlink_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("out.jsonl");
    symlink("gone.jsonl", &link).unwrap();
    let err = replace_whole(&link, "x\n").unwrap_err();
    assert!(
        matches!(
            err.kind(),
            FileErrorKind::NotAFile("a symbolic link to nothing")
        ),
        "{err}"
    );
    assert_eq!(entries(dir.path()), ["out.jsonl"]);
}

/// A read-only file is the user's: refused (root may write anything, so
/// the mode bits decide), left byte for byte with its mode.
#[test]
fn a_read_only_file_is_refused_and_left_as_it_is() {
    for read_only in [0o444, 0o400, 0o000] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("recorded.toml");
        fs::write(&file, b"[mine]\n\"law::a\" = \"x\"\n").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(read_only)).unwrap();
        let err = replace_whole(&file, "changed\n").unwrap_err();
        assert!(
            matches!(err.kind(), FileErrorKind::ReadOnly { mode } if *mode == read_only),
            "{err}"
        );
        assert!(err.to_string().contains("it is read-only"), "{err}");
        let held = Held::acquire(&file).unwrap();
        assert!(held.replace("changed\n").is_err());
        drop(held);
        assert_eq!(mode(&file), read_only);
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"[mine]\n\"law::a\" = \"x\"\n");
        assert_eq!(entries(dir.path()), ["recorded.toml"]);
    }
}

/// One write permission bit is enough: a 0200 file is replaced.
#[test]
fn one_write_bit_is_enough() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.jsonl");
    fs::write(&file, "old\n").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o200)).unwrap();
    replace_whole(&file, "new\n").unwrap();
    assert_eq!(mode(&file), 0o200);
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), "new\n");
}

/// A replaced file keeps its permissions (0600 stays private: it was
/// widened to 0644); a new file gets the umask's default, as any file
/// this process creates.
#[test]
fn a_replaced_file_keeps_its_mode_and_a_new_one_gets_the_default() {
    let dir = tempfile::tempdir().unwrap();
    for kept in [0o600, 0o640, 0o755] {
        let file = dir.path().join(format!("kept-{kept:o}.toml"));
        fs::write(&file, "old\n").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(kept)).unwrap();
        replace_whole(&file, "new\n").unwrap();
        assert_eq!(fs::read_to_string(&file).unwrap(), "new\n");
        assert_eq!(mode(&file), kept, "{kept:o}");
    }
    let new = dir.path().join("new.toml");
    replace_whole(&new, "new\n").unwrap();
    let plain = dir.path().join("plain");
    fs::File::create(&plain).unwrap();
    assert_eq!(mode(&new), mode(&plain));
    assert_eq!(
        entries(dir.path()),
        [
            "kept-600.toml",
            "kept-640.toml",
            "kept-755.toml",
            "new.toml",
            "plain"
        ]
    );
}

/// As root, a replaced file keeps its owner: a root-run lawsuite does not
/// take the user's file from them. (Skipped, said, where this process may
/// not give a file away: only root may.)
#[test]
fn a_replaced_file_keeps_its_owner() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("state.json");
    fs::write(&file, "{}\n").unwrap();
    if let Err(e) = std::os::unix::fs::chown(&file, Some(4321), Some(4321)) {
        eprintln!("note: skipped: this process cannot give a file away ({e})");
        return;
    }
    replace_whole(&file, "{ }\n").unwrap();
    let meta = fs::metadata(&file).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (4321, 4321));
    assert_eq!(fs::read_to_string(&file).unwrap(), "{ }\n");
}

/// A symlink to a regular file stays a symlink: the file it points to is
/// replaced.
#[test]
fn a_symlink_to_a_file_stays_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("real")).unwrap();
    let real = dir.path().join("real/found.toml");
    fs::write(&real, "old\n").unwrap();
    let link = dir.path().join("found.toml");
    symlink("real/found.toml", &link).unwrap();
    replace_whole(&link, "new\n").unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&real).unwrap(), "new\n");
    assert_eq!(entries(&dir.path().join("real")), ["found.toml"]);
}

/// A file system mounted for one test, unmounted when dropped.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A full disk (a 16 KiB tmpfs) while the new text is written leaves the
/// old file whole and no temporary behind. Mounting needs root: elsewhere
/// the test is skipped (said), except under `CI`, which runs as root and
/// where it fails instead.
#[test]
fn a_full_disk_leaves_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16k", "tmpfs"])
        .arg(dir.path())
        .output();
    match mounted {
        Ok(out) if out.status.success() => {}
        other => {
            let why = match other {
                Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
                Err(e) => e.to_string(),
            };
            assert!(
                std::env::var_os("CI").is_none(),
                "CI runs as root and must be able to mount a 16 KiB tmpfs: {why}"
            );
            eprintln!("note: skipped: cannot mount a 16 KiB tmpfs here ({why})");
            return;
        }
    }
    let mount = Mounted(dir.path().to_path_buf());
    let file = mount.0.join("baseline.jsonl");
    fs::write(&file, "the old baseline\n").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let err = replace_whole(&file, &"x".repeat(64 * 1024)).unwrap_err();
    assert!(
        matches!(err.kind(), FileErrorKind::Io(e) if e.kind() == std::io::ErrorKind::StorageFull),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "the old baseline\n");
    assert_eq!(mode(&file), 0o640);
    assert_eq!(entries(&mount.0), ["baseline.jsonl"]);
}

/// Appends `count` lines `<tag>-<i>` to `file`, each a read-modify-write
/// under the lock, yielding between the read and the write so that an
/// unlocked writer would lose lines.
fn append_lines(file: &Path, tag: &str, count: usize) {
    for i in 0..count {
        let held = Held::acquire(file).unwrap();
        let mut text = held.read().unwrap().unwrap_or_default();
        std::thread::yield_now();
        text.push_str(&format!("{tag}-{i}\n"));
        held.replace(&text).unwrap();
    }
}

fn assert_every_line(file: &Path, tags: &[String], count: usize) {
    let text = fs::read_to_string(file).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    let mut wanted: Vec<String> = tags
        .iter()
        .flat_map(|t| (0..count).map(move |i| format!("{t}-{i}")))
        .collect();
    wanted.sort_unstable();
    assert_eq!(lines, wanted, "lines were lost or doubled");
}

const APPENDS: usize = 40;

#[test]
fn threads_appending_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("found.toml");
    let tags: Vec<String> = (0..6).map(|t| format!("thread{t}")).collect();
    std::thread::scope(|s| {
        for tag in &tags {
            let file = &file;
            s.spawn(move || append_lines(file, tag, APPENDS));
        }
    });
    assert_every_line(&file, &tags, APPENDS);
    assert_eq!(entries(dir.path()), ["found.toml"]);
}

/// The child of `processes_appending_at_once_lose_nothing`: this test
/// binary run again on this one test, with the file and tag in the
/// environment.
#[test]
#[ignore = "run by processes_appending_at_once_lose_nothing in child processes"]
fn append_as_a_child_process() {
    // Asked with `--include-ignored`, it is no test of its own: it says so.
    let (Some(file), Ok(tag)) = (
        std::env::var_os("CAREFUL_WRITES_FILE"),
        std::env::var("CAREFUL_WRITES_TAG"),
    ) else {
        eprintln!("note: nothing to do: processes_appending_at_once_lose_nothing runs this");
        return;
    };
    append_lines(Path::new(&file), &tag, APPENDS);
}

#[test]
fn processes_appending_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("found.toml");
    let me = std::env::current_exe().unwrap();
    let tags: Vec<String> = (0..4).map(|t| format!("process{t}")).collect();
    let children: Vec<_> = tags
        .iter()
        .map(|tag| {
            Command::new(&me)
                .args([
                    "--ignored",
                    "--exact",
                    "append_as_a_child_process",
                    "--quiet",
                ])
                .env("CAREFUL_WRITES_FILE", &file)
                .env("CAREFUL_WRITES_TAG", tag)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{said}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The child ran the one test: not zero of them.
        assert!(said.contains("1 passed"), "{said}");
    }
    assert_every_line(&file, &tags, APPENDS);
    assert_eq!(entries(dir.path()), ["found.toml"]);
}

/// `try_acquire` refuses at once while another holds the lock (a second
/// campaign on one state file), and grants it once the holder lets go;
/// the lock file goes with the lock.
#[test]
fn try_acquire_refuses_while_held() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("campaign.json");
    let held = Held::acquire(&state).unwrap();
    assert_eq!(entries(dir.path()), [".campaign.json.lock"]);
    let err = Held::try_acquire(&state).unwrap_err();
    assert!(
        matches!(err.kind(), FileErrorKind::Held { lock } if lock == &dir.path().join(".campaign.json.lock")),
        "{err}"
    );
    drop(held);
    assert!(entries(dir.path()).is_empty());
    let again = Held::try_acquire(&state).unwrap();
    again.replace("{}\n").unwrap();
    drop(again);
    assert_eq!(entries(dir.path()), ["campaign.json"]);
}

/// A lock file lawsuite did not make (a FIFO, whose open would block; a
/// symlink, which would be followed elsewhere) is refused, and left.
#[test]
fn a_lock_file_that_is_not_a_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("found.toml");
    let lock = dir.path().join(".found.toml.lock");
    mkfifo(&lock);
    let err = Held::acquire(&file).unwrap_err();
    assert!(
        matches!(err.kind(), FileErrorKind::NotAFile("a FIFO (named pipe)")),
        "{err}"
    );
    assert_eq!(err.path(), lock);
    fs::remove_file(&lock).unwrap();
    symlink("elsewhere", &lock).unwrap();
    let err = replace_whole(&file, "x\n").unwrap_err();
    assert!(
        matches!(err.kind(), FileErrorKind::NotAFile("a symbolic link")),
        "{err}"
    );
    assert_eq!(entries(dir.path()), [".found.toml.lock"]);
}

// The front doors: what `lawsuite` writes for the user goes through the
// careful writer, and a refusal is an error naming the file and the
// problem, with the file as it was.

fn lawsuite(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .current_dir(dir)
        .args(args)
        .env_remove("LAWSUITE_SEEDS")
        .env_remove("LAWSUITE_RECORD")
        .output()
        .expect("lawsuite runs")
}

/// A quick run of the shipped context laws on `portable`, writing the
/// baseline `to`.
fn run_writing_baseline(dir: &Path, to: &Path) -> (Option<i32>, String) {
    let out = lawsuite(
        dir,
        &[
            "run",
            "--no-seeds",
            "--no-regressions",
            "--law",
            "grep::context",
            "--peer",
            "portable",
            "--write-baseline",
            to.to_str().unwrap(),
        ],
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `--write-baseline` onto a symlink to a device, onto a FIFO, or onto a
/// read-only file is refused before the run, naming the problem; each is
/// left as it was (the device was replaced by a file, the FIFO too, and
/// the read-only file was replaced and made 0644).
#[test]
fn write_baseline_refuses_what_it_must_not_replace() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    if let Some(device) = device(d) {
        let link = d.join("to-device.jsonl");
        symlink(&device, &link).unwrap();
        let (code, said) = run_writing_baseline(d, &link);
        assert_eq!(code, Some(2), "{said}");
        assert!(said.contains("--write-baseline"), "{said}");
        assert!(
            said.contains("it is a device, not a regular file"),
            "{said}"
        );
        assert_eq!(fs::read_link(&link).unwrap(), device);
        assert!(fs::metadata(&device).unwrap().file_type().is_char_device());
    }
    let fifo = d.join("fifo.jsonl");
    mkfifo(&fifo);
    let (code, said) = run_writing_baseline(d, &fifo);
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("it is a FIFO (named pipe), not a regular file"),
        "{said}"
    );
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    let read_only = d.join("kept.jsonl");
    fs::write(&read_only, "mine\n").unwrap();
    fs::set_permissions(&read_only, fs::Permissions::from_mode(0o444)).unwrap();
    let (code, said) = run_writing_baseline(d, &read_only);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("it is read-only (mode 0444)"), "{said}");
    assert_eq!(fs::read(&read_only).unwrap(), b"mine\n");
    assert_eq!(mode(&read_only), 0o444);
    // A regular file is replaced, keeping its mode; and a report
    // `--output` onto a FIFO is refused too.
    let private = d.join("private.jsonl");
    fs::write(&private, "old\n").unwrap();
    fs::set_permissions(&private, fs::Permissions::from_mode(0o600)).unwrap();
    let (code, said) = run_writing_baseline(d, &private);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(mode(&private), 0o600);
    assert!(
        fs::read_to_string(&private)
            .unwrap()
            .contains("\"summary\"")
    );
    let base = private.to_str().unwrap();
    let diff = lawsuite(d, &["diff", base, base, "--output", fifo.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&diff.stderr);
    assert_eq!(diff.status.code(), Some(2), "{said}");
    assert!(
        said.contains("it is a FIFO (named pipe), not a regular file"),
        "{said}"
    );
    let merged = lawsuite(d, &["merge", base, "--output", read_only.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&merged.stderr);
    assert_eq!(merged.status.code(), Some(2), "{said}");
    assert!(said.contains("it is read-only"), "{said}");
    assert_eq!(fs::read(&read_only).unwrap(), b"mine\n");
}

/// A project with two peers (both the built-in `portable`), a law that
/// passes and one whose expectation is wrong, and a `recorded.toml` that
/// lists the passing one as failing on `mine`.
fn project_with_a_stale_listing(dir: &Path) -> PathBuf {
    fs::write(
        dir.join("lawsuite.toml"),
        "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n[[peer]]\nname = \"mine\"\nbuiltin = \"portable\"\n",
    )
    .unwrap();
    fs::create_dir_all(dir.join("lawsuite/laws/grep")).unwrap();
    fs::create_dir_all(dir.join("lawsuite/expected")).unwrap();
    let law = |name: &str, expect: &str| {
        format!(
            "[[law]]\nname = \"{name}\"\nspec = \"search-contract §15\"\nmethod = \"grep\"\ninput = {{ pattern = \"needle\" }}\ntree.\"a.txt\" = \"needle\\n\"\nexpect = {expect}\n"
        )
    };
    fs::write(
        dir.join("lawsuite/laws/grep/x.toml"),
        law(
            "good",
            "{ matches = [{ file = \"a.txt\", line = 1, text = \"needle\", before = [], after = [] }], files = [], filesSearched = 1, skippedBinary = 0, truncated = false }",
        ) + "\n"
            + &law("bad", "{ matches = [] }"),
    )
    .unwrap();
    let recorded = dir.join("lawsuite/expected/recorded.toml");
    fs::write(
        &recorded,
        "# kept by hand\n[mine]\n\"law::grep::x::good\" = \"a bug\"\n",
    )
    .unwrap();
    recorded
}

fn update(dir: &Path, also: &[&str]) -> (Option<i32>, String) {
    let mut args = vec![
        "run",
        "--no-seeds",
        "--no-regressions",
        "--peer",
        "mine",
        "law::grep::x",
    ];
    args.extend(also);
    let out = lawsuite(dir, &args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `--update-expectations` on a read-only `recorded.toml` is refused,
/// naming it; the file is left byte for byte, with its mode.
#[test]
fn update_expectations_refuses_a_read_only_file() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = project_with_a_stale_listing(dir.path());
    let before = fs::read(&recorded).unwrap();
    fs::set_permissions(&recorded, fs::Permissions::from_mode(0o444)).unwrap();
    let (code, said) = update(dir.path(), &["--update-expectations"]);
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("recorded.toml: it is read-only (mode 0444)"),
        "{said}"
    );
    assert_eq!(fs::read(&recorded).unwrap(), before);
    assert_eq!(mode(&recorded), 0o444);
}

/// One run that both drops a listing that now passes and lists a new
/// failure, in the one file `recorded.toml`: both are kept, and the next
/// run passes (it failed on the same unexpected pass again).
#[test]
fn update_expectations_removes_and_adds_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = project_with_a_stale_listing(dir.path());
    let (code, said) = update(dir.path(), &["--update-expectations"]);
    assert_eq!(code, Some(1), "this run still fails: {said}");
    assert!(
        said.contains("1 entries that now pass removed, 2 new failures listed"),
        "{said}"
    );
    let text = fs::read_to_string(&recorded).unwrap();
    assert!(!text.contains("law::grep::x::good"), "{text}");
    assert!(
        text.starts_with("# kept by hand\n[mine]\n\"law::grep::x::bad\" = "),
        "{text}"
    );
    let (code, said) = update(dir.path(), &[]);
    assert_eq!(code, Some(0), "the next run passes: {said}");
    assert!(!said.contains("unexpected pass"), "{said}");
}
