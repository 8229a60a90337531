//! The claims about the fuzzer, as fixed-seed tests: each defective sweep rule is caught
//! by the invariant that names its defect, minimised to the essential shape, and the correct rule
//! yields nothing charged to it.

use ctxfuzz::harness::findings::Finding;
use ctxfuzz::harness::progress::Progress;
use ctxfuzz::harness::runner::{self, Config, RunOutcome};
use ctxfuzz::harness::target::OUTSIZED_JSON_BYTES;
use ctxfuzz::harness::{Class, DynTarget, Profile, bytes, fuzz_one, targets};
use ctxfuzz_oracles::invariants::Judgement;
use serde_json::{Value, json};

use crate::common::{fingerprint, long_transcript_bytes};

fn fuzz(target: &dyn DynTarget, seed: u64, runs: u64) -> RunOutcome {
    let config = Config {
        seed,
        first: 0,
        runs: Some(runs),
        time: None,
        jobs: 2,
    };
    runner::fuzz(target, &config, &mut Progress::Hidden, &|_, _| {})
}

fn sweep_target(rule: &str) -> Box<dyn DynTarget> {
    targets::build("sweep", Some(rule), &Profile::default()).unwrap()
}

/// Findings whose minimised input breaks `invariant` (a minimised input is reported once, under
/// the first invariant it was minimised for; its verdict lists every invariant it breaks).
fn findings_of<'a>(outcome: &'a RunOutcome, invariant: &str) -> Vec<&'a Finding> {
    outcome
        .findings
        .iter()
        .filter(|f| f.key.invariant == invariant || f.verdict.iter().any(|v| v == invariant))
        .collect()
}

fn role(message: &Value) -> &str {
    message["role"].as_str().unwrap_or("(none)")
}

