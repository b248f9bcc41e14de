//! The read-only flows against real temporary trees: every case of
//! conformance-kit §7.3 (`Read.test`) and §7.4 (`Ls.test`) that a real
//! filesystem can reproduce, every example of read-ls-flows §1.6, §1.7 and
//! §2.4, the bad inputs of the issue (missing file, directory, FIFO, 100 MB
//! file, `..`), the `bash` capture rules of §4, and a property test of read
//! paging.
//!
//! Tests are named after their source: `kit_7_3_05_…` is conformance-kit
//! §7.3 item 5, `spec_1_7_…` a row of read-ls-flows §1.7, `open_…` a rule
//! the spec leaves open and lawsuite pins.
//!
//! Tests run as root in CI containers, where `chmod 000` denies nothing; the
//! permission cases then ask the `lawsuite` binary as the unprivileged
//! user `nobody` (`setpriv`), so they are checked there too, never passed
//! unchecked.

use lawsuite::peer::Search;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lawsuite::contract::{ErrorCode, GrepRequest, StdError};
use lawsuite::flow::bash::{BashRequest, bash_in};
use lawsuite::flow::ls::{self, EntryKind, LsEntry, LsOutput, LsRequest, ls_in};
use lawsuite::flow::read::{self, ReadOutput, ReadRequest, read_in, render_page};
use lawsuite::flow::{Effects, MAX_SHELL_OUTPUT_BYTES};
use proptest::prelude::*;

// ---------------------------------------------------------------- helpers

fn tree() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn put(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("parents");
    }
    fs::write(&path, bytes).expect("write");
    path
}

fn mkdir(root: &Path, rel: &str) {
    fs::create_dir_all(root.join(rel)).expect("mkdir");
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

fn abs(root: &Path, rel: &str) -> String {
    root.join(rel)
        .to_str()
        .expect("utf-8 temp path")
        .to_string()
}

/// `read` of a one-file tree holding `bytes`.
fn read_bytes(
    bytes: impl AsRef<[u8]>,
    req: impl Fn(ReadRequest) -> ReadRequest,
) -> Result<ReadOutput, StdError> {
    let dir = tree();
    put(dir.path(), "f.txt", bytes);
    read_in(dir.path(), &req(ReadRequest::new("f.txt")))
}

fn read_ok(bytes: impl AsRef<[u8]>, req: impl Fn(ReadRequest) -> ReadRequest) -> ReadOutput {
    read_bytes(bytes, req).unwrap_or_else(|err| panic!("read failed: {err:?}"))
}

fn default(req: ReadRequest) -> ReadRequest {
    req
}

fn expect_err<T: std::fmt::Debug>(
    result: Result<T, StdError>,
    code: ErrorCode,
    message: &str,
    path: Option<&str>,
) {
    let err = result.expect_err("expected a failure");
    assert_eq!(err.code, code, "{err:?}");
    assert_eq!(err.message, message);
    assert_eq!(err.path.as_deref(), path);
}

fn names(out: &LsOutput) -> Vec<&str> {
    out.entries.iter().map(|e| e.name.as_str()).collect()
}

fn entry(name: &str, kind: EntryKind) -> LsEntry {
    LsEntry {
        name: name.to_string(),
        kind,
    }
}

/// Whether this process can read what `chmod 000` protects (root can).
fn permissions_are_bypassed(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let probe = put(dir, "probe", "x");
    let _ = fs::set_permissions(&probe, fs::Permissions::from_mode(0o000));
    let bypassed = fs::read(&probe).is_ok();
    let _ = fs::set_permissions(&probe, fs::Permissions::from_mode(0o644));
    let _ = fs::remove_file(&probe);
    bypassed
}

/// The failure of `method` (`flow/read` or `flow/ls`) on `path`, asked
/// from `dir`, as `(code, message, path)`: directly, or, where this process
/// reads what `chmod 000` protects (root, as in CI), through the `lawsuite`
/// binary run as the unprivileged user `nobody`.
fn denied(dir: &Path, method: &str, path: &str) -> (String, String, Option<String>) {
    if !permissions_are_bypassed(dir) {
        let err = match method {
            "flow/read" => read_in(dir, &ReadRequest::new(path)).map(|_| ()),
            _ => ls_in(dir, &LsRequest::new(path)).map(|_| ()),
        }
        .expect_err("expected a failure");
        return (
            serde_json::to_value(err.code)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string(),
            err.message,
            err.path,
        );
    }
    // `nobody` must reach the tree: the temporary directory is 0700.
    chmod(dir, 0o755);
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_lawsuite"))
        .args(["call", method, &format!("{{\"path\":{path:?}}}")])
        .current_dir(dir)
        .output()
        .expect(
            "setpriv (util-linux) runs the permission checks as nobody when the tests run as root",
        );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let text = |key: &str| answer[key].as_str().map(str::to_string);
    (
        text("code").unwrap_or_default(),
        text("message").unwrap_or_default(),
        text("path"),
    )
}

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Runs `f` on a thread and fails (instead of hanging) if it blocks.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit).expect("the call blocked")
}

// ------------------------------------------------------ read: kit §7.3

#[test]
fn kit_7_3_01_raw_content_no_gutter() {
    let out = read_ok("alpha\nbeta\ngamma", default);
    assert_eq!(
        out,
        ReadOutput {
            content: "alpha\nbeta\ngamma".into(),
            start_line: 1,
            end_line: 3,
            total_lines: 3,
            truncated: false,
            notice: None,
        }
    );
    assert_eq!(
        serde_json::to_string(&out).unwrap(),
        r#"{"content":"alpha\nbeta\ngamma","startLine":1,"endLine":3,"totalLines":3,"truncated":false}"#
    );
}

fn hint_tree() -> tempfile::TempDir {
    let dir = tree();
    let root = dir.path();
    put(root, "apps/tui/src/complete.ts", "");
    put(root, "apps/tui/src/app.tsx", "");
    put(root, "apps/tui/package.json", "");
    put(root, "packages/smithers/flows/flow/src/Flow.ts", "");
    put(root, "packages/smithers/agent/package.json", "");
    dir
}

