//! The nightly script end to end, as the nightly job runs it (`ci/nightly-fuzz.sh sweep 20`,
//! real cargo-fuzz, real libFuzzer): with the pre-fix sweep (`CTXFUZZ_VARIANT=none`) every crash
//! becomes a case file of a violation charged to `none`, one per distinct finding, that
//! `ctxfuzz replay` reproduces; with the default (fixed) variant the run ends clean. Both leave a
//! report in its three forms. One test, so the two runs share one instrumented build.
//!
//! The build is the one `ci/fuzz-build.sh` makes (stable, no sanitizer) rather than the nightly
//! job's ASan build: the script's path is the same and no nightly toolchain is needed. That build
//! is a second, instrumented build of the whole crate, so the test is ignored by the test command
//! and `.ci/run` runs it right after `ci/fuzz-build.sh`, reusing the build
//! (`cargo test --release --test ctxfuzz nightly:: -- --ignored`).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

const SECONDS: &str = "20";

/// The nightly's own `ASAN_OPTIONS`, which a caller's are laid over.
const NIGHTLY_ASAN_OPTIONS: &str = "detect_stack_use_after_return=0:malloc_context_size=0";

fn nightly(out: &Path, variant: Option<&str>, asan_options: Option<&str>) -> Output {
    let mut command = Command::new("bash");
    command
        .args(["ci/nightly-fuzz.sh", "sweep", SECONDS])
        .env("CTXFUZZ_NIGHTLY_OUT", out)
        .env("CTXFUZZ_FUZZ_TOOLCHAIN", "stable")
        .env("CTXFUZZ_FUZZ_SANITIZER", "none")
        .env_remove("CTXFUZZ_VARIANT")
        .env_remove("ASAN_OPTIONS");
    if let Some(variant) = variant {
        command.env("CTXFUZZ_VARIANT", variant);
    }
    if let Some(options) = asan_options {
        command.env("ASAN_OPTIONS", options);
    }
    command.output().expect("run ci/nightly-fuzz.sh")
}

/// `run.json`'s build and `ASAN_OPTIONS`, as the script recorded them.
fn recorded_build(out: &Path) -> (Value, Value) {
    let record = json(&out.join("runs/sweep/run.json"));
    (record["sanitizer"].clone(), record["asan_options"].clone())
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn case_files(out: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(out.join("findings"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

fn assert_report_in_three_forms(out: &Path) -> (String, Value) {
    for name in ["report.md", "report.html", "report.json"] {
        assert!(out.join(name).is_file(), "no {name} in {}", out.display());
    }
    (
        std::fs::read_to_string(out.join("report.md")).unwrap(),
        json(&out.join("report.json")),
    )
}

#[test]
#[ignore = "needs the cargo-fuzz build: .ci/run runs it after ci/fuzz-build.sh"]
fn a_defect_variant_leaves_one_replayable_case_per_finding_and_the_fixed_one_none() {
    let dir = tempfile::tempdir().unwrap();

    let defect = dir.path().join("none");
    let output = nightly(&defect, Some("none"), None);
    let log = text(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "findings fail the job\n{log}"
    );
    assert_eq!(
        recorded_build(&defect),
        (json!("none"), json!(NIGHTLY_ASAN_OPTIONS))
    );
    let conversion = json(&defect.join("runs/sweep/conversion.json"));
    assert_eq!(
        conversion["not_reproduced"],
        json!([]),
        "every artifact crashes `none`\n{log}"
    );
    let groups = conversion["groups"].as_array().unwrap();
    let cases = case_files(&defect);
    assert!(!cases.is_empty(), "no case file\n{log}");
    assert!(
        cases.len() <= groups.len(),
        "{} case files for {} groups",
        cases.len(),
        groups.len()
    );
    let artifacts: u64 = groups
        .iter()
        .map(|g| g["artifacts"].as_u64().unwrap())
        .sum();
    assert!(artifacts >= groups.len() as u64);
    for case in &cases {
        let case_json = json(case);
        let verdicts = case_json["verdicts"].as_object().unwrap();
        assert_eq!(
            verdicts.keys().collect::<Vec<_>>(),
            ["none"],
            "{}",
            case.display()
        );
        let replay = Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
            .arg("replay")
            .arg(case)
            .output()
            .unwrap();
        assert!(replay.status.success(), "{}", text(&replay));
    }
    for group in groups {
        assert_eq!(group["variant"], "none");
        assert_eq!(group["cause"], "system under test", "{group}");
    }
    let (markdown, report) = assert_report_in_three_forms(&defect);
    assert_eq!(report["findings"].as_array().unwrap().len(), cases.len());
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["variant"] == "none" && f["cause"] == "system under test"),
        "{report}"
    );
    assert!(markdown.contains("distinct finding(s)"), "{markdown}");
    assert!(
        !report["runs"][0]["stats"]["samples"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let fixed = dir.path().join("default");
    // A caller's options come after the nightly's, so that they win.
    let output = nightly(&fixed, None, Some("malloc_context_size=30"));
    let log = text(&output);
    assert_eq!(output.status.code(), Some(0), "{log}");
    let recorded = recorded_build(&fixed);
    assert_eq!(
        recorded,
        (
            json!("none"),
            json!(format!("{NIGHTLY_ASAN_OPTIONS}:malloc_context_size=30"))
        )
    );
    assert_eq!(
        case_files(&fixed),
        Vec::<std::path::PathBuf>::new(),
        "{log}"
    );
    let (markdown, report) = assert_report_in_three_forms(&fixed);
    assert!(markdown.contains("**No findings**"), "{markdown}");
    assert_eq!(
        (
            &report["runs"][0]["sanitizer"],
            &report["runs"][0]["asan_options"]
        ),
        (&recorded.0, &recorded.1),
        "the report shows the run's build as recorded"
    );
    assert_eq!(report["findings"], json!([]));
}
