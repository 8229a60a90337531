//! `ctxfuzz fuzz`, `replay` and `minimize` end to end: exit codes, files written, the commands a
//! finding prints.

use std::path::Path;
use std::process::Output;

use crate::common::ctxfuzz_in;

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A defective rule's charged findings are shown in full (evidence, case file, input, diff) and
/// are the only case files written (`--keep-all` writes the uncharged ones too); each replays.
#[test]
fn a_defective_rule_exits_1_with_replayable_findings() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "fuzz", "--target", "sweep", "--rule", "none", "--runs", "3000", "--seed", "1",
    ];
    let run = ctxfuzz_in(dir.path(), &args);
    let out = text(&run);
    assert_eq!(run.status.code(), Some(1), "{out}");
    for shown in [
        "finding: sweep [none] ",
        "  case file:  findings/",
        "  input:\n",
        "  diff:\n",
        "regenerate: ctxfuzz fuzz --target sweep --variant none --seed 1 --case",
    ] {
        assert!(out.contains(shown), "{shown:?} missing:\n{out}");
    }
    let verdict = out.lines().last().unwrap();
    assert!(verdict.starts_with("verdict: FAILED: charged findings in sweep [none]"));
    let written = |dir: &Path| std::fs::read_dir(dir.join("findings")).map_or(0, |d| d.count());
    assert!(written(dir.path()) > 0);
    for file in std::fs::read_dir(dir.path().join("findings")).unwrap() {
        let case = std::fs::read_to_string(file.unwrap().path()).unwrap();
        assert!(!case.contains("unpreventable"), "{case}");
    }
    let all = tempfile::tempdir().unwrap();
    ctxfuzz_in(all.path(), &[&args[..], &["--keep-all"]].concat());
    assert!(
        written(all.path()) > written(dir.path()),
        "--keep-all wrote no uncharged case"
    );

    // Every finding replays as recorded.
    let replay = ctxfuzz_in(dir.path(), &["replay", "findings"]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
    assert!(
        text(&replay).contains("0 mismatch(es)"),
        "{}",
        text(&replay)
    );
}

/// A defect seen in several shapes that make the same change is printed in full once; the other
/// shapes are one line each, naming their shape and case file.
#[test]
fn findings_with_the_same_change_are_printed_in_full_once() {
    let dir = tempfile::tempdir().unwrap();
    let run = ctxfuzz_in(
        dir.path(),
        &[
            "fuzz",
            "--target",
            "sweep",
            "--variant",
            "none",
            "--runs",
            "20000",
            "--seed",
            "5",
            "--jobs",
            "1",
        ],
    );
    let out = text(&run);
    // A finding in full is headed by its invariant and cause (and the provider it was judged for).
    let full = out
        .lines()
        .filter(|line| line.starts_with("finding: ") && line.contains(" (system under test)"))
        .count();
    let brief: Vec<&str> = out
        .lines()
        .filter(|line| line.contains(": the same change as a finding above, in another shape ("))
        .collect();
    assert!(!brief.is_empty(), "{out}");
    assert!(
        brief.iter().all(|line| line.contains("; case file ")),
        "{out}"
    );
    assert!(
        out.contains(&format!("charged: {} finding(s)", full + brief.len())),
        "{out}"
    );
}

#[test]
fn the_correct_rule_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let run = ctxfuzz_in(
        dir.path(),
        &[
            "fuzz", "--target", "sweep", "--runs", "2000", "--seed", "2", "--out", "f",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    assert!(text(&run).contains("  charged: none\n"), "{}", text(&run));
    assert!(
        !dir.path().join("f").exists(),
        "uncharged findings wrote case files"
    );
}

/// The default run on a clean tree is read in one screen: a summary per target, a verdict, and no
/// case file (nothing is charged; the other classes are one line each).
#[test]
fn the_default_run_prints_one_screen_and_writes_no_case_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = ctxfuzz_in(dir.path(), &["fuzz", "--time", "3"]);
    let out = text(&run);
    assert_eq!(run.status.code(), Some(0), "{out}");
    assert!(
        out.lines().count() <= 60,
        "{} lines:\n{out}",
        out.lines().count()
    );
    assert!(!dir.path().join("findings").exists(), "{out}");
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("verdict: clean: nothing charged in 6 target(s)"),
        "{out}"
    );
    assert!(out.contains("  unpreventable: "), "{out}");
}

