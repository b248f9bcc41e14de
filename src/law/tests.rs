//! The law loader's and runner's tests.

mod unit {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use crate::law::format::expand_pieces;
    use crate::law::load::{check, inside};
    use crate::law::tree::{files, unescape_bytes};
    use crate::law::*;
    use crate::peer::Method;

    #[test]
    fn bytes_escapes() {
        assert_eq!(unescape_bytes("a\\x00b\\\\").unwrap(), b"a\0b\\");
        assert!(unescape_bytes("\\q").is_err());
        assert!(unescape_bytes("\\x0").is_err());
    }

    #[test]
    fn pieces_expand_in_expectations_and_leave_other_tables_alone() {
        let mut value = serde_json::json!({
            "content": { "parts": [{ "text": "ab", "repeat": 2 }, "\n", { "parts": ["x"], "repeat": 3 }] },
            "entries": [{ "name": "a", "kind": "file" }],
            "matches": [{ "text": "kept", "line": 1 }],
        });
        expand_pieces(&mut value).unwrap();
        assert_eq!(value["content"], "abab\nxxx");
        assert_eq!(value["entries"][0]["name"], "a");
        assert_eq!(value["matches"][0]["text"], "kept");
        let mut both = serde_json::json!({ "text": "a", "parts": [], "repeat": 1 });
        assert!(expand_pieces(&mut both).is_err());
        let mut huge = serde_json::json!({ "text": "ab", "repeat": usize::MAX });
        assert!(
            expand_pieces(&mut huge)
                .unwrap_err()
                .to_string()
                .contains("over")
        );
    }

    #[test]
    fn counted_entries_are_zero_padded() {
        let law: Law = toml::from_str(
            "name = \"n\"\nspec = \"read-ls-flows §2.1\"\nmethod = \"flow/ls\"\ninput = { path = \".\" }\ntree.\"d/f{i}\" = { text = \"\", count = 11 }\nexpect = { total = 11, truncated = false }\nexpect_lengths = { entries = 11 }\n",
        )
        .unwrap();
        check(&law).unwrap();
        let (files, special) = files(&law).unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!((names[0], names[10], special.len()), ("d/f00", "d/f10", 0));
        let mut clash = law.clone();
        clash
            .expect
            .as_mut()
            .unwrap()
            .insert("entries".into(), toml::Value::Array(vec![]));
        assert!(
            check(&clash)
                .unwrap_err()
                .to_string()
                .contains("expect_lengths")
        );
        let mut pathless = law;
        pathless.input.remove("path");
        assert!(
            check(&pathless)
                .unwrap_err()
                .to_string()
                .contains("input.path")
        );
    }

    #[test]
    fn coverage_names_both_specs() {
        let law = |spec: &str| LoadedLaw {
            id: spec.into(),
            file: PathBuf::new(),
            law: Law {
                name: "x".into(),
                spec: spec.into(),
                decision: None,
                method: Method::FlowRead,
                input: toml::Table::new(),
                tree: BTreeMap::new(),
                expect: None,
                expect_error: Some(crate::contract::ErrorCode::NotFound),
                expect_message: None,
                expect_lengths: BTreeMap::new(),
            },
        };
        let mut laws: Vec<LoadedLaw> = (2..=18)
            .map(|n| law(&format!("search-contract §{n}.1")))
            .collect();
        let missing = uncovered_sections(&laws);
        assert_eq!(missing.len(), READ_LS_SECTIONS.len());
        assert_eq!(missing[0], "read-ls-flows §1.1");
        laws.extend(
            READ_LS_SECTIONS
                .iter()
                .map(|s| law(&format!("read-ls-flows §{s}"))),
        );
        laws.pop(); // §4
        laws.push(law("read-ls-flows §4.2"));
        assert!(uncovered_sections(&laws).is_empty());
        laws.retain(|l| l.law.spec != "read-ls-flows §1.5");
        assert_eq!(uncovered_sections(&laws), ["read-ls-flows §1.5"]);
    }

    #[test]
    fn paths_must_stay_inside() {
        assert!(inside("src/a").is_ok());
        assert!(inside("a/../b").is_ok());
        assert!(inside("../x").is_err());
        assert!(inside("a/../../x").is_err());
        assert!(inside("/etc").is_err());
    }
}

mod load {
    use crate::law::*;