#[test]
fn kit_7_3_02_not_found_hints() {
    let dir = hint_tree();
    let base = dir.path();
    let cases = [
        (
            "apps/tui/src/commands.ts",
            "File not found: apps/tui/src/commands.ts. apps/tui/src holds: complete.ts, app.tsx.",
        ),
        (
            "packages/smithers/flow/src/Flow.ts",
            "File not found: packages/smithers/flow/src/Flow.ts. packages/smithers holds: flows, agent.",
        ),
        ("../elsewhere/x.ts", "File not found: ../elsewhere/x.ts"),
    ];
    for (path, message) in cases {
        expect_err(
            read_in(base, &ReadRequest::new(path)),
            ErrorCode::NotFound,
            message,
            Some(path),
        );
    }
    // An absolute path never gets a hint, even when its parent lists.
    let absolute = abs(base, "apps/tui/src/commands.ts");
    expect_err(
        read_in(base, &ReadRequest::new(&absolute)),
        ErrorCode::NotFound,
        &format!("File not found: {absolute}"),
        Some(&absolute),
    );
    expect_err(
        read_in(base, &ReadRequest::new("/apps/tui/src/commands.ts")),
        ErrorCode::NotFound,
        "File not found: /apps/tui/src/commands.ts",
        Some("/apps/tui/src/commands.ts"),
    );
}

#[test]
fn kit_7_3_03_offset_and_limit() {
    let out = read_ok("one\ntwo\nthree", |r| r.offset(2).limit(1));
    assert_eq!((out.start_line, out.end_line, out.total_lines), (2, 2, 3));
    assert_eq!(out.content, "two");
    assert!(out.truncated);
    assert_eq!(
        out.notice.as_deref(),
        Some("Showing 1 of 3 lines; output was truncated.")
    );
}

#[test]
fn kit_7_3_04_trailing_newline_is_not_a_line_and_matches_grep() {
    let dir = tree();
    put(dir.path(), "f.txt", "alpha\nbeta\n");
    let out = read_in(dir.path(), &ReadRequest::new("f.txt")).unwrap();
    assert_eq!((out.start_line, out.end_line, out.total_lines), (1, 2, 2));
    assert_eq!(out.content, "alpha\nbeta");
    assert!(!out.truncated);
    // The same numbering as grep's last hit for `.+`.
    let mut request = GrepRequest::new(".+");
    request.root = Some(abs(dir.path(), "f.txt"));
    let grep = lawsuite::portable::Portable::default()
        .flow_grep(&request)
        .unwrap();
    assert_eq!(grep.matches.last().map(|m| m.line), Some(out.end_line));
    expect_err(
        read_in(dir.path(), &ReadRequest::new("f.txt").offset(3)),
        ErrorCode::OffsetOutOfRange,
        "Line offset 3 is outside f.txt",
        Some("f.txt"),
    );
}

#[test]
fn kit_7_3_05_crlf_kept_in_content() {
    let out = read_ok("one\r\ntwo\r\nthree\r\n", default);
    assert_eq!(out.content, "one\r\ntwo\r\nthree\r");
    assert_eq!((out.start_line, out.end_line, out.total_lines), (1, 3, 3));
    let out = read_ok("one\r\ntwo\r\nthree\r\n", |r| r.offset(2).limit(1));
    assert_eq!(out.content, "two\r");
}

#[test]
fn kit_7_3_06_long_line_clipped() {
    let out = read_ok("x".repeat(2001), default);
    assert!(out.truncated);
    assert!(out.content.len() < 2100);
    assert_eq!(out.content, "x".repeat(2000));
    assert_eq!(
        out.notice.as_deref(),
        Some(
            "Showing 1 of 1 lines; output was truncated. Lines longer than 2000 Unicode scalar values are clipped, so such a line is not an edit anchor."
        )
    );
    assert_eq!((out.start_line, out.end_line), (1, 1));
}

#[test]
fn kit_7_3_07_scalar_clipping() {
    let a = |n| "a".repeat(n);
    let zwj = "👩\u{200D}💻";
    let cases = [
        (format!("{}😀tail", a(1999)), format!("{}😀", a(1999))),
        (format!("{}😀tail", a(2000)), a(2000)),
        (
            format!("{}e\u{301}tail", a(1998)),
            format!("{}e\u{301}", a(1998)),
        ),
        (format!("{}{zwj}tail", a(1997)), format!("{}{zwj}", a(1997))),
    ];
    for (file, content) in cases {
        let out = read_ok(&file, default);
        assert_eq!(out.content, content);
        assert!(out.truncated);
        // Never half a scalar: the content is a char-boundary prefix, and
        // its UTF-16 form holds no lone surrogate.
        assert!(file.starts_with(&out.content));
        assert!(String::from_utf16(&out.content.encode_utf16().collect::<Vec<_>>()).is_ok());
    }
}

#[test]
fn kit_7_3_08_byte_cap_of_a_full_page() {
    let file = vec!["x".repeat(100); 2000].join("\n");
    let out = read_ok(&file, |r| r.limit(2000));
    assert!(out.truncated);
    assert!(out.notice.is_some());
    // 101 bytes per line with its `\n`: 594 lines fit in 60,000 bytes.
    assert_eq!(out.end_line, 594);
    assert!(out.content.len() <= 60_000);
    assert_eq!(
        out.notice.as_deref(),
        Some("Showing 594 of 2000 lines; output was truncated.")
    );
}

#[test]
fn kit_7_3_09_nul_is_binary() {
    expect_err(
        read_bytes("before\0after", default),
        ErrorCode::BinaryFile,
        "Cannot read binary file: f.txt",
        Some("f.txt"),
    );
}

#[test]
fn kit_7_3_10_offset_past_the_end() {
    expect_err(
        read_bytes("one\ntwo", |r| r.offset(4)),
        ErrorCode::OffsetOutOfRange,
        "Line offset 4 is outside f.txt",
        Some("f.txt"),
    );
    // offset = totalLines is fine; totalLines + 1 fails.
    assert_eq!(read_ok("one\ntwo", |r| r.offset(2)).content, "two");
    assert!(read_bytes("one\ntwo", |r| r.offset(3)).is_err());
}

