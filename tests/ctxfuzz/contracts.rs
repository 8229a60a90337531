//! Contracts for external programs (`ctxfuzz fuzz --contract repair|cut --format F --sut CMD`):
//! the reference programs in `tests/sut/` pass with nothing charged; each deliberately wrong
//! variant breaks exactly the promise it is built to break. The bridges into each format are
//! tested in `bridges`.

use std::path::Path;
use std::process::Command;

use ctxfuzz::harness::progress::Progress;
use ctxfuzz::harness::runner::{self, Config, RunOutcome};
use ctxfuzz::harness::targets::contract::ContractTarget;
use ctxfuzz::harness::targets::contract::SUT_THREW;
use ctxfuzz::harness::{Class, Profile, Target};
use ctxfuzz_oracles::contracts::{cut, prune, repair};
use ctxfuzz_oracles::invariants::compaction::NO_NEW_ORPHANS;
use serde_json::{Value, json};

const MARKER: &str = "[ctxfuzz-synthetic]";

fn program(script: &str, args: &str) -> String {
    format!(
        "python3 {}/tests/sut/{script} {args}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn profile(contract: &str, format: &str, sut: &str) -> Profile {
    Profile::from_value(&json!({"contract": contract, "format": format, "sut": sut, "marker": MARKER, "sut_timeout_ms": 5_000})).unwrap()
}

fn fuzz(target: &ContractTarget, runs: u64) -> RunOutcome {
    let config = Config {
        seed: 13,
        first: 0,
        runs: Some(runs),
        time: None,
        jobs: 2,
    };
    runner::fuzz(target, &config, &mut Progress::Hidden, &|_, _| {})
}

/// The reference program `tests/sut/SCRIPT` under its contract, with `--bug BUG` unless empty.
fn reference(contract: &str, format: &str, script: &str, bug: &str) -> ContractTarget {
    let args = if bug.is_empty() {
        String::new()
    } else {
        format!("--bug {bug}")
    };
    ContractTarget::from_profile(&profile(contract, format, &program(script, &args))).unwrap()
}

fn repairer(bug: &str) -> ContractTarget {
    reference("repair", "openai", "repair.py", bug)
}

fn count(outcome: &RunOutcome, class: Class, invariant: &str) -> u64 {
    outcome
        .stats
        .violations
        .get(&(class, invariant))
        .copied()
        .unwrap_or(0)
}

fn charged(outcome: &RunOutcome) -> Vec<&'static str> {
    outcome
        .stats
        .violations
        .keys()
        .filter(|(class, _)| *class == Class::Charged)
        .map(|(_, id)| *id)
        .collect()
}

#[test]
fn contracts_the_reference_repairer_is_charged_nothing_and_skips_are_counted() {
    let target = repairer("");
    let outcome = fuzz(&target, 300);
    assert_eq!(
        charged(&outcome),
        Vec::<&str>::new(),
        "{:#?}",
        outcome.stats
    );
    let skipped: u64 = target.cannot_express().values().sum();
    assert_eq!(
        skipped, outcome.stats.rejected,
        "every rejected case is a counted skip"
    );
    assert!(outcome.stats.execs > 100, "{:#?}", outcome.stats);
}

#[test]
fn contracts_each_wrong_repairer_breaks_its_promise() {
    for (bug, invariant) in [
        ("unanswered", repair::WIRE_VALID),
        ("drops-steering", repair::KEEPS_OTHER_MESSAGES),
        ("drops-real", repair::KEEPS_REAL_RESULTS),
        ("extra", repair::NO_EXTRA_RESULT),
        ("unmarked", repair::SYNTHETIC_RECOGNISABLE),
        ("flips", repair::IDEMPOTENT),
    ] {
        let outcome = fuzz(&repairer(bug), 150);
        assert!(
            count(&outcome, Class::Charged, invariant.id) > 0,
            "{bug}: {:#?}",
            outcome.stats
        );
    }
}