    #[test]
    fn a_broken_file_is_reported_with_its_line_and_the_rest_still_loads() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("grep")).unwrap();
        std::fs::write(
            dir.path().join("grep/good.toml"),
            "[[law]]\nname = \"a\"\nspec = \"search-contract §13\"\nmethod = \"flow/grep\"\ninput = { pattern = \"x\" }\nexpect_error = \"not_found\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("grep/bad.toml"),
            "[[law]]\nname = \"b\"\nspec = 3 3\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("grep/unknown.toml"),
            "[[law]]\nname = \"c\"\nspec = \"search-contract §13\"\nmethod = \"flow/grep\"\ninput = {}\nexpect_error = \"not_found\"\nsurprise = 1\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("grep/escape.toml"),
            "[[law]]\nname = \"d\"\nspec = \"search-contract §7\"\nmethod = \"flow/grep\"\ninput = { pattern = \"x\", root = \"../..\" }\nexpect_error = \"not_found\"\n",
        )
        .unwrap();
        let (laws, errors) = load_dir(dir.path());
        assert_eq!(laws.len(), 1);
        assert_eq!(laws[0].id, "grep::good::a");
        assert_eq!(errors.len(), 3, "{errors:?}");
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            text.iter()
                .any(|t| t.contains("bad.toml") && t.contains("line 3")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("unknown.toml") && t.contains("surprise")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("escape.toml") && t.contains("leaves the tree")),
            "{text:?}"
        );
    }

    /// A link in a law directory back to a directory above it is refused
    /// with a problem naming it, and each law loads once; a link to a
    /// directory elsewhere is followed.
    #[cfg(unix)]
    #[test]
    fn a_link_cycle_is_refused_and_each_law_loads_once() {
        let dir = tempfile::tempdir().unwrap();
        let laws = dir.path().join("laws");
        std::fs::create_dir_all(laws.join("grep")).unwrap();
        std::fs::write(
            laws.join("grep/good.toml"),
            "[[law]]\nname = \"a\"\nspec = \"search-contract §7\"\nmethod = \"glob\"\ninput = { pattern = \"*\" }\nexpect = { paths = [], total = 0, truncated = false }\n",
        )
        .unwrap();
        std::os::unix::fs::symlink(".", laws.join("self")).unwrap();
        std::os::unix::fs::symlink("..", laws.join("grep/up")).unwrap();
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(
            other.join("more.toml"),
            "[[law]]\nname = \"b\"\nspec = \"search-contract §7\"\nmethod = \"glob\"\ninput = { pattern = \"*\" }\nexpect = { paths = [], total = 0, truncated = false }\n",
        )
        .unwrap();
        std::os::unix::fs::symlink(&other, laws.join("linked")).unwrap();
        let (loaded, errors) = load_dir(&laws);
        let ids: Vec<&str> = loaded.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(ids, ["grep::good::a", "linked::more::b"], "{errors:?}");
        assert_eq!(errors.len(), 2, "{errors:?}");
        for e in &errors {
            assert!(matches!(e.problem, LawProblem::LinkCycle { .. }), "{e}");
            assert!(e.to_string().contains("link back to"), "{e}");
        }
    }
}

mod hostile {
    use crate::law::*;

    fn one(text: &str) -> (Vec<LoadedLaw>, Vec<LawError>) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.toml"), text).unwrap();
        load_dir(dir.path())
    }

    /// A FIFO (or socket, or sized file) under a symlink to the tree's
    /// parent is refused: the link itself leaves the tree, so the law does
    /// not load, and nothing is made outside the tree.
    #[test]
    fn special_entries_cannot_escape_through_a_symlink() {
        let name = format!("lawsuite-pwned-{}", std::process::id());
        for kind in ["fifo = true", "socket = true"] {
            let (laws, errors) = one(&format!(
                "[[law]]\nname = \"escape\"\nspec = \"read-ls-flows §2.1\"\nmethod = \"flow/ls\"\ninput = {{ path = \".\" }}\ntree.out = {{ symlink = \"..\" }}\ntree.\"out/{name}\" = {{ {kind} }}\nexpect = {{ total = 0, truncated = false }}\n"
            ));
            // Refused when the law is loaded: its link leaves the tree.
            assert!(laws.is_empty(), "{kind}");
            assert!(
                errors
                    .iter()
                    .any(|e| e.to_string().contains("points outside the tree")),
                "{errors:?}"
            );
            assert!(
                !crate::environment::trees_dir().join(&name).exists(),
                "{kind} made outside the tree"
            );
        }
    }

    #[test]
    fn count_and_size_are_capped_with_a_law_file_error() {
        let (_, errors) = one(
            "[[law]]\nname = \"many\"\nspec = \"read-ls-flows §2.1\"\nmethod = \"flow/ls\"\ninput = { path = \".\" }\ntree.\"f{i}\" = { text = \"\", count = 200000 }\nexpect = { total = 0, truncated = false }\n",
        );
        assert!(
            errors[0]
                .to_string()
                .contains("over the limit of 10000 entries"),
            "{errors:?}"
        );
        let (_, errors) = one(
            "[[law]]\nname = \"huge\"\nspec = \"read-ls-flows §1.1\"\nmethod = \"flow/read\"\ninput = { path = \"f\" }\ntree.f = { text = \"\", size = 1099511627776 }\nexpect_error = \"response_too_large\"\n",
        );
        assert!(errors[0].to_string().contains("1 GiB"), "{errors:?}");
    }
}