/// `--json` prints one document and nothing else; `--quiet` prints a line per charged finding and
/// the verdict.
#[test]
fn json_and_quiet_print_what_they_promise() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "fuzz",
        "--target",
        "sweep",
        "--variant",
        "none",
        "--runs",
        "2000",
        "--seed",
        "1",
    ];
    let json = ctxfuzz_in(dir.path(), &[&args[..], &["--json"]].concat());
    let report: serde_json::Value =
        serde_json::from_slice(&json.stdout).expect("one JSON document");
    assert_eq!(report["verdict"], "failed");
    assert_eq!(report["seed"], 1);
    let target = &report["targets"][0];
    assert_eq!(target["target"], "sweep");
    assert_eq!(target["variant"], "none");
    assert!(
        target["violations"]["charged"]["wire-valid"]
            .as_u64()
            .unwrap()
            > 0
    );
    let finding = &target["findings"][0];
    assert_eq!(finding["class"], "charged");
    assert!(
        finding["case_file"]
            .as_str()
            .unwrap()
            .starts_with("findings/")
    );
    let quiet = ctxfuzz_in(dir.path(), &[&args[..], &["--quiet"]].concat());
    let out = text(&quiet);
    assert_eq!(quiet.status.code(), Some(1));
    let (verdict, findings) = out
        .trim_end()
        .lines()
        .collect::<Vec<_>>()
        .split_last()
        .map(|(v, f)| (*v, f.to_vec()))
        .unwrap();
    assert!(verdict.starts_with("verdict: FAILED"), "{out}");
    assert!(
        !findings.is_empty()
            && findings
                .iter()
                .all(|l| l.starts_with("charged: sweep [none] ")),
        "{out}"
    );
}

#[test]
fn the_printed_regenerate_command_reproduces_the_finding() {
    let dir = tempfile::tempdir().unwrap();
    let run = ctxfuzz_in(
        dir.path(),
        &[
            "fuzz", "--target", "sweep", "--rule", "none", "--runs", "3000", "--seed", "7",
        ],
    );
    let out = text(&run);
    let first = out
        .lines()
        .position(|l| l.starts_with("finding: sweep [none]") && l.contains(" (system under test)"))
        .unwrap_or_else(|| panic!("{out}"));
    let invariant = out
        .lines()
        .nth(first)
        .unwrap()
        .split_whitespace()
        .nth(3)
        .unwrap();
    let command = out
        .lines()
        .skip(first)
        .find_map(|l| l.trim().strip_prefix("regenerate: ctxfuzz "))
        .unwrap_or_else(|| panic!("{out}"));
    let args: Vec<&str> = command
        .split_whitespace()
        .chain(["--out", "again"])
        .collect();
    let again = ctxfuzz_in(dir.path(), &args);
    let again_out = text(&again);
    assert_eq!(again.status.code(), Some(1), "{again_out}");
    assert!(again_out.contains("1 execs"), "{again_out}");
    // The same invariant, cause and provider (picked by the case's bytes again).
    let headline = out.lines().nth(first).unwrap();
    assert!(
        again_out.contains(headline),
        "{invariant} not regenerated by `{command}`:\n{again_out}"
    );
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
    let replay = ctxfuzz_in(dir.path(), &["replay", "case.json"]);
    let out = text(&replay);
    assert_eq!(replay.status.code(), Some(1), "{out}");
    assert!(
        out.contains("MISMATCH case.json [none]") && out.contains("+no-duplicate-tool-use-id"),
        "{out}"
    );
    assert!(
        out.contains("    evidence: {\""),
        "each violation's evidence: {out}"
    );
}

/// A case file whose program is gone (moved, renamed) replays to a crash that says why: the
/// program's stderr, in the evidence.
#[test]
fn a_case_file_whose_program_is_gone_says_what_the_program_said() {
    let dir = tempfile::tempdir().unwrap();
    let case = serde_json::json!({
        "target": "contract",
        "why": "a program since moved",
        "profile": {"contract": "repair", "format": "openai", "sut": "exec python3 moved-away.py"},
        "input": [{"role": "user", "content": "hi"}],
        "verdicts": {"repair:openai": []}
    });
    std::fs::write(dir.path().join("case.json"), case.to_string()).unwrap();
    let replay = ctxfuzz_in(dir.path(), &["replay", "case.json"]);
    let out = text(&replay);
    assert_eq!(replay.status.code(), Some(1), "{out}");
    assert!(
        out.contains("+sut-crash") && out.contains("moved-away.py") && out.contains("No such file"),
        "{out}"
    );
}