#[test]
fn contracts_a_refusal_is_reported_in_its_own_class() {
    let outcome = fuzz(&repairer("throws"), 300);
    assert!(
        count(&outcome, Class::Informational, SUT_THREW.id) > 0,
        "{:#?}",
        outcome.stats
    );
    assert_eq!(charged(&outcome), Vec::<&str>::new());
}

fn pruner(bug: &str) -> ContractTarget {
    reference("prune", "ai-sdk", "prune.py", bug)
}

#[test]
fn contracts_the_reference_pruner_is_charged_nothing() {
    let outcome = fuzz(&pruner(""), 300);
    assert_eq!(
        charged(&outcome),
        Vec::<&str>::new(),
        "{:#?}",
        outcome.stats
    );
    assert!(outcome.stats.execs > 100, "{:#?}", outcome.stats);
}

#[test]
fn contracts_each_wrong_pruner_breaks_its_promise() {
    for (bug, invariant) in [
        ("adds", prune::ONLY_REMOVES),
        ("splits", prune::NO_NEW_WIRE_DAMAGE),
        ("drops-user", prune::ONLY_REMOVES),
    ] {
        let outcome = fuzz(&pruner(bug), 150);
        assert!(
            count(&outcome, Class::Charged, invariant.id) > 0,
            "{bug}: {:#?}",
            outcome.stats
        );
    }
}

/// A pruner that puts one notice carrying the marker first is charged nothing, unless the notice
/// stands in for a user's message it dropped.
#[test]
fn contracts_a_pruner_s_marked_notice_is_accepted_and_hides_no_loss() {
    for (bug, charged_invariants) in [("", vec![]), ("--bug hides", vec![prune::ONLY_REMOVES.id])] {
        let sut = program("prune.py", &format!("--notice '{MARKER}' {bug}"));
        let target = ContractTarget::from_profile(&profile("prune", "ai-sdk", &sut)).unwrap();
        let outcome = fuzz(&target, 150);
        assert_eq!(
            charged(&outcome),
            charged_invariants,
            "{bug}: {:#?}",
            outcome.stats
        );
        assert!(outcome.stats.execs > 50, "{:#?}", outcome.stats);
    }
}

fn cutter(bug: &str) -> ContractTarget {
    reference("cut", "openai", "cut.py", bug)
}

#[test]
fn contracts_the_reference_cutter_is_charged_nothing() {
    let outcome = fuzz(&cutter(""), 300);
    assert_eq!(
        charged(&outcome),
        Vec::<&str>::new(),
        "{:#?}",
        outcome.stats
    );
}

#[test]
fn contracts_each_wrong_cutter_breaks_its_promise() {
    for (bug, invariant) in [
        ("out-of-range", cut::BOUNDARY_IN_RANGE),
        ("splits", NO_NEW_ORPHANS),
        ("gives-up", cut::COMPACTS_WHEN_ASKED),
    ] {
        let outcome = fuzz(&cutter(bug), 150);
        assert!(
            count(&outcome, Class::Charged, invariant.id) > 0,
            "{bug}: {:#?}",
            outcome.stats
        );
    }
}