mod judged {
    use crate::law::run::{LawOutcome, run};
    use crate::law::*;

    /// A failing law says which field differs first, not only that the
    /// answer differs (said on every failure before).
    #[test]
    fn a_wrong_answer_names_the_first_field_that_differs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("x.toml"),
            "[[law]]\nname = \"wrong\"\nspec = \"search-contract §8\"\nmethod = \"flow/glob\"\ninput = { pattern = \"*.ts\" }\ntree.\"a.ts\" = \"\"\nexpect = { paths = [\"b.ts\"], total = 1, truncated = false }\n",
        )
        .unwrap();
        let (laws, errors) = load_dir(dir.path());
        assert!(errors.is_empty(), "{errors:?}");
        let LawOutcome::Fail(failure) = run(&laws[0], &crate::portable::Portable::with_threads(1))
        else {
            panic!("the law expects a wrong path");
        };
        assert_eq!(
            failure.problems[0],
            "the answer differs from the expected one at /paths/0: \"a.ts\", expected \"b.ts\"",
            "{failure:?}"
        );
    }
}

/// A misspelled `expect_error` is a load error naming the file, the law's
/// line and the codes there are: it used to load, and the law failed on
/// every peer.
#[test]
fn a_misspelled_error_code_is_a_load_error() {
    let text = "[[law]]\nname = \"x\"\nspec = \"search-contract §1\"\nmethod = \"glob\"\ninput = { pattern = \"*\", root = \"missing\" }\nexpect_error = \"not_fuond\"\n";
    let (laws, problems) = super::load_text("glob/typo.toml", text);
    assert!(laws.is_empty());
    let said = problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        said.contains("typo.toml") && said.contains("not_fuond") && said.contains("not_found"),
        "{said}"
    );
}

/// An input that is not its method's call is a load error naming the law.
#[test]
fn an_input_of_the_wrong_shape_is_a_load_error() {
    let text = "[[law]]\nname = \"x\"\nspec = \"search-contract §1\"\nmethod = \"glob\"\ninput = { pattern = 7 }\nexpect_error = \"invalid_input\"\n";
    let (laws, problems) = super::load_text("glob/shape.toml", text);
    assert!(laws.is_empty());
    let said = problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        said.contains("shape.toml") && said.contains("law \"x\""),
        "{said}"
    );
    assert!(said.contains("not valid for glob"), "{said}");
}

/// A symlink whose relative target climbs out of the tree is refused at
/// load, as an absolute one is: a peer would read outside the tree.
#[test]
fn a_symlink_climbing_out_of_the_tree_is_a_load_error() {
    let law = |target: &str| {
        format!(
            "[[law]]\nname = \"x\"\nspec = \"search-contract §7\"\nmethod = \"glob\"\ninput = {{ pattern = \"*\" }}\ntree.\"d/link\" = {{ symlink = \"{target}\" }}\nexpect_error = \"not_found\"\n"
        )
    };
    let (_, problems) = super::load_text("glob/link.toml", &law("../../etc/passwd"));
    assert!(
        problems
            .iter()
            .any(|p| p.to_string().contains("points outside the tree")),
        "{problems:?}"
    );
    let (laws, problems) = super::load_text("glob/link.toml", &law("../sibling"));
    assert!(problems.is_empty() && laws.len() == 1, "{problems:?}");
}
