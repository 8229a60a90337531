//! The minimiser stays in the generator's domain and on the defect it started from: a planted
//! defect's case file keeps every field its format requires, still shows the same broken rule,
//! and a correct program passes it.

use ctxfuzz::harness::progress::Progress;
use ctxfuzz::harness::runner::{self, Config};
use ctxfuzz::harness::targets::contract::ContractTarget;
use ctxfuzz::harness::{Class, DynTarget, Profile, bytes};
use ctxfuzz_oracles::error::Named;
use ctxfuzz_oracles::formats::Format;
use ctxfuzz_oracles::invariants::Judgement;
use serde_json::json;

/// A repairer that answers every transcript with each tool message written twice.
const DUPLICATES_RESULTS: &str = r#"
import json, sys
for line in sys.stdin:
    out = []
    for message in json.loads(line)["messages"]:
        out.append(message)
        if isinstance(message, dict) and message.get("role") == "tool":
            out.append(message)
    print(json.dumps({"messages": out}), flush=True)
"#;

fn repairer(sut: &str) -> ContractTarget {
    let profile = json!({"contract": "repair", "format": "openai", "sut": sut,
        "marker": "[ctxfuzz-synthetic]", "sut_timeout_ms": 5_000});
    ContractTarget::from_profile(&Profile::from_value(&profile).unwrap()).unwrap()
}

#[test]
fn a_duplicated_result_minimises_to_a_case_in_the_domain_that_shows_that_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("duplicates.py");
    std::fs::write(&script, DUPLICATES_RESULTS).unwrap();
    let planted = repairer(&format!("python3 {}", script.display()));
    let config = Config {
        seed: 13,
        first: 0,
        runs: Some(60),
        time: None,
        jobs: 1,
    };
    let outcome = runner::fuzz(&planted, &config, &mut Progress::Hidden, &|_, _| {});
    let duplicates: Vec<_> = outcome
        .findings
        .iter()
        .filter(|f| f.key.invariant == "repair-wire-valid" && f.class == Class::Charged)
        .collect();
    assert!(!duplicates.is_empty(), "{:#?}", outcome.stats);
    let correct = repairer(&format!(
        "python3 {}/tests/sut/repair.py",
        env!("CARGO_MANIFEST_DIR")
    ));
    for finding in duplicates {
        let messages = finding.input.as_array().unwrap();
        assert_eq!(
            Format::OpenAi.missing_field(messages),
            None,
            "{:#}",
            finding.input
        );
        assert!(planted.in_domain(&finding.input));
        assert_eq!(
            crate::common::evidence(&finding.violation)["rule"],
            "duplicate-result",
            "{finding:#?}"
        );
        assert!(
            matches!(correct.judge_caught(&finding.input), Judgement::Pass),
            "a correct repairer is charged on {:#}",
            finding.input
        );
    }
}

#[test]
fn a_cut_request_past_its_messages_or_a_call_without_its_id_is_out_of_the_domain() {
    let profile = |contract: &str| {
        Profile::from_value(&json!({"contract": contract, "format": "openai", "sut": "true"}))
            .unwrap()
    };
    let cutter = ContractTarget::from_profile(&profile("cut")).unwrap();
    let messages = json!([{"role": "user", "content": "a"}]);
    assert!(cutter.in_domain(&json!({"messages": messages, "target": 1})));
    assert!(!cutter.in_domain(&json!({"messages": messages, "target": 2})));
    assert!(!cutter.in_domain(&json!({"messages": messages})));
    assert!(!cutter.in_domain(&messages));
    let repairer = ContractTarget::from_profile(&profile("repair")).unwrap();
    assert!(repairer.in_domain(&messages));
    let id_less = json!([{"role": "assistant", "content": null,
        "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}]);
    assert!(!repairer.in_domain(&id_less));
    assert!(!repairer.in_domain(&json!({"messages": messages})));
}

/// The domain holds every request the contract target generates, in every format (else the
/// minimiser would find the original outside it and keep to no domain at all).
#[test]
fn every_generated_request_is_in_the_domain() {
    for &format in Format::all() {
        for contract in ["repair", "cut"] {
            let profile = json!({"contract": contract, "format": format.name(), "sut": "true"});
            let target =
                ContractTarget::from_profile(&Profile::from_value(&profile).unwrap()).unwrap();
            let generated = (0..500)
                .filter_map(|case| target.decode(&bytes::case_bytes(11, case)).ok())
                .inspect(|input| assert!(target.in_domain(input), "{format} {contract}: {input}"))
                .count();
            assert!(generated > 300, "{format} {contract}: {generated}");
        }
    }
}
