//! The regression loop end to end: a peer with a planted bug diverges on a
//! generated plan, the divergence is shrunk and written as a regression
//! file, and the file then fails on the buggy peer and passes on the
//! reference — the path `LAWSUITE_RECORD=1 cargo test` and `lawsuite record`
//! take.

use lawsuite::contract::{GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};
use lawsuite::kit::compare::{Compared, compare_plan};
use lawsuite::kit::plan::PlanOptions;
use lawsuite::kit::regression::{Recorded, Regression, list, record};
use lawsuite::kit::smthrs;
use lawsuite::peer::Search;
use lawsuite::portable::Portable;

/// Portable, but `maxCount` is ignored: drift 2's shape (conformance-kit §6).
struct IgnoresMaxCount(Portable);

impl Search for IgnoresMaxCount {
    fn name(&self) -> &str {
        "ignores-max-count"
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        let mut input = input.clone();
        input.max_count = None;
        self.0.grep(&input)
    }
    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        self.0.glob(input)
    }
}

#[test]
fn a_divergence_is_shrunk_recorded_and_replayed() {
    let reference = Portable::default();
    let buggy = IgnoresMaxCount(Portable::default());
    // Find a seed where the planted bug shows.
    let (plan, divergence) = (1..200u32)
        .find_map(|seed| {
            let plan = smthrs::plan(seed, "/r", &PlanOptions::default());
            let d = compare_plan(&plan, &reference, &[Compared::new(&buggy)])
                .unwrap()
                .into_iter()
                .next()?;
            Some((plan, d))
        })
        .expect("the planted bug shows within 200 seeds");
    let dir = tempfile::tempdir().unwrap();
    let record = || {
        record(
            &plan,
            divergence.call_index,
            &divergence.call,
            &reference,
            &buggy,
            dir.path(),
            None,
        )
        .unwrap()
        .0
    };
    let Recorded::Written(path) = record() else {
        panic!("the first divergence of its kind is written")
    };
    // The same divergence again is pinned already: no second file.
    let again = record();
    assert!(
        matches!(&again, Recorded::AlreadyPinned { by, .. } if *by == path),
        "{again:?}"
    );
    assert_eq!(list(dir.path()), std::slice::from_ref(&path));

    let regression = Regression::load(&path).unwrap();
    assert_eq!(regression.generator, "smthrs");
    assert_eq!(regression.seed, plan.seed);
    assert!(regression.why.contains("ignores-max-count"));
    // Shrunk: far fewer files than the plan's 25, and the call keeps maxCount.
    assert!(
        regression.files.len() < plan.files.len(),
        "{} files",
        regression.files.len()
    );
    let lawsuite::call::Call::Grep(input) = &regression.call else {
        panic!("a grep call")
    };
    assert!(input.max_count.is_some());

    assert!(
        regression.replay(&reference, &path).unwrap().is_ok(),
        "the reference agrees with its own answer"
    );
    let mismatch = regression.replay(&buggy, &path).unwrap().unwrap_err();
    assert!(
        mismatch.to_string().contains("answer differs"),
        "{mismatch}"
    );
}

#[test]
fn a_regression_that_escapes_its_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("escape.json");
    std::fs::write(
        &path,
        r#"{"why":"x","generator":"smthrs","generatorVersion":1,"seed":1,"callIndex":0,"peers":[],"root":"/r",
            "files":[{"path":"../outside.txt","content":"x"}],
            "call":{"method":"glob","input":{"pattern":"*","root":"/r","hidden":false,"noIgnore":false,"limit":10}},
            "expected":{}}"#,
    )
    .unwrap();
    let regression = Regression::load(&path).unwrap();
    let err = regression.replay(&Portable::default(), &path).unwrap_err();
    assert!(err.to_string().contains("refuses to write"), "{err}");
    assert!(!dir.path().parent().unwrap().join("outside.txt").exists());
}

/// A shrunk `read` divergence round-trips through a regression file.
#[test]
fn a_read_regression_is_written_and_replayed() {
    use lawsuite::call::Call;
    use lawsuite::flow::ReadRequest;
    use lawsuite::kit::plan::{GeneratedFile, Plan};
    use lawsuite::kit::regression::shrink_to_regression;

    let plan = Plan {
        generator: "lawsuite".into(),
        version: 2,
        seed: 9,
        ground: lawsuite::peer::Ground::Shared,
        root: "/r".into(),
        files: vec![
            GeneratedFile::new("a.txt", "one\r\ntwo\r\n"),
            GeneratedFile::new("b.txt", "unrelated\n"),
        ],
        grep: vec![],
        glob: vec![],
        read: vec![ReadRequest::new("/r/a.txt").offset(2).limit(1)],
        ls: vec![],
        flow: vec![],
    };
    // A peer that answers read differently from portable: it is the
    // `noop` peer, which refuses every read as unsupported.
    let call = Call::Read(plan.read[0].clone());
    let (regression, _) = shrink_to_regression(
        &plan,
        0,
        call,
        &Portable::default(),
        &lawsuite::peer::Noop,
        None,
    )
    .unwrap();
    // The divergence is "refused where the reference answers": the file
    // stays (without it the reference refuses too, which is another
    // divergence), emptied.
    assert_eq!(
        regression.files,
        [GeneratedFile::new("a.txt", "")],
        "{:?}",
        regression.files
    );
    assert_eq!(regression.call, Call::Read(ReadRequest::new("/r/a.txt")));
    let dir = tempfile::tempdir().unwrap();
    let path = regression.write(dir.path(), "read-case").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"method\": \"flow/read\""), "{text}");
    let back = Regression::load(&path).unwrap();
    assert!(back.replay(&Portable::default(), &path).unwrap().is_ok());
}

/// `record` with a temporary directory that cannot be written reports the
/// setup failure, never "agrees … nothing to shrink".
#[test]
fn record_with_an_unwritable_tmpdir_is_a_setup_failure() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n[[peer]]\nname = \"other\"\nbuiltin = \"portable\"\n",
    )
    .unwrap();
    // A regular file where the temporary directory should be: even root
    // cannot create a directory below it.
    let not_a_dir = dir.path().join("tmp-is-a-file");
    std::fs::write(&not_a_dir, "").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .args(["record", "--seed", "1", "--call", "0", "--peer", "other"])
        .current_dir(dir.path())
        .env("TMPDIR", &not_a_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("cannot set up smthrs seed 1"), "{stderr}");
    assert!(stderr.contains("tmp-is-a-file"), "{stderr}");
    assert!(!stderr.contains("nothing to shrink"), "{stderr}");
}