/// `--json` names what the format could not express, by reason, and those are the rejected cases.
#[test]
fn contracts_json_counts_what_the_format_cannot_express_by_reason() {
    let out = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args([
            "fuzz",
            "--contract",
            "repair",
            "--format",
            "openai",
            "--marker",
            MARKER,
        ])
        .args(["--sut", &program("repair.py", "")])
        .args([
            "--runs", "300", "--seed", "3", "--jobs", "1", "--json", "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    let target = &report["targets"][0];
    let reasons = target["cannot_express"].as_object().expect("an object");
    let skipped: u64 = reasons.values().filter_map(Value::as_u64).sum();
    assert!(skipped > 0, "{target}");
    assert_eq!(Some(skipped), target["rejected"].as_u64(), "{target}");
}

#[test]
fn contracts_a_finding_is_a_case_file_replay_reproduces() {
    let out = tempfile::tempdir().unwrap();
    let ctxfuzz = env!("CARGO_BIN_EXE_ctxfuzz");
    let status = Command::new(ctxfuzz)
        .args(["fuzz", "--contract", "cut", "--format", "openai", "--sut"])
        .arg(program("cut.py", "--bug out-of-range"))
        .args(["--runs", "20", "--seed", "3", "--jobs", "1", "--out"])
        .arg(out.path())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    let case = std::fs::read_dir(out.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&case).unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["target"], "contract");
    assert_eq!(file["profile"]["contract"], "cut");
    assert_eq!(file["profile"]["format"], "openai");
    assert!(
        file["profile"]["sut"].as_str().unwrap().contains("cut.py"),
        "{text}"
    );
    let replay = Command::new(ctxfuzz)
        .arg("replay")
        .arg(&case)
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert!(Path::new(&case).exists());
}

#[test]
fn contracts_the_target_records_what_replay_needs() {
    let target = cutter("");
    assert_eq!(target.variant().to_string(), "cut:openai");
    let recorded = target.profile().to_value();
    assert_eq!(recorded["contract"], "cut");
    assert_eq!(recorded["marker"], MARKER);
    let built = |profile| ContractTarget::from_profile(&Profile::from_value(&profile).unwrap());
    assert!(built(json!({"contract": "sweep", "sut": "x"})).is_err());
    // A format it does not know is refused where the profile is read.
    assert!(
        Profile::from_value(&json!({"contract": "repair", "format": "xml", "sut": "x"})).is_err()
    );
}

/// A peers folder holding one manifest `id` whose command is `command`, and the baseline given.
fn peers_dir(
    id: &str,
    contract: &str,
    command: &str,
    baseline: Option<Value>,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let peer = dir.path().join(id);
    std::fs::create_dir(&peer).unwrap();
    let manifest = format!(
        "id = \"{id}\"\npackage = \"reference\"\nversion = \"1.0.0\"\nregistry = \"none\"\nlicense = \"MIT\"\n\
         contract = \"{contract}\"\nformat = \"openai\"\ncommand = \"{command}\"\n\
         synthetic = {{ text_contains = \"{MARKER}\" }}\n"
    );
    std::fs::write(peer.join("peer.toml"), manifest).unwrap();
    if let Some(baseline) = baseline {
        std::fs::write(peer.join("baseline.json"), baseline.to_string()).unwrap();
    }
    dir
}

/// `ctxfuzz peers --json` over `dir`, the same 400 cases every time: the exit code and the rows.
/// Findings are written to `dir/findings/`.
fn peers(dir: &Path) -> (Option<i32>, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args([
            "peers", "--runs", "400", "--seed", "4", "--jobs", "1", "--json", "--peers",
        ])
        .arg(dir)
        .arg("--out")
        .arg(dir.join("findings"))
        .output()
        .unwrap();
    let rows = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code(), rows)
}

#[test]
fn contracts_peers_prints_one_row_per_peer_and_passes_a_correct_one() {
    let dir = peers_dir("reference", "repair", &program("repair.py", ""), None);
    let (code, rows) = peers(dir.path());
    assert_eq!(code, Some(0), "{rows:#}");
    let row = &rows[0];
    assert_eq!(row["peer"], "reference");
    assert_eq!(row["package"], "reference@1.0.0");
    assert_eq!(row["contract"], "repair");
    assert!(row["execs"].as_u64().unwrap() > 0, "{row:#}");
    assert_eq!(row["charged"], json!({}));
    assert!(
        row["unpreventable"].is_object() && row["skipped"].is_u64(),
        "{row:#}"
    );
}

/// The line each peer's run starts with names the budget it runs on: the cases given, else the
/// seconds.
#[test]
fn contracts_peers_says_how_long_each_peer_is_fuzzed() {
    let dir = peers_dir("reference", "repair", &program("repair.py", ""), None);
    let started = |budget: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
            .args(["peers", "--seed", "4", "--jobs", "1", "--peers"])
            .arg(dir.path())
            .arg("--out")
            .arg(dir.path().join("findings"))
            .args(budget)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        stdout.lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(
        started(&["--runs", "20"]),
        "fuzzing peer reference for 20 runs, seed 4"
    );
    assert_eq!(
        started(&["--time", "0.5"]),
        "fuzzing peer reference for 0.5s, seed 4"
    );
}