#[test]
fn kit_7_3_11_byte_cut_keeps_whole_numbered_lines() {
    let file: Vec<String> = (0..2000)
        .map(|i| format!("{i}:{}", "x".repeat(100)))
        .collect();
    let out = read_ok(file.join("\n"), default);
    assert!(out.truncated);
    assert!(out.content.ends_with('x'));
    let lines: Vec<&str> = out.content.split('\n').collect();
    assert_eq!(lines.len() as u64, out.end_line - out.start_line + 1);
    assert_eq!(
        *lines.last().unwrap(),
        format!("{}:{}", out.end_line - 1, "x".repeat(100))
    );
    assert_eq!(lines, file[..out.end_line as usize]);
}

#[test]
fn kit_7_3_12_empty_file() {
    let out = read_ok("", default);
    assert_eq!(
        serde_json::to_string(&out).unwrap(),
        r#"{"content":"","startLine":1,"endLine":0,"totalLines":0,"truncated":false}"#
    );
    expect_err(
        read_bytes("", |r| r.offset(2)),
        ErrorCode::OffsetOutOfRange,
        "Line offset 2 is outside f.txt",
        Some("f.txt"),
    );
}

#[test]
fn kit_7_3_13_and_7_4_12_effects() {
    let sealed = |reads: &[&str]| Effects {
        tier: "sealed",
        mode: "hermetic",
        capability: "fs:read:/**",
        reads: reads.iter().map(|s| s.to_string()).collect(),
    };
    assert_eq!(read::effects(), sealed(&["/**"]));
    assert_eq!(
        read::effects_for(&ReadRequest::new("/a.txt")),
        sealed(&["/a.txt"])
    );
    assert_eq!(ls::effects(), sealed(&["/**"]));
    assert_eq!(
        ls::effects_for(&LsRequest::new("/a.txt")),
        sealed(&["/a.txt"])
    );
}

#[test]
fn kit_7_3_14_directory_and_fifo_are_never_opened() {
    let dir = tree();
    mkdir(dir.path(), "special");
    let special = abs(dir.path(), "special");
    expect_err(
        read_in(dir.path(), &ReadRequest::new(&special)),
        ErrorCode::IsDirectory,
        &format!("Cannot read a directory: {special}"),
        Some(&special),
    );
    let fifo_dir = tree();
    let fifo = fifo_dir.path().join("special");
    if !mkfifo(&fifo) {
        eprintln!("SKIP kit_7_3_14 FIFO half: mkfifo is unavailable");
        return;
    }
    let path = abs(fifo_dir.path(), "special");
    let base = fifo_dir.path().to_path_buf();
    let request = ReadRequest::new(&path);
    // Opening a FIFO with no writer blocks; `within` turns that into a failure.
    let result = within(Duration::from_secs(10), move || read_in(&base, &request));
    expect_err(
        result,
        ErrorCode::NotFound,
        &format!("File not found: {path}"),
        Some(&path),
    );
    // A relative FIFO gets no hint either: only stat NotFound does.
    let base = fifo_dir.path().to_path_buf();
    let result = within(Duration::from_secs(10), move || {
        read_in(&base, &ReadRequest::new("special"))
    });
    expect_err(
        result,
        ErrorCode::NotFound,
        "File not found: special",
        Some("special"),
    );
}

#[test]
fn kit_7_3_15_stat_denied_is_permission_denied_without_hint() {
    let dir = tree();
    put(dir.path(), "locked/secret", "x");
    chmod(&dir.path().join("locked"), 0o000);
    let result = denied(dir.path(), "flow/read", "locked/secret");
    chmod(&dir.path().join("locked"), 0o755);
    assert_eq!(
        result,
        (
            "permission_denied".into(),
            "Permission denied: locked/secret".into(),
            Some("locked/secret".into())
        )
    );
}

#[test]
fn kit_7_3_16_working_directory_hints() {
    let apricot = |setup: &dyn Fn(&Path)| {
        let dir = tree();
        setup(dir.path());
        read_in(dir.path(), &ReadRequest::new("./apricot"))
            .expect_err("missing")
            .message
    };
    assert_eq!(apricot(&|_| {}), "File not found: ./apricot");
    assert_eq!(
        apricot(&|d| drop(put(d, ".secret", ""))),
        "File not found: ./apricot"
    );
    assert_eq!(
        apricot(&|d| {
            for name in ["apple", "aardvark", "zebra"] {
                put(d, name, "");
            }
        }),
        "File not found: ./apricot. The working directory holds: apple, aardvark, zebra."
    );
    assert_eq!(
        apricot(&|d| {
            for i in 0..14 {
                put(d, &format!("entry{i}"), "");
            }
        }),
        "File not found: ./apricot. The working directory holds: entry0, entry1, entry10, entry11, entry12, entry13, entry2, entry3, entry4, entry5, entry6, entry7 and 2 more."
    );
    // An unlistable working directory: a base that does not exist.
    let dir = tree();
    let gone = dir.path().join("gone");
    expect_err(
        read_in(&gone, &ReadRequest::new("./apricot")),
        ErrorCode::NotFound,
        "File not found: ./apricot",
        Some("./apricot"),
    );
}

// ------------------------------------------------- read: spec §1.6, §1.7

#[test]
fn open_1_6_listing_order_is_utf16_before_scoring() {
    // The spec's `entry0…entry13` example assumes a listing already in
    // `entry0, entry1, …, entry13` order. The host's order is unspecified;
    // lawsuite sorts the listing by UTF-16 code units first (so `entry10`
    // precedes `entry2`), then stable-sorts by score. With names whose
    // sort order is numeric the spec's sentence comes out verbatim.
    let dir = tree();
    for i in 0..14 {
        put(dir.path(), &format!("entry{i:02}"), "");
    }
    let err = read_in(dir.path(), &ReadRequest::new("./apricot")).unwrap_err();
    assert_eq!(
        err.message,
        "File not found: ./apricot. The working directory holds: entry00, entry01, entry02, entry03, entry04, entry05, entry06, entry07, entry08, entry09, entry10, entry11 and 2 more."
    );
}

