//! The regression corpus as stable tests: every case file under `corpus/` is judged, through the
//! target registry, against each variant of its verdicts. A failure names the file and shows the
//! diff; the run reports every mismatch, not just the first.

use std::path::{Path, PathBuf};

use ctxfuzz::harness::replay;
use ctxfuzz::transcript::case::CaseFile;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// The corpus directories of registered targets (the others hold data for other tests, or wait
/// for their target to join the registry: named on stderr).
fn registered_dirs() -> Vec<PathBuf> {
    let (dirs, others) = replay::target_dirs(&corpus()).unwrap();
    for other in others {
        eprintln!("corpus/{other}: not a registered target, not replayed");
    }
    dirs
}

#[test]
fn every_case_in_the_corpus_replays_with_its_recorded_verdicts() {
    let files = replay::case_files(&registered_dirs()).unwrap();
    assert!(!files.is_empty(), "the corpus is empty");
    let mut report = String::new();
    for file in &files {
        let case = CaseFile::read(file).unwrap_or_else(|e| panic!("{e:#}"));
        let mismatches = replay::replay(&case, false)
            .unwrap_or_else(|e| panic!("{}: {e:#}", file.display()))
            .mismatches;
        for mismatch in mismatches {
            report.push_str(&format!(
                "\n{} [{}] ({})\n{}",
                file.display(),
                mismatch.variant,
                case.why,
                mismatch.diff
            ));
        }
    }
    assert!(report.is_empty(), "corpus mismatches:{report}");
}

#[test]
fn every_case_file_sits_in_the_directory_of_its_target() {
    for dir in registered_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        for file in replay::case_files(&[dir]).unwrap() {
            let case = CaseFile::read(&file).unwrap();
            assert_eq!(case.target, name, "{}", file.display());
        }
    }
}

#[test]
fn a_wrong_verdict_is_reported_with_a_diff() {
    let file = corpus().join("sweep").join("gh11-custom.json");
    let mut case = CaseFile::read(&file).unwrap();
    let strict = case.verdicts.get_mut("strict").unwrap();
    strict.push("no-orphan-result".to_string());
    let mismatches = replay::replay(&case, false).unwrap().mismatches;
    assert_eq!(mismatches.len(), 1);
    assert_eq!(mismatches[0].variant, "strict");
    assert!(
        mismatches[0].diff.contains("-no-orphan-result"),
        "{}",
        mismatches[0].diff
    );
}

/// `replay --show` says what a case shows without a mismatch to prompt it: per variant, its
/// verdict, each violation with its evidence, and the diff that explains them.
#[test]
fn a_case_replayed_with_show_shows_each_variant_s_violations_and_diff() {
    let file = corpus().join("sweep").join("gh11-custom.json");
    let out = crate::common::ctxfuzz(&["replay", "--show", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = crate::common::stdout(&out);
    let case = CaseFile::read(&file).unwrap();
    assert!(
        text.starts_with(&format!("{}: {}\n", file.display(), case.why)),
        "{text}"
    );
    for (variant, verdict) in &case.verdicts {
        let shown = if verdict.is_empty() {
            "passes".to_string()
        } else {
            verdict.join(", ")
        };
        assert!(
            text.contains(&format!("\n[{variant}] {shown}\n")),
            "{variant}: {text}"
        );
    }
    let none = &text[text.find("\n[none] ").unwrap()..];
    assert!(none.contains("\n  no-duplicate-tool-use-id: "), "{none}");
    assert!(none.contains("\n    evidence: {"), "{none}");
    assert!(none.contains("\n  diff:\n    --- "), "{none}");
    assert!(text.ends_with("0 mismatch(es)\n"), "{text}");
    let quiet = crate::common::ctxfuzz(&["replay", file.to_str().unwrap()]);
    assert!(!crate::common::stdout(&quiet).contains("[none]"));
}

/// A file that is no case file is an error naming the file, and the line and column where its
/// text stops being JSON; a JSON object of another shape is named for what it lacks.
#[test]
fn a_file_that_is_no_case_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("case.json");
    for (text, error) in [
        (
            "{\"target\": \"sweep\",\n  \"why\": }",
            "case.json:2:10: invalid JSON: expected value",
        ),
        (
            "{\"messages\": []}",
            "case.json: not a case file: unknown field `messages`",
        ),
        ("\u{feff}{}", "case.json:1:1: "),
    ] {
        std::fs::write(&file, text).unwrap();
        let error_text = format!("{:#}", CaseFile::read(&file).unwrap_err());
        assert!(error_text.contains(error), "{text:?}: {error_text}");
    }
    std::fs::write(&file, b"{\"why\": \"\xff\"}").unwrap();
    let error_text = format!("{:#}", CaseFile::read(&file).unwrap_err());
    assert!(
        error_text.contains("case.json:1:10: invalid UTF-8"),
        "{error_text}"
    );
}