#[test]
fn contracts_peers_knows_findings_by_fingerprint_and_reports_stale_baseline_cases() {
    let command = program("repair.py", "--bug drops-steering");
    let dir = peers_dir("wrong", "repair", &command, None);
    let (code, rows) = peers(dir.path());
    assert_eq!(code, Some(1), "{rows:#}");
    let new = rows[0]["new"].as_array().expect("new findings").clone();
    assert!(!new.is_empty(), "{rows:#}");
    for finding in &new {
        let fingerprint = finding["fingerprint"].as_str().unwrap();
        assert!(
            fingerprint.starts_with("repair-keeps-other-messages @ "),
            "{fingerprint}"
        );
        assert!(
            Path::new(finding["case"].as_str().unwrap()).is_file(),
            "{finding}"
        );
    }
    let write_baseline = |known: &[Value]| {
        std::fs::write(
            dir.path().join("wrong/baseline.json"),
            json!({ "known": known }).to_string(),
        )
        .unwrap();
    };

    // Every case of that run known: the same run charges nothing new.
    let mut known: Vec<Value> = new
        .iter()
        .map(|f| json!({"case": f["case"], "why": "drops steering messages"}))
        .collect();
    write_baseline(&known);
    let (code, rows) = peers(dir.path());
    assert_eq!(code, Some(0), "{rows:#}");
    assert_eq!(
        (&rows[0]["new"], &rows[0]["stale"]),
        (&json!([]), &json!([]))
    );

    // A known case the peer is no longer charged for is stale: reported, and the run passes.
    let clean = dir.path().join("clean.json");
    let case = json!({"target": "contract", "why": "once charged", "input": [], "verdicts": {}});
    std::fs::write(&clean, case.to_string()).unwrap();
    known.push(json!({"case": clean, "why": "fixed since"}));
    write_baseline(&known);
    let (code, rows) = peers(dir.path());
    assert_eq!(code, Some(0), "{rows:#}");
    let stale = rows[0]["stale"].as_array().expect("stale entries");
    assert_eq!(stale.len(), 1, "{rows:#}");
    assert!(
        stale[0]
            .as_str()
            .unwrap()
            .contains("clean.json (fixed since)"),
        "{rows:#}"
    );

    // Another change under the same invariant is another fingerprint: a baseline that knows only
    // a lost assistant message does not know a lost user message.
    let other = dir.path().join("other.json");
    let case = json!({"target": "contract", "why": "another change", "input": [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"}
    ], "verdicts": {}});
    std::fs::write(&other, case.to_string()).unwrap();
    write_baseline(&[json!({"case": other, "why": "a lost user message, the same change"})]);
    let (code, rows) = peers(dir.path());
    assert_eq!(code, Some(0), "the same change is known: {rows:#}");
    let case = json!({"target": "contract", "why": "an unchanged transcript", "input": [
        {"role": "user", "content": "a"}
    ], "verdicts": {}});
    std::fs::write(&other, case.to_string()).unwrap();
    write_baseline(&[json!({"case": other, "why": "charged nothing: stale"})]);
    let (code, rows) = peers(dir.path());
    assert_eq!(code, Some(1), "nothing known: {rows:#}");
}

#[test]
fn contracts_a_peer_that_is_not_installed_is_a_row_with_an_error() {
    let dir = peers_dir(
        "absent",
        "repair",
        // A path no install creates (ci/peers-install.sh makes peers/.venv itself).
        "peers/absent/.venv/bin/python adapter.py",
        None,
    );
    let (code, rows) = peers(dir.path());
    assert_eq!(code, Some(2));
    assert!(
        rows[0]["error"].as_str().unwrap().contains("not installed"),
        "{rows:#}"
    );
}