#[test]
fn spec_1_6_hint_falls_back_to_shallower_levels_and_drops_dot_segments() {
    let dir = hint_tree();
    let base = dir.path();
    expect_err(
        read_in(base, &ReadRequest::new("./apps//tui/./nope/deeper/x.ts")),
        ErrorCode::NotFound,
        "File not found: ./apps//tui/./nope/deeper/x.ts. apps/tui holds: package.json, src.",
        Some("./apps//tui/./nope/deeper/x.ts"),
    );
    // A `..` anywhere suppresses the hint.
    expect_err(
        read_in(base, &ReadRequest::new("apps/../apps/nope.ts")),
        ErrorCode::NotFound,
        "File not found: apps/../apps/nope.ts",
        Some("apps/../apps/nope.ts"),
    );
    // A dangling symlink is stat NotFound, so it gets the hint.
    std::os::unix::fs::symlink(base.join("nowhere"), base.join("apps/link.ts")).unwrap();
    let err = read_in(base, &ReadRequest::new("apps/link.ts")).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(
        err.message,
        "File not found: apps/link.ts. apps holds: link.ts, tui."
    );
}

#[test]
fn spec_1_7_examples() {
    let out = read_ok("alpha\nbeta\ngamma", default);
    assert_eq!(
        (out.content.as_str(), out.truncated),
        ("alpha\nbeta\ngamma", false)
    );
    let out = read_ok("alpha\nbeta\n", default);
    assert_eq!(
        (out.content.as_str(), out.end_line, out.total_lines),
        ("alpha\nbeta", 2, 2)
    );
    let out = read_ok("one\r\ntwo\r\nthree\r\n", |r| r.offset(2).limit(1));
    assert_eq!(out.content, "two\r");
    let out = read_ok("", default);
    assert_eq!(
        (out.start_line, out.end_line, out.total_lines, out.truncated),
        (1, 0, 0, false)
    );
}

#[test]
fn spec_1_3_too_large_sparse_100_mb() {
    let dir = tree();
    let file = fs::File::create(dir.path().join("big.log")).unwrap();
    file.set_len(100 * 1024 * 1024).unwrap();
    expect_err(
        read_in(dir.path(), &ReadRequest::new("big.log")),
        ErrorCode::ResponseTooLarge,
        "big.log is 104857600 bytes, over the 67108864-byte read limit; search it with grep or print a line range with bash",
        Some("big.log"),
    );
    // Exactly the cap is allowed (and then refused as binary: it is NULs).
    let file = fs::File::create(dir.path().join("cap.log")).unwrap();
    file.set_len(67_108_864).unwrap();
    expect_err(
        read_in(dir.path(), &ReadRequest::new("cap.log")),
        ErrorCode::BinaryFile,
        "Cannot read binary file: cap.log",
        Some("cap.log"),
    );
}

#[test]
fn spec_1_3_invalid_utf8_and_bom() {
    expect_err(
        read_bytes(b"ok\n\xff\n", default),
        ErrorCode::BinaryFile,
        "File is not valid UTF-8: f.txt",
        Some("f.txt"),
    );
    let out = read_ok(b"\xEF\xBB\xBFfirst\nsecond", default);
    assert_eq!(out.content, "first\nsecond");
    // Only one BOM is the decoder's; a second is content.
    let out = read_ok(b"\xEF\xBB\xBF\xEF\xBB\xBFx", default);
    assert_eq!(out.content, "\u{FEFF}x");
}

#[test]
fn spec_1_3_dot_dot_paths_resolve_like_any_relative_path() {
    // `..` is not refused by the spec: it only suppresses the hint.
    let dir = tree();
    put(dir.path(), "outside.txt", "there");
    mkdir(dir.path(), "ws");
    let ws = dir.path().join("ws");
    assert_eq!(
        read_in(&ws, &ReadRequest::new("../outside.txt"))
            .unwrap()
            .content,
        "there"
    );
    expect_err(
        read_in(&ws, &ReadRequest::new("../missing.txt")),
        ErrorCode::NotFound,
        "File not found: ../missing.txt",
        Some("../missing.txt"),
    );
}

#[test]
fn open_1_3_other_stat_failures_are_command_failed() {
    // ENOTDIR (a file used as a directory) is neither NotFound nor
    // PermissionDenied, so it takes the read-side "anything else" row.
    let dir = tree();
    put(dir.path(), "file.txt", "x");
    expect_err(
        read_in(dir.path(), &ReadRequest::new("file.txt/inner")),
        ErrorCode::CommandFailed,
        "Could not read file.txt/inner: Not a directory",
        Some("file.txt/inner"),
    );
}