/// The gh-11 brick (a custom message between a call and its result) padded with other messages.
fn padded_brick_case() -> serde_json::Value {
    serde_json::json!({
        "target": "sweep",
        "why": "the gh-11 brick with padding",
        "profile": {},
        "input": [{"role": "user", "content": "hi"},
                  {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "toolCall", "id": "toolu_123456789", "name": "ls", "arguments": {}}]},
                  {"role": "custom", "customType": "note", "content": "x"},
                  {"role": "toolResult", "toolCallId": "toolu_123456789", "content": [{"type": "text", "text": "a b c"}]},
                  {"role": "user", "content": "thanks"}],
        "verdicts": {"none": ["no-duplicate-tool-use-id", "sweep-matches-twin", "wire-valid"], "strict": []}
    })
}

#[test]
fn minimize_shrinks_a_case_and_an_artifact_keeping_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let case = padded_brick_case();
    std::fs::write(dir.path().join("case.json"), case.to_string()).unwrap();
    let replay = ctxfuzz_in(dir.path(), &["replay", "case.json"]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));

    let min = ctxfuzz_in(dir.path(), &["minimize", "case.json", "-o", "small.json"]);
    assert_eq!(min.status.code(), Some(0), "{}", text(&min));
    let small: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("small.json")).unwrap())
            .unwrap();
    assert!(small["input"].as_array().unwrap().len() < 5, "{small}");
    assert_eq!(small["verdicts"], case["verdicts"]);
    let replay = ctxfuzz_in(dir.path(), &["replay", "small.json"]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));

    // A libFuzzer artifact: the JSON bytes of a transcript, decoded as the fuzz target does.
    std::fs::write(dir.path().join("crash-1"), case["input"].to_string()).unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let artifact = ctxfuzz_in(
        dir.path(),
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
    );
    assert_eq!(artifact.status.code(), Some(0), "{}", text(&artifact));
    let written: Vec<_> = std::fs::read_dir(dir.path().join("out")).unwrap().collect();
    assert_eq!(written.len(), 1);
    let replay = ctxfuzz_in(dir.path(), &["replay", "out"]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
}