fn call_ids(message: &Value) -> Vec<&str> {
    message["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|b| b["id"].as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn the_none_rule_is_caught_on_the_duplicate_brick_minimized_to_its_essential_shape() {
    let target = sweep_target("none");
    let outcome = fuzz(target.as_ref(), 1, 20_000);
    let bricks = findings_of(&outcome, "no-duplicate-tool-use-id");
    let charged: Vec<_> = bricks
        .iter()
        .filter(|f| f.class == Class::Charged)
        .collect();
    assert!(!charged.is_empty(), "{:#?}", outcome.stats);
    let essential = charged.iter().find(|f| {
        let messages = f.input.as_array().unwrap();
        let (first, last) = (&messages[0], &messages[messages.len() - 1]);
        messages.len() <= 4
            && role(first) == "assistant"
            && role(last) == "toolResult"
            && call_ids(first).contains(&last["toolCallId"].as_str().unwrap_or("?"))
            && messages[1..messages.len() - 1]
                .iter()
                .any(|m| !["assistant", "toolResult"].contains(&role(m)))
    });
    assert!(
        essential.is_some(),
        "no finding minimised to assistant(X) / barrier / toolResult(X): {:#?}",
        charged.iter().map(|f| &f.input).collect::<Vec<_>>()
    );
}

#[test]
fn the_all_other_roles_rule_is_caught_on_the_error_or_aborted_orphan() {
    let target = sweep_target("all-other-roles");
    let outcome = fuzz(target.as_ref(), 2, 20_000);
    let orphans = findings_of(&outcome, "no-orphan-result");
    let dropped_assistant = orphans.iter().any(|f| {
        f.class == Class::Charged
            && f.input.as_array().unwrap().iter().any(|m| {
                role(m) == "assistant"
                    && matches!(m["stopReason"].as_str(), Some("error" | "aborted"))
            })
    });
    assert!(
        dropped_assistant,
        "{:#?}",
        orphans.iter().map(|f| &f.input).collect::<Vec<_>>()
    );
}

#[test]
fn the_allowlist_rule_is_caught_by_the_twin() {
    let target = sweep_target("allowlist");
    let outcome = fuzz(target.as_ref(), 3, 20_000);
    let twin = findings_of(&outcome, "sweep-matches-twin");
    assert!(
        twin.iter().any(|f| f.class == Class::Charged),
        "{:#?}",
        outcome.stats
    );
}

#[test]
fn the_strict_rule_has_nothing_charged_to_it() {
    let target = sweep_target("strict");
    let outcome = fuzz(target.as_ref(), 4, 20_000);
    let charged: Vec<_> = outcome.charged().map(|f| (&f.key, &f.input)).collect();
    assert!(charged.is_empty(), "{charged:#?}");
    assert!(outcome.stats.execs > 19_000, "{:#?}", outcome.stats);
}

#[test]
fn differential_strict_against_allowlist_reports_over_sweeps_in_their_own_class() {
    let target = targets::build(
        "differential",
        Some("strict"),
        &Profile::from_value(&json!({"against": "allowlist"})).unwrap(),
    )
    .unwrap();
    let outcome = fuzz(target.as_ref(), 5, 20_000);
    let over = findings_of(&outcome, "over-sweep");
    assert!(!over.is_empty(), "{:#?}", outcome.stats);
    assert!(over.iter().all(|f| f.class == Class::Informational));
    assert!(
        over.iter()
            .all(|f| crate::common::evidence(&f.violation)["sweeps"] == "strict")
    );
    // strict never keeps a result the provider rejects where allowlist sweeps it.
    assert!(findings_of(&outcome, "keeps-rejected").is_empty());
    assert!(!findings_of(&outcome, "against-keeps-rejected").is_empty());
}

#[test]
fn oracle_json_reads_hostile_files_without_panicking_and_names_positions() {
    let target = targets::build("oracle-json", None, &Profile::default()).unwrap();
    let outcome = fuzz(target.as_ref(), 6, 5_000);
    let findings: Vec<_> = outcome
        .findings
        .iter()
        .map(|f| (&f.key, &f.violation.summary))
        .collect();
    assert!(findings.is_empty(), "{findings:#?}");
    assert!(outcome.stats.execs > 4_000);
}

/// A seed keeps meaning the same case in every target, as the transcript generators' seeds do
/// (`generators::seeded_transcripts_are_pinned`): a finding's `regenerate` line depends on it. The
/// inputs of 300 cases of each target, pinned (`oracle-json`'s are the files it writes).
#[test]
fn seeded_inputs_are_pinned() {
    let fingerprints: Vec<(&str, u64)> = targets::default_names()
        .into_iter()
        .map(|name| {
            let target = targets::build(name, None, &Profile::default()).unwrap();
            let inputs: Vec<String> = (0..300)
                .map(|case| match target.decode(&bytes::case_bytes(5, case)) {
                    Ok(input) => input.to_string(),
                    Err(error) => error.to_string(),
                })
                .collect();
            (name, fingerprint(inputs.iter().map(String::as_str)))
        })
        .collect();
    assert_eq!(
        fingerprints,
        [
            ("sweep", 1_663_049_853_122_730_975),
            ("oracle-json", 16_736_622_596_098_614_725),
            ("differential", 1_663_049_853_122_730_975),
            ("compaction", 1_881_429_964_627_291_735),
            ("pipeline", 2_877_210_370_007_922_907),
            ("guard", 5_444_976_805_924_051_946),
        ]
    );
}

#[test]
fn every_registered_target_decodes_its_own_seed_bytes() {
    let samples = [
        json!([{"role": "user", "content": "hi"}]),
        json!({"file": "[{\"role\": \"user\"}]"}),
    ];
    // The contract target needs a program and a contract; tests/ctxfuzz/contracts.rs covers it.
    for name in targets::default_names() {
        let target = targets::build(name, None, &Profile::default()).unwrap();
        let generated = (0..20).filter_map(|case| target.decode(&bytes::case_bytes(7, case)).ok());
        // A sample that is not this target's input has no bytes of its own.
        let its_own = samples
            .iter()
            .filter(|s| target.shape(s) != "invalid")
            .cloned();
        for sample in &its_own.chain(generated).collect::<Vec<_>>() {
            let bytes = target.seed_bytes(sample);
            if matches!(bytes.first(), Some(b'[' | b'{')) {
                let back = target.decode(&bytes).unwrap();
                assert_eq!(target.seed_bytes(&back), bytes, "{name}");
            }
        }
    }
}

/// libFuzzer keeps an ordinary input in its corpus and not an outsized one (here a transcript of
/// 10,000 messages), which it runs all the same: bred on, such inputs took 85% of the sweep
/// target's time (docs/figures.md#libfuzzer).
#[test]
fn libfuzzer_keeps_ordinary_inputs_and_not_outsized_ones() {
    assert!(fuzz_one("sweep", &bytes::case_bytes(7, 0)));
    assert!(!fuzz_one("sweep", &long_transcript_bytes()));
}

/// The bound on a kept input sits above the ordinary cases of every target: of the in-process
/// loop's cases, only the generators' rare large shapes are over it.
#[test]
fn few_generated_cases_of_any_target_are_outsized() {
    for name in targets::default_names() {
        let target = targets::build(name, None, &Profile::default()).unwrap();
        let outsized = (0..1000)
            .filter_map(|case| target.decode(&bytes::case_bytes(3, case)).ok())
            .filter(|input| serde_json::to_vec(input).unwrap().len() > OUTSIZED_JSON_BYTES)
            .count();
        assert!(outsized <= 20, "{name}: {outsized} of 1,000 cases outsized");
    }
}

/// A case is judged the same in the target's own type (the fuzz loop, libFuzzer) as from its
/// JSON (a case file, replay, the minimiser): the sweep and differential targets generate the
/// oracle's `JsValue`s and read a case file's `Value`s into them.
#[test]
fn a_case_is_judged_alike_in_its_own_type_and_from_its_json() {
    let mut failing = 0;
    let rules = ["none", "allowlist", "all-other-roles", "strict"];
    let targets = rules.iter().map(|rule| sweep_target(rule)).chain([
        targets::build("differential", None, &Profile::default()).unwrap(),
        // Compaction, sweep and both validators (pi and chat transcripts) on `JsValue`.
        targets::build("pipeline", Some("midpoint"), &Profile::default()).unwrap(),
    ]);
    for target in targets {
        for case in 0..300 {
            let bytes = bytes::case_bytes(11, case);
            let (own, _) = target.fuzz_case(&bytes, &|_| false).unwrap();
            let from_json = target.judge(&target.decode(&bytes).unwrap());
            assert_eq!(
                own,
                from_json,
                "{} {}, case {case}",
                target.name(),
                target.variant()
            );
            failing += usize::from(matches!(own, Judgement::Fail(_)));
        }
    }
    assert!(failing > 50, "only {failing} failing cases compared");
}

/// A compaction case is a scenario or a bare array of messages (one round on the defaults); any
/// other document cannot be judged, and the reason says what was expected.
#[test]
fn a_compaction_case_is_a_scenario_or_an_array_of_messages() {
    let target = targets::build("compaction", None, &Profile::default()).unwrap();
    let messages = json!([{"role": "user", "content": "hi"}]);
    let scenario = json!({"rounds": [{"append": messages}]});
    assert_eq!(target.judge(&messages), target.judge(&scenario));
    assert_eq!(target.output(&messages), target.output(&scenario));
    assert_eq!(
        target.output(&messages)["rounds"].as_array().map(Vec::len),
        Some(1)
    );
    let reason = |input: Value| match target.judge(&input) {
        Judgement::CannotJudge(reason) => reason,
        other => panic!("{input} was judged: {other:?}"),
    };
    assert!(
        reason(json!("hi")).contains("expected a compaction scenario or an array of messages"),
        "{}",
        reason(json!("hi"))
    );
    assert!(
        reason(json!({"rounds": [], "round": 1}))
            .contains("not a compaction scenario: unknown field `round`"),
        "{}",
        reason(json!({"rounds": [], "round": 1}))
    );
}

/// A target's variant is read from its name once, where the registry builds the target, and
/// written back as the same name; a name the target does not know is refused, naming it.
#[test]
fn harness_every_targets_variant_reads_back_from_its_name() {
    let contract =
        Profile::from_value(&json!({"contract": "cut", "format": "openai", "sut": "true"}))
            .unwrap();
    for name in targets::names() {
        let profile = if name == "contract" {
            contract.clone()
        } else {
            Profile::default()
        };
        let default = targets::build(name, None, &profile).unwrap();
        let again = targets::build(name, Some(&default.variant()), &profile).unwrap();
        assert_eq!(again.variant(), default.variant(), "{name}");
        let refused = targets::build(name, Some("bogus"), &profile).err().unwrap();
        assert!(refused.to_string().contains("`bogus`"), "{name}: {refused}");
    }
    for (name, variant) in [
        ("sweep", "allowlist"),
        ("differential", "none"),
        ("compaction", "no-state"),
        ("pipeline", "floor-0"),
        ("guard", "settled"),
        ("oracle-json", "check"),
    ] {
        let built = targets::build(name, Some(variant), &Profile::default()).unwrap();
        assert_eq!(built.variant(), variant);
    }
    assert_eq!(
        targets::build("oracle-json", Some("bogus"), &Profile::default())
            .err()
            .unwrap()
            .to_string(),
        "unknown oracle-json variant `bogus` (known: check)"
    );
    let other = targets::build("contract", Some("repair:openai"), &contract)
        .err()
        .unwrap();
    assert!(other.to_string().contains("not `repair:openai`"), "{other}");
}