#[test]
fn open_1_1_empty_path_and_zero_paging_fields() {
    let dir = tree();
    // Node's stat("") is ENOENT; there are no segments, so no hint.
    expect_err(
        read_in(dir.path(), &ReadRequest::new("")),
        ErrorCode::NotFound,
        "File not found: ",
        Some(""),
    );
    put(dir.path(), "f.txt", "x");
    expect_err(
        read_in(dir.path(), &ReadRequest::new("f.txt").offset(0)),
        ErrorCode::InvalidInput,
        "Invalid read input: offset must be an integer of at least 1, got 0",
        None,
    );
    expect_err(
        read_in(dir.path(), &ReadRequest::new("f.txt").limit(0)),
        ErrorCode::InvalidInput,
        "Invalid read input: limit must be an integer of at least 1, got 0",
        None,
    );
    // A negative or fractional number is refused by the wire type itself.
    assert!(serde_json::from_str::<ReadRequest>(r#"{"path":"f","offset":-1}"#).is_err());
    assert!(serde_json::from_str::<ReadRequest>(r#"{"path":"f","limit":1.5}"#).is_err());
    assert!(serde_json::from_str::<ReadRequest>(r#"{"path":"f","extra":1}"#).is_err());
}

#[test]
fn spec_1_5_a_line_ending_exactly_at_the_cut_is_dropped() {
    // 40 lines of 1034 `é` (2068 bytes, under the scalar clip). With their
    // `\n`s, line k (1-based) ends at byte 2069k − 1, so line 29 ends exactly
    // at byte 60,000, just before its `\n`: complete, and still dropped.
    let line = "é".repeat(1034);
    let out = read_ok(vec![line.as_str(); 40].join("\n"), default);
    assert_eq!(out.end_line, 28);
    assert_eq!(out.content.len(), 28 * 2069 - 1);
    assert_eq!(
        out.notice.as_deref(),
        Some("Showing 28 of 40 lines; output was truncated.")
    );
}

#[test]
fn spec_1_5_byte_cut_backs_off_to_a_scalar_boundary() {
    // 29 lines of 2000 `x` (2001 bytes each with the `\n`) end at byte
    // 58,029; then 500 `😀` put a 4-byte scalar across byte 60,000. The
    // prefix backs off to 59,997, and its last `\n` leaves the 29 lines.
    let mut lines = vec!["x".repeat(2000); 29];
    lines.push("😀".repeat(500));
    lines.push("tail".into());
    let out = render_page("f", &lines.join("\n"), 1, 2000).unwrap();
    assert!(
        out.content == lines[..29].join("\n"),
        "cut at {} bytes",
        out.content.len()
    );
    assert_eq!(
        (out.end_line, out.total_lines, out.truncated),
        (29, 31, true)
    );
    assert_eq!(
        out.notice.as_deref(),
        Some("Showing 29 of 31 lines; output was truncated.")
    );
}

#[test]
fn open_1_5_a_clipped_line_past_the_byte_cut_still_earns_the_suffix() {
    // §1.5: `longLines` is about the page, not the content after the cut.
    let mut lines = vec!["x".repeat(1000); 70];
    lines.push("y".repeat(2500));
    let out = render_page("f", &lines.join("\n"), 1, 2000).unwrap();
    assert!(!out.content.contains('y'));
    assert!(
        out.notice
            .unwrap()
            .ends_with("so such a line is not an edit anchor.")
    );
}

#[test]
fn spec_1_3_symlink_to_a_file_is_read() {
    let dir = tree();
    put(dir.path(), "real.txt", "via link");
    std::os::unix::fs::symlink(dir.path().join("real.txt"), dir.path().join("link.txt")).unwrap();
    assert_eq!(
        read_in(dir.path(), &ReadRequest::new("link.txt"))
            .unwrap()
            .content,
        "via link"
    );
}

#[test]
fn open_read_with_unreadable_file_is_permission_denied() {
    let dir = tree();
    let file = put(dir.path(), "secret", "x");
    chmod(&file, 0o000);
    let result = denied(dir.path(), "flow/read", "secret");
    chmod(&file, 0o644);
    assert_eq!(
        result,
        (
            "permission_denied".into(),
            "Permission denied: secret".into(),
            Some("secret".into())
        )
    );
}

// -------------------------------------------------------- ls: kit §7.4

fn ws_tree() -> tempfile::TempDir {
    let dir = tree();
    for rel in ["ws/z.txt", "ws/a.txt", "ws/dir/b.txt", "ws/another/c.txt"] {
        put(dir.path(), rel, "");
    }
    dir
}

#[test]
fn kit_7_4_01_directories_first() {
    let dir = ws_tree();
    let out = ls_in(dir.path(), &LsRequest::new("ws")).unwrap();
    assert_eq!(
        out.entries,
        [
            entry("another/", EntryKind::Directory),
            entry("dir/", EntryKind::Directory),
            entry("a.txt", EntryKind::File),
            entry("z.txt", EntryKind::File),
        ]
    );
    assert_eq!((out.total, out.truncated, out.notice), (4, false, None));
    assert_eq!(
        serde_json::to_string(&ls_in(dir.path(), &LsRequest::new("ws/dir")).unwrap()).unwrap(),
        r#"{"entries":[{"name":"b.txt","kind":"file"}],"total":1,"truncated":false}"#
    );
}

#[test]
fn kit_7_4_02_utf16_code_unit_order() {
    let dir = tree();
    let decomposed = "e\u{301}.txt";
    let precomposed = "\u{e9}.txt";
    for name in [
        "a.txt",
        "A.txt",
        "_.txt",
        "!.txt",
        precomposed,
        decomposed,
        "😀.txt",
        "𐀀.txt",
        "z.txt",
        "Z.txt",
        "Ω.txt",
    ] {
        put(dir.path(), name, "");
    }
    let out = ls_in(dir.path(), &LsRequest::new(".")).unwrap();
    assert_eq!(
        names(&out),
        [
            "!.txt",
            "A.txt",
            "Z.txt",
            "_.txt",
            "a.txt",
            decomposed,
            "z.txt",
            precomposed,
            "Ω.txt",
            "𐀀.txt",
            "😀.txt"
        ]
    );
}

#[test]
fn kit_7_4_03_offset_and_limit() {
    let dir = tree();
    for name in ["a", "b", "c"] {
        put(dir.path(), name, "");
    }
    let out = ls_in(dir.path(), &LsRequest::new(".").offset(2).limit(1)).unwrap();
    assert_eq!(out.entries, [entry("b", EntryKind::File)]);
    assert_eq!((out.total, out.truncated), (3, true));
    assert_eq!(
        out.notice.as_deref(),
        Some("Showing 1 of 3 entries; output was truncated.")
    );
}

#[test]
fn kit_7_4_04_limit_is_capped_at_1000() {
    let dir = tree();
    for i in 0..1001 {
        put(dir.path(), &format!("f{i:04}"), "");
    }
    let out = ls_in(dir.path(), &LsRequest::new(".").limit(2000)).unwrap();
    assert_eq!(
        (out.entries.len(), out.total, out.truncated),
        (1000, 1001, true)
    );
    assert_eq!(
        out.notice.as_deref(),
        Some("Showing 1000 of 1001 entries; output was truncated.")
    );
    // The default limit (2000) is capped the same way.
    assert_eq!(
        ls_in(dir.path(), &LsRequest::new("."))
            .unwrap()
            .entries
            .len(),
        1000
    );
    let last = ls_in(dir.path(), &LsRequest::new(".").offset(1001)).unwrap();
    assert_eq!((names(&last), last.truncated), (vec!["f1000"], false));
}

#[test]
fn kit_7_4_05_order_before_paging() {
    let dir = tree();
    for name in ["e", "c", "b", "a"] {
        put(dir.path(), name, "");
    }
    mkdir(dir.path(), "d");
    let out = ls_in(dir.path(), &LsRequest::new(".").offset(2).limit(2)).unwrap();
    assert_eq!(
        out.entries,
        [entry("a", EntryKind::File), entry("b", EntryKind::File)]
    );
    assert_eq!(out.total, 5);
    // "Each entry stat-ed once" is pinned in the unit tests of `flow::ls`,
    // where the stat is injectable.
}

#[test]
fn kit_7_4_06_missing_directory() {
    let dir = tree();
    let missing = abs(dir.path(), "missing");
    expect_err(
        ls_in(dir.path(), &LsRequest::new(&missing)),
        ErrorCode::NotFound,
        &format!("Directory not found: {missing}"),
        Some(&missing),
    );
    // No hint for ls, relative or not.
    expect_err(
        ls_in(dir.path(), &LsRequest::new("missing")),
        ErrorCode::NotFound,
        "Directory not found: missing",
        Some("missing"),
    );
}

#[test]
fn kit_7_4_07_a_file_is_not_a_directory() {
    let dir = ws_tree();
    let file = abs(dir.path(), "ws/z.txt");
    expect_err(
        ls_in(dir.path(), &LsRequest::new(&file)),
        ErrorCode::NotADirectory,
        &format!("Cannot list a file: {file}"),
        Some(&file),
    );
}

#[test]
fn kit_7_4_08_offset_past_the_end() {
    let dir = tree();
    for name in ["ws/a", "ws/b", "ws/c"] {
        put(dir.path(), name, "");
    }
    expect_err(
        ls_in(dir.path(), &LsRequest::new("ws").offset(4)),
        ErrorCode::OffsetOutOfRange,
        "Entry offset 4 is outside ws, which has 3 entries",
        Some("ws"),
    );
    assert_eq!(
        ls_in(dir.path(), &LsRequest::new("ws").offset(3))
            .unwrap()
            .entries
            .len(),
        1
    );
}

#[test]
fn kit_7_4_09_empty_directory() {
    let dir = tree();
    let out = ls_in(dir.path(), &LsRequest::new(".")).unwrap();
    assert_eq!(
        serde_json::to_string(&out).unwrap(),
        r#"{"entries":[],"total":0,"truncated":false}"#
    );
    expect_err(
        ls_in(dir.path(), &LsRequest::new(".").offset(2)),
        ErrorCode::OffsetOutOfRange,
        "Entry offset 2 is outside ., which has 0 entries",
        Some("."),
    );
}

#[test]
fn kit_7_4_10_paging_walks_the_whole_order() {
    let dir = tree();
    for name in ["a.txt", "m.txt"] {
        put(dir.path(), name, "");
    }
    for name in ["zdir", "bdir"] {
        mkdir(dir.path(), name);
    }
    let whole = ls_in(dir.path(), &LsRequest::new(".")).unwrap();
    assert_eq!(names(&whole), ["bdir/", "zdir/", "a.txt", "m.txt"]);
    let mut paged = Vec::new();
    for offset in 1..=4 {
        let page = ls_in(dir.path(), &LsRequest::new(".").offset(offset).limit(1)).unwrap();
        assert_eq!(page.total, 4);
        assert_eq!(page.truncated, offset < 4);
        paged.extend(page.entries);
    }
    assert_eq!(paged, whole.entries);
}

#[test]
fn kit_7_4_11_notice_only_when_entries_remain() {
    let dir = tree();
    put(dir.path(), "a.txt", "");
    mkdir(dir.path(), "zdir");
    let first = ls_in(dir.path(), &LsRequest::new(".").limit(1)).unwrap();
    assert_eq!(names(&first), ["zdir/"]);
    assert_eq!(
        first.notice.as_deref(),
        Some("Showing 1 of 2 entries; output was truncated.")
    );
    let second = ls_in(dir.path(), &LsRequest::new(".").offset(2).limit(1)).unwrap();
    assert_eq!(
        serde_json::to_string(&second).unwrap(),
        r#"{"entries":[{"name":"a.txt","kind":"file"}],"total":2,"truncated":false}"#
    );
}

// -------------------------------------------------------- ls: spec §2

#[test]
fn spec_2_4_broken_entry_is_a_file() {
    // The spec's `broken` is an entry whose stat fails; a dangling symlink
    // reproduces that without permissions.
    let dir = tree();
    put(dir.path(), "plain", "");
    mkdir(dir.path(), "zdir");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), dir.path().join("broken")).unwrap();
    let out = ls_in(dir.path(), &LsRequest::new(".").offset(2).limit(1)).unwrap();
    assert_eq!(
        serde_json::to_string(&out).unwrap(),
        r#"{"entries":[{"name":"broken","kind":"file"}],"total":3,"truncated":true,"notice":"Showing 1 of 3 entries; output was truncated."}"#
    );
}

#[test]
fn spec_2_3_entry_kinds_follow_symlinks() {
    let dir = tree();
    let root = dir.path();
    put(root, "file", "");
    mkdir(root, "sub");
    std::os::unix::fs::symlink(root.join("sub"), root.join("to-dir")).unwrap();
    std::os::unix::fs::symlink(root.join("file"), root.join("to-file")).unwrap();
    std::os::unix::fs::symlink(root.join("gone"), root.join("dangling")).unwrap();
    std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
    let fifo = mkfifo(&root.join("pipe"));
    let out = ls_in(root, &LsRequest::new(".")).unwrap();
    let mut expected = vec![
        entry("sub/", EntryKind::Directory),
        entry("to-dir/", EntryKind::Directory),
        entry("dangling", EntryKind::File),
        entry("file", EntryKind::File),
        entry("loop", EntryKind::File),
    ];
    if fifo {
        expected.push(entry("pipe", EntryKind::File));
    }
    expected.push(entry("to-file", EntryKind::File));
    assert_eq!(out.entries, expected);
    // The listed directory may itself be a symlink to a directory.
    assert_eq!(ls_in(root, &LsRequest::new("to-dir")).unwrap().total, 0);
}

#[test]
fn spec_2_3_hidden_and_skip_list_names_are_listed() {
    let dir = tree();
    for name in [".git", "node_modules", ".venv"] {
        mkdir(dir.path(), name);
    }
    put(dir.path(), ".env", "");
    let out = ls_in(dir.path(), &LsRequest::new(".")).unwrap();
    assert_eq!(names(&out), [".git/", ".venv/", "node_modules/", ".env"]);
}

#[test]
fn spec_2_3_dot_dot_and_zero_fields() {
    let dir = ws_tree();
    let ws = dir.path().join("ws");
    assert_eq!(
        ls_in(&ws.join("dir"), &LsRequest::new("..")).unwrap().total,
        4
    );
    expect_err(
        ls_in(&ws, &LsRequest::new(".").limit(0)),
        ErrorCode::InvalidInput,
        "Invalid ls input: limit must be an integer of at least 1, got 0",
        None,
    );
    expect_err(
        ls_in(&ws, &LsRequest::new("")),
        ErrorCode::NotFound,
        "Directory not found: ",
        Some(""),
    );
}

#[test]
fn spec_2_4_root_listing_denied() {
    let dir = tree();
    mkdir(dir.path(), "search");
    chmod(&dir.path().join("search"), 0o000);
    let result = denied(dir.path(), "flow/ls", "search");
    chmod(&dir.path().join("search"), 0o755);
    assert_eq!(
        result,
        (
            "permission_denied".into(),
            "Permission denied: search".into(),
            Some("search".into())
        )
    );
}

// ------------------------------------------------------------ bash: §4

fn run(req: BashRequest) -> lawsuite::flow::BashOutput {
    let dir = tree();
    bash_in(dir.path(), &req).unwrap_or_else(|err| panic!("bash failed: {err:?}"))
}

#[test]
fn bash_small_output_and_key_order() {
    let out = run(BashRequest::command("printf out; printf err >&2; exit 3"));
    assert_eq!(
        serde_json::to_string(&out).unwrap(),
        r#"{"exitCode":3,"stdout":"out","stderr":"err","stdoutTruncated":false,"stderrTruncated":false,"stdoutDroppedBytes":0,"stderrDroppedBytes":0}"#
    );
}

#[test]
fn bash_keeps_the_tail_and_counts_dropped_bytes() {
    let expected: String = (1..=20_000).map(|i| format!("{i}\n")).collect();
    let out = run(BashRequest::command("seq 1 20000"));
    assert_eq!(
        out.stdout,
        expected[expected.len() - MAX_SHELL_OUTPUT_BYTES..]
    );
    assert!(out.stdout_truncated);
    assert_eq!(
        out.stdout_dropped_bytes,
        (expected.len() - MAX_SHELL_OUTPUT_BYTES) as u64
    );
    assert!(!out.stderr_truncated);
}

#[test]
fn bash_stderr_is_bounded_on_its_own() {
    let out = run(BashRequest::command(
        "printf hi; head -c 40000 /dev/zero | tr '\\0' e >&2",
    ));
    assert_eq!(
        (
            out.stdout.as_str(),
            out.stdout_truncated,
            out.stdout_dropped_bytes
        ),
        ("hi", false, 0)
    );
    assert_eq!(out.stderr, "e".repeat(30_000));
    assert!(out.stderr_truncated);
    assert_eq!(out.stderr_dropped_bytes, 10_000);
}

#[test]
fn bash_a_gigabyte_costs_the_bound() {
    fn peak_rss_kib() -> Option<u64> {
        let status = fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }
    let before = peak_rss_kib();
    let out = run(BashRequest::command("head -c 1000000000 /dev/zero"));
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.stdout, "\0".repeat(30_000));
    assert!(out.stdout_truncated);
    assert_eq!(out.stdout_dropped_bytes, 1_000_000_000 - 30_000);
    if let (Some(before), Some(after)) = (before, peak_rss_kib()) {
        // Other tests run in parallel, so allow generous slack; holding the
        // gigabyte would add ~1,000,000 KiB.
        assert!(
            after < before + 300_000,
            "peak RSS grew from {before} KiB to {after} KiB"
        );
    }
}

#[test]
fn bash_leading_continuation_bytes_of_a_cut_tail_are_dropped() {
    // 10,001 `€` (3 bytes) + `x` = 30,004 bytes: 4 dropped at capture, which
    // leaves 2 continuation bytes of the second `€` at the head.
    let out = run(BashRequest::script(
        "i=0; while [ $i -lt 10001 ]; do printf '\\342\\202\\254'; i=$((i+1)); done; printf x",
    ));
    assert_eq!(out.stdout, format!("{}x", "€".repeat(9_999)));
    assert_eq!(out.stdout_dropped_bytes, 6);
    assert!(out.stdout_truncated);
}

#[test]
fn bash_lossy_growth_is_cut_again() {
    // 30,000 `FF` bytes fit the capture, decode to 90,000 bytes of U+FFFD,
    // and the final cut keeps 10,000 of them.
    let out = run(BashRequest::command(
        "head -c 30000 /dev/zero | tr '\\0' '\\377'",
    ));
    assert_eq!(out.stdout, "\u{FFFD}".repeat(10_000));
    assert!(out.stdout_truncated);
    assert_eq!(out.stdout_dropped_bytes, 60_000);
}

#[test]
fn bash_timeout_fails_and_kills_the_group_without_zombies() {
    let dir = tree();
    let started = Instant::now();
    let err = bash_in(
        dir.path(),
        &BashRequest::command("echo $$ > shell.pid; sleep 30 & echo $! > child.pid; wait")
            .with_timeout_ms(300),
    )
    .unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (
            ErrorCode::Timeout,
            "Command timed out: echo $$ > shell.pid; sleep 30 & echo $! > child.pid; wait"
        )
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    let pid = |name: &str| {
        fs::read_to_string(dir.path().join(name))
            .unwrap()
            .trim()
            .to_string()
    };
    // The shell is our child: it must have been reaped, not left a zombie.
    assert!(
        !Path::new(&format!("/proc/{}", pid("shell.pid"))).exists(),
        "shell not reaped"
    );
    // The grandchild was killed with the group (it may linger as a zombie of
    // whichever init adopted it, but it does not run).
    // SIGKILL is asynchronous: give the kernel a moment to finish the exit.
    let stat_path = format!("/proc/{}/stat", pid("child.pid"));
    let waited = Instant::now();
    loop {
        let stat = fs::read_to_string(&stat_path).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next());
        if matches!(state, None | Some("Z") | Some("X")) {
            break;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(5),
            "grandchild still running: {stat}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn bash_timeout_never_reports_an_exit_code() {
    // §4 contrast: `shell_command` would return exit code 124; `bash` fails.
    let err = bash_in(
        &std::env::temp_dir(),
        &BashRequest::script("sleep 5").with_timeout_ms(100),
    )
    .unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (ErrorCode::Timeout, "Command timed out: bash -s --")
    );
    let python = BashRequest {
        interpreter: Some("python3".into()),
        args: Some(vec!["a".into()]),
        ..BashRequest::script("import time; time.sleep(5)")
    }
    .with_timeout_ms(100);
    let err = bash_in(&std::env::temp_dir(), &python).unwrap_err();
    // Without python3 on the host this is a spawn failure instead.
    if err.code != ErrorCode::Timeout {
        eprintln!("SKIP python3 half: {err:?}");
    } else {
        assert_eq!(err.message, "Command timed out: python3 - a");
    }
}

#[test]
fn open_bash_a_background_writer_holds_the_output_open() {
    // The shell exits at once, but `sleep` inherited stdout: the capture is
    // not complete until every writer closes it, so the call times out
    // (as the reference, which waits for both streams, does).
    let err = bash_in(
        &std::env::temp_dir(),
        &BashRequest::command("sleep 30 & echo started").with_timeout_ms(300),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout);
    // Redirected away, the same background job does not hold the call.
    let out =
        run(BashRequest::command("sleep 1 >/dev/null 2>&1 & echo started").with_timeout_ms(5_000));
    assert_eq!(out.stdout, "started\n");
}

#[test]
fn open_bash_signal_death_is_128_plus_signal() {
    assert_eq!(run(BashRequest::command("kill -9 $$")).exit_code, 137);
    assert_eq!(run(BashRequest::command("exit 0")).exit_code, 0);
}

#[test]
fn bash_spawn_failure_is_command_failed() {
    let dir = tree();
    let req = BashRequest {
        cwd: Some("missing".into()),
        ..BashRequest::command("echo hi")
    };
    expect_err(
        bash_in(dir.path(), &req),
        ErrorCode::CommandFailed,
        "Command failed to start: exec: echo hi: No such file or directory",
        None,
    );
}

#[test]
fn bash_script_args_stdin_env_and_cwd() {
    let dir = tree();
    mkdir(dir.path(), "sub");
    let script = BashRequest {
        args: Some(vec!["-c".into(), "two words".into()]),
        ..BashRequest::script("printf '%s|' \"$@\"; pwd")
    };
    let out = bash_in(&dir.path().join("sub"), &script).unwrap();
    let sub = fs::canonicalize(dir.path().join("sub")).unwrap();
    assert_eq!(out.stdout, format!("-c|two words|{}\n", sub.display()));
    let piped = BashRequest {
        stdin: Some("fed".into()),
        ..BashRequest::command("cat")
    };
    assert_eq!(run(piped).stdout, "fed");
    // Without stdin the command reads an empty input, not the harness's.
    assert_eq!(
        run(BashRequest::command("cat").with_timeout_ms(5_000)).stdout,
        ""
    );
    let env = BashRequest {
        env: Some([("LAWSUITE_PROBE".to_string(), "set".to_string())].into()),
        cwd: Some("sub".into()),
        ..BashRequest::command("printf \"$LAWSUITE_PROBE\"; basename \"$PWD\"")
    };
    assert_eq!(bash_in(dir.path(), &env).unwrap().stdout, "setsub\n");
}

#[test]
fn bash_conflicting_fields_are_invalid_input() {
    let req: BashRequest = serde_json::from_str(r#"{"command":"x","script":"y"}"#).unwrap();
    expect_err(
        bash_in(&std::env::temp_dir(), &req),
        ErrorCode::InvalidInput,
        "Give command or script, never both: a script is program text, a command is a shell line",
        None,
    );
    assert!(serde_json::from_str::<BashRequest>(r#"{"command":"x","container":"c"}"#).is_err());
}

// --------------------------------------------------------- properties

/// A random file: lines drawn from short, long (clipped), wide (multi-byte)
/// and CRLF shapes, so pages cross every cap.
fn file_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        "[a-z]{0,12}",
        "x{1990,2010}",
        "(é|😀|e\u{301}){0,2100}",
        "[a-z]{0,5}\r",
        Just(String::new()),
    ];
    (proptest::collection::vec(line, 0..60), any::<bool>()).prop_map(|(lines, trailing)| {
        let mut text = lines.join("\n");
        if trailing {
            text.push('\n');
        }
        text
    })
}

fn check_page(
    text: &str,
    offset: u64,
    limit: u64,
    out: Result<ReadOutput, StdError>,
) -> Result<(), TestCaseError> {
    let total = lawsuite::contract::text::source_lines_of(text).count() as u64;
    match out {
        Err(err) => {
            prop_assert_eq!(err.code, ErrorCode::OffsetOutOfRange);
            prop_assert!(offset > total.max(1));
        }
        Ok(out) => {
            prop_assert!(offset <= total.max(1));
            prop_assert_eq!(out.total_lines, total);
            prop_assert_eq!(out.start_line, offset);
            prop_assert!(out.end_line + 1 >= out.start_line);
            let shown = out.end_line + 1 - out.start_line;
            // Content line count = endLine − startLine + 1 (a page of one
            // empty line is `""`, so count by `split` when lines are shown).
            if shown == 0 {
                prop_assert_eq!(out.content.as_str(), "");
            } else {
                prop_assert_eq!(out.content.split('\n').count() as u64, shown);
            }
            prop_assert!(out.content.len() <= 60_000);
            prop_assert!(shown <= limit);
            // Every shown line is the file's line, clipped to 2000 scalars.
            let source: Vec<&str> = lawsuite::contract::text::source_lines_of(text).collect();
            if shown > 0 {
                for (i, line) in out.content.split('\n').enumerate() {
                    let original = source[(offset - 1) as usize + i];
                    prop_assert!(original.starts_with(line));
                    prop_assert!(line.chars().count() <= 2000);
                    if line.len() < original.len() {
                        prop_assert_eq!(line.chars().count(), 2000);
                    }
                }
            }
            prop_assert_eq!(out.truncated, out.notice.is_some());
            if out.end_line < total {
                prop_assert!(out.truncated);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn prop_render_page_never_panics(text in file_text(), offset in 1u64..70, limit in 1u64..70) {
        check_page(&text, offset, limit, render_page("f", &text, offset, limit))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn prop_read_of_real_files_pages_whole_lines(text in file_text(), offset in 1u64..70, limit in prop_oneof![Just(None), (1u64..70).prop_map(Some)]) {
        let dir = tree();
        put(dir.path(), "f.txt", &text);
        let mut req = ReadRequest::new("f.txt").offset(offset);
        req.limit = limit;
        check_page(&text, offset, limit.unwrap_or(2000), read_in(dir.path(), &req))?;
    }
}
