//! `ctxfuzz fuzz`, `replay` and `minimize` end to end: exit codes, files written, the commands a
//! finding prints.

use std::path::Path;
use std::process::{Command, Output};

fn ctxfuzz(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_defective_rule_exits_1_with_replayable_findings() {
    let dir = tempfile::tempdir().unwrap();
    let run = ctxfuzz(
        &[
            "fuzz", "--target", "sweep", "--rule", "none", "--runs", "3000", "--seed", "1",
        ],
        dir.path(),
    );
    let out = text(&run);
    assert_eq!(run.status.code(), Some(1), "{out}");
    assert!(out.contains("charged to the system under test:"), "{out}");
    assert!(
        out.contains("regenerate: ctxfuzz fuzz --target sweep --variant none --seed 1 --case"),
        "{out}"
    );
    let findings: Vec<_> = std::fs::read_dir(dir.path().join("findings"))
        .unwrap()
        .collect();
    assert!(!findings.is_empty());

    // Every finding replays as recorded.
    let replay = ctxfuzz(&["replay", "findings"], dir.path());
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
    assert!(
        text(&replay).contains("0 mismatch(es)"),
        "{}",
        text(&replay)
    );
}

#[test]
fn the_correct_rule_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let run = ctxfuzz(
        &[
            "fuzz", "--target", "sweep", "--runs", "2000", "--seed", "2", "--out", "f",
        ],
        dir.path(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    assert!(text(&run).contains("charged to the system under test: no findings"));
}

#[test]
fn a_single_case_regenerates_the_same_finding() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "fuzz", "--target", "sweep", "--rule", "none", "--seed", "1", "--case", "0", "--out", "one",
    ];
    let first = ctxfuzz(&args, dir.path());
    let second = ctxfuzz(&args, dir.path());
    assert_eq!(first.status.code(), Some(1), "{}", text(&first));
    let names = |d: &str| {
        let mut n: Vec<_> = std::fs::read_dir(dir.path().join(d))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        n.sort();
        n
    };
    assert!(text(&first).contains("1 execs"), "{}", text(&first));
    assert_eq!(
        text(&first)
            .lines()
            .filter(|l| l.starts_with("finding:"))
            .count(),
        text(&second)
            .lines()
            .filter(|l| l.starts_with("finding:"))
            .count()
    );
    assert!(!names("one").is_empty());
}

#[test]
fn a_wrong_verdict_in_a_case_file_exits_1_with_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    let case = serde_json::json!({
        "target": "sweep",
        "why": "a wrong verdict",
        "profile": {},
        "input": [{"role": "assistant", "content": [{"type": "toolCall", "id": "a"}]},
                  {"role": "custom"},
                  {"role": "toolResult", "toolCallId": "a"}],
        "verdicts": {"none": []}
    });
    std::fs::write(dir.path().join("case.json"), case.to_string()).unwrap();
    let replay = ctxfuzz(&["replay", "case.json"], dir.path());
    let out = text(&replay);
    assert_eq!(replay.status.code(), Some(1), "{out}");
    assert!(
        out.contains("MISMATCH case.json [none]") && out.contains("+no-duplicate-tool-use-id"),
        "{out}"
    );
}

#[test]
fn minimize_shrinks_a_case_and_an_artifact_keeping_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let case = serde_json::json!({
        "target": "sweep",
        "why": "the gh-11 brick with padding",
        "profile": {},
        "input": [{"role": "user", "content": "hi"},
                  {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "toolCall", "id": "toolu_123456789", "name": "ls", "arguments": {}}]},
                  {"role": "custom", "customType": "note", "content": "x"},
                  {"role": "toolResult", "toolCallId": "toolu_123456789", "content": [{"type": "text", "text": "a b c"}]},
                  {"role": "user", "content": "thanks"}],
        "verdicts": {"none": ["no-duplicate-tool-use-id", "sweep-matches-twin", "wire-valid"], "strict": []}
    });
    std::fs::write(dir.path().join("case.json"), case.to_string()).unwrap();
    let replay = ctxfuzz(&["replay", "case.json"], dir.path());
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));

    let min = ctxfuzz(&["minimize", "case.json", "-o", "small.json"], dir.path());
    assert_eq!(min.status.code(), Some(0), "{}", text(&min));
    let small: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("small.json")).unwrap())
            .unwrap();
    assert!(small["input"].as_array().unwrap().len() < 5, "{small}");
    assert_eq!(small["verdicts"], case["verdicts"]);
    let replay = ctxfuzz(&["replay", "small.json"], dir.path());
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));

    // A libFuzzer artifact: the JSON bytes of a transcript, decoded as the fuzz target does.
    std::fs::write(dir.path().join("crash-1"), case["input"].to_string()).unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let artifact = ctxfuzz(
        &[
            "minimize",
            "--from-artifact",
            "sweep",
            "crash-1",
            "--rule",
            "none",
            "--out",
            "out/",
        ],
        dir.path(),
    );
    assert_eq!(artifact.status.code(), Some(0), "{}", text(&artifact));
    let written: Vec<_> = std::fs::read_dir(dir.path().join("out")).unwrap().collect();
    assert_eq!(written.len(), 1);
    let replay = ctxfuzz(&["replay", "out"], dir.path());
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
}

#[test]
fn export_seeds_writes_one_libfuzzer_input_per_case() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = dir.path().join("seeds");
    let run = ctxfuzz(&["replay", "--export-seeds", seeds.to_str().unwrap()], root);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let sweep: Vec<_> = std::fs::read_dir(seeds.join("sweep")).unwrap().collect();
    assert!(sweep.len() >= 10);
    assert!(seeds.join("oracle_json").is_dir());
}