#[test]
fn minimize_cut_short_by_its_budget_says_so_and_writes_a_case_that_replays() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("case.json"),
        padded_brick_case().to_string(),
    )
    .unwrap();
    for (budget, cut_short) in [
        (
            ["--steps", "3"],
            "cut short by its step budget after 3 steps",
        ),
        (
            ["--time", "0"],
            "cut short by its time budget after 0 steps",
        ),
    ] {
        let min = ctxfuzz_in(
            dir.path(),
            &[&["minimize", "case.json", "-o", "small.json"], &budget[..]].concat(),
        );
        assert_eq!(min.status.code(), Some(0), "{}", text(&min));
        assert!(text(&min).contains(cut_short), "{}", text(&min));
        let replay = ctxfuzz_in(dir.path(), &["replay", "small.json"]);
        assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
    }
    let bad = ctxfuzz_in(dir.path(), &["minimize", "case.json", "--time", "-1"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
}

#[test]
fn export_seeds_writes_one_libfuzzer_input_per_case() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = dir.path().join("seeds");
    let run = ctxfuzz_in(root, &["replay", "--export-seeds", seeds.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let sweep: Vec<_> = std::fs::read_dir(seeds.join("sweep")).unwrap().collect();
    assert!(sweep.len() >= 10);
    assert!(seeds.join("oracle_json").is_dir());
}

/// The case files a run wrote under `dir/findings`, read.
fn case_files(dir: &Path) -> Vec<serde_json::Value> {
    let Ok(written) = std::fs::read_dir(dir.join("findings")) else {
        return Vec::new();
    };
    written
        .map(|file| {
            let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
            serde_json::from_str(&text).unwrap()
        })
        .collect()
}

/// For each API pi speaks besides Anthropic's, a short seeded run of the sweep target for one of
/// its providers finds a transcript whose body, as pi builds it after the sweep, that API refuses
/// (`wire-valid` with the API's own rule, shown in its own class and not charged to the sweep);
/// the case file records the provider, and replays to the same verdict only with it.
#[test]
fn each_api_s_refused_body_is_found_recorded_with_its_provider_and_replayed() {
    for (provider, rule, seed, runs) in [
        ("groq", "missing-tool-response", "1", "3000"), // openai-completions
        ("openai", "duplicate-item-id", "3", "10000"),  // openai-responses
        ("google", "empty-text-part", "1", "3000"),     // google-generative-ai
    ] {
        let dir = tempfile::tempdir().unwrap();
        let run = ctxfuzz_in(
            dir.path(),
            &[
                "fuzz",
                "--target",
                "sweep",
                "--provider",
                provider,
                "--seed",
                seed,
                "--runs",
                runs,
                "--keep-all",
                "--verbose",
                // One thread: the first case minimised for an invariant is the same in every run.
                "--jobs",
                "1",
            ],
        );
        assert_eq!(run.status.code(), Some(0), "{provider}: {}", text(&run));
        let reported = format!("wire-valid (system under test) for {provider}\n");
        assert!(text(&run).contains(&reported), "{}", text(&run));
        let cases = case_files(dir.path());
        assert!(
            !cases.is_empty(),
            "{provider}: no case file\n{}",
            text(&run)
        );
        for case in &cases {
            assert_eq!(case["profile"]["provider"], provider, "{case}");
            assert_eq!(
                case["verdicts"]["strict"],
                serde_json::json!(["wire-valid"])
            );
        }
        let why = |case: &&serde_json::Value| case["why"].as_str().unwrap().contains(rule);
        assert!(cases.iter().any(|case| why(&case)), "{provider}: no {rule}");
        let replay = ctxfuzz_in(dir.path(), &["replay", "findings"]);
        assert!(
            text(&replay).contains(" 0 mismatch(es)"),
            "{}",
            text(&replay)
        );

        // Without its provider the same case is judged for Anthropic, which says otherwise.
        for file in std::fs::read_dir(dir.path().join("findings")).unwrap() {
            let path = file.unwrap().path();
            let mut case: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            case["profile"] = serde_json::json!({});
            std::fs::write(&path, case.to_string()).unwrap();
        }
        let anthropic = ctxfuzz_in(dir.path(), &["replay", "findings"]);
        assert_eq!(anthropic.status.code(), Some(1), "{}", text(&anthropic));
    }
}

/// A case file without a provider (every one written before providers were recorded) is judged
/// for Anthropic, as it always was; the same input recorded for Google is judged for Google. An
/// empty user text: Anthropic takes the message pi sends for it, Gemini refuses the empty text part.
#[test]
fn a_case_file_without_a_provider_replays_as_anthropic() {
    let dir = tempfile::tempdir().unwrap();
    let input = serde_json::json!([{"role": "user", "content": [{"type": "text", "text": ""}]}]);
    for (name, profile, verdict) in [
        ("before.json", serde_json::json!({}), serde_json::json!([])),
        (
            "google.json",
            serde_json::json!({"provider": "google"}),
            serde_json::json!(["wire-valid"]),
        ),
    ] {
        let case = serde_json::json!({"target": "sweep", "why": name, "profile": profile,
                                      "input": input, "verdicts": {"strict": verdict}});
        std::fs::write(dir.path().join(name), case.to_string()).unwrap();
    }
    let replay = ctxfuzz_in(dir.path(), &["replay", "."]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
    assert!(text(&replay).contains("2 case file(s), 2 verdict(s) judged, 0 mismatch(es)"));
}

/// Without `--provider`, each case of a pi-transcript target is judged for the provider its bytes
/// pick: one run records several providers, and every case file replays with its own.
#[test]
fn without_a_provider_each_case_picks_one_and_its_case_file_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = ctxfuzz_in(
        dir.path(),
        &[
            "fuzz",
            "--target",
            "sweep",
            "--seed",
            "1",
            "--runs",
            "3000",
            "--keep-all",
            "--json",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let providers: std::collections::BTreeSet<String> = case_files(dir.path())
        .iter()
        .map(|case| case["profile"]["provider"].as_str().unwrap().to_string())
        .collect();
    assert!(providers.len() > 2, "{providers:?}");
    assert!(providers.contains("anthropic"), "{providers:?}");
    // The summary names each finding's provider too, and each has a case file of its own (one
    // input found for two providers is two files).
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let findings = summary["targets"][0]["findings"].as_array().unwrap();
    let summarised: std::collections::BTreeSet<String> = findings
        .iter()
        .map(|finding| finding["provider"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(summarised, providers);
    assert_eq!(case_files(dir.path()).len(), findings.len());
    let replay = ctxfuzz_in(dir.path(), &["replay", "findings"]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
}

/// A target that judges no provider's body refuses `--provider` with the targets that do; without
/// `--target`, `--provider` runs those alone.
#[test]
fn provider_is_refused_by_a_target_that_judges_no_body() {
    let dir = tempfile::tempdir().unwrap();
    let refused = ctxfuzz_in(
        dir.path(),
        &[
            "fuzz",
            "--target",
            "compaction",
            "--provider",
            "groq",
            "--runs",
            "10",
        ],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains(
            "target `compaction` judges no provider's request body, so not `groq`'s: \
             --provider is for sweep, oracle-json, differential, pipeline"
        ),
        "{}",
        text(&refused)
    );
    let all = ctxfuzz_in(dir.path(), &["fuzz", "--provider", "groq", "--runs", "10"]);
    assert_eq!(all.status.code(), Some(0), "{}", text(&all));
    for name in ["sweep [", "oracle-json [", "differential [", "pipeline ["] {
        assert!(
            text(&all).contains(&format!("fuzzing {name}")),
            "{}",
            text(&all)
        );
    }
    assert!(!text(&all).contains("fuzzing compaction"), "{}", text(&all));
}

/// The pipeline target charges a compaction that cuts inside a call cycle (`midpoint`, nothing
/// swept after it) for each API pi speaks besides Anthropic's: the result whose call was
/// summarised is refused by the body pi builds for it, which the original transcript's was not.
#[test]
fn a_compaction_that_cuts_a_call_cycle_is_charged_for_every_api() {
    for (provider, rule) in [
        ("groq", "tool-without-call"),
        ("openai", "function-call-output-without-call"),
        ("google", "function-response-not-after-call"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let run = ctxfuzz_in(
            dir.path(),
            &[
                "fuzz",
                "--target",
                "pipeline",
                "--variant",
                "midpoint",
                "--sweep",
                "off",
                "--provider",
                provider,
                "--seed",
                "1",
                "--runs",
                "3000",
                "--jobs",
                "1",
            ],
        );
        assert_eq!(run.status.code(), Some(1), "{provider}: {}", text(&run));
        let cases = case_files(dir.path());
        assert!(
            cases
                .iter()
                .any(|case| case["profile"]["provider"] == provider
                    && case["why"].as_str().unwrap().contains(rule)),
            "{provider}: no {rule}\n{}",
            text(&run)
        );
        let replay = ctxfuzz_in(dir.path(), &["replay", "findings"]);
        assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
    }
}

/// The differential target asks the named provider's body whether it takes a result back: its
/// case files record that provider and replay with it (for groq and openai, at these seeds, one
/// of them is judged otherwise for Anthropic); the oracle-json target reads and judges files as
/// `check --provider` does, without a finding on a clean tree.
#[test]
fn differential_and_oracle_json_judge_the_named_provider() {
    for (provider, seed, otherwise_for_anthropic) in [
        ("groq", "1", true),
        ("openai", "2", true),
        ("google", "1", false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let differential = ctxfuzz_in(
            dir.path(),
            &[
                "fuzz",
                "--target",
                "differential",
                "--provider",
                provider,
                "--seed",
                seed,
                "--runs",
                "1000",
                "--keep-all",
                "--jobs",
                "1",
            ],
        );
        assert_eq!(
            differential.status.code(),
            Some(0),
            "{}",
            text(&differential)
        );
        let cases = case_files(dir.path());
        assert!(!cases.is_empty(), "{}", text(&differential));
        assert!(
            cases
                .iter()
                .all(|case| case["profile"]["provider"] == provider)
        );
        let replay = ctxfuzz_in(dir.path(), &["replay", "findings"]);
        assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
        if otherwise_for_anthropic {
            for file in std::fs::read_dir(dir.path().join("findings")).unwrap() {
                let path = file.unwrap().path();
                let mut case: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                case["profile"] = serde_json::json!({"against": "allowlist"});
                std::fs::write(&path, case.to_string()).unwrap();
            }
            let anthropic = ctxfuzz_in(dir.path(), &["replay", "findings"]);
            assert_eq!(anthropic.status.code(), Some(1), "{}", text(&anthropic));
        }

        let oracle_json = ctxfuzz_in(
            dir.path(),
            &[
                "fuzz",
                "--target",
                "oracle-json",
                "--provider",
                provider,
                "--seed",
                "1",
                "--runs",
                "1000",
            ],
        );
        assert_eq!(oracle_json.status.code(), Some(0), "{}", text(&oracle_json));
    }
}
