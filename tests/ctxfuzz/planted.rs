//! Contracts tested the way their users meet them: small rewriters written for the purpose
//! (`tests/sut/planted.py`), each careful or with one realistic defect, fuzzed through the
//! command line as a user runs `ctxfuzz fuzz --contract C --sut CMD`. Every defect must be charged
//! under the invariant it breaks and under no other, no careful program may be charged, and every
//! case file written must replay to its verdict.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::common::{ctxfuzz, stdout};

const MARKER: &str = "[planted-synthetic]";

/// Fuzzes `program` under `contract` in `format` for 1,500 cases and checks that the run charges
/// exactly `expected` (invariant ids) and that each case file replays.
fn charged_exactly(program: &str, contract: &str, format: &str, expected: &[&str]) {
    charged_exactly_in(program, contract, format, expected, 1500);
}

/// [`charged_exactly`] in `runs` cases.
fn charged_exactly_in(program: &str, contract: &str, format: &str, expected: &[&str], runs: u64) {
    let out = tempfile::tempdir().unwrap();
    let sut = format!(
        "exec python3 {}/tests/sut/planted.py {program}",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = ctxfuzz(&[
        "fuzz",
        "--contract",
        contract,
        "--format",
        format,
        "--sut",
        &sut,
        "--marker",
        MARKER,
        "--runs",
        &runs.to_string(),
        "--seed",
        "7",
        "--jobs",
        "2",
        "--json",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let summary: Value = serde_json::from_str(&stdout(&run))
        .unwrap_or_else(|e| panic!("{program}: {e}: {}", String::from_utf8_lossy(&run.stderr)));
    let target = &summary["targets"][0];
    let charged: BTreeSet<&str> = target["violations"]["charged"]
        .as_object()
        .map(|charged| charged.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let expected: BTreeSet<&str> = expected.iter().copied().collect();
    assert_eq!(charged, expected, "{program}: {target:#}");
    assert_eq!(
        run.status.code(),
        Some(if expected.is_empty() { 0 } else { 1 }),
        "{program}"
    );
    for finding in target["findings"].as_array().unwrap() {
        let Some(case) = finding["case_file"].as_str() else {
            continue;
        };
        assert!(Path::new(case).is_file(), "{program}: {case}");
        let replay = ctxfuzz(&["replay", "--show", case]);
        assert!(
            replay.status.success(),
            "{program}: {case} does not replay to its verdict:\n{}{}",
            stdout(&replay),
            String::from_utf8_lossy(&replay.stderr)
        );
        // What a maintainer is sent: the case shows the defect, the program's answer beside
        // the input it was given.
        let shown = stdout(&replay);
        let invariant = finding["invariant"].as_str().unwrap();
        assert!(
            shown.contains(&format!("\n[{contract}:{format}] "))
                && shown.contains(&format!("\n  {invariant}: "))
                && (shown.contains("\n  diff:\n    ") && shown.contains("the program's ")
                    || invariant.starts_with("sut-")),
            "{program}: {case} shows:\n{shown}"
        );
    }
}

#[test]
fn planted_a_careful_repairer_is_charged_nothing() {
    charged_exactly("repair-careful", "repair", "openai", &[]);
}

/// A normaliser writes `""` where an assistant that only calls tools has `null`: no text either way.
#[test]
fn planted_a_careful_repairer_that_writes_an_empty_text_for_a_null_one_is_charged_nothing() {
    charged_exactly("repair-careful-normalised", "repair", "openai", &[]);
}

/// Anthropic wants a call's results first in the user message after it: a careful repairer
/// writes its synthetic results into the user's message there, its text then a part.
#[test]
fn planted_a_careful_anthropic_repairer_is_charged_nothing() {
    charged_exactly("repair-careful-anthropic", "repair", "anthropic", &[]);
}

/// pi never sends an assistant message that stopped on an error or an abort: a careful repairer
/// drops a result for its call, which would be an orphan on the wire.
#[test]
fn planted_a_careful_pi_repairer_is_charged_nothing() {
    charged_exactly("repair-careful-pi", "repair", "pi", &[]);
}

#[test]
fn planted_an_anthropic_repairer_that_writes_results_after_the_user_s_text_leaves_the_request_invalid()
 {
    charged_exactly(
        "repair-anthropic-results-last",
        "repair",
        "anthropic",
        &["repair-wire-valid"],
    );
}

/// Anthropic refuses an empty message: a repairer that takes the stray results out of a user
/// message and keeps what is left of it, nothing, leaves the request invalid (and the message
/// changed, where a message of results only may go).
#[test]
fn planted_an_anthropic_repairer_that_keeps_a_message_it_emptied_leaves_the_request_invalid() {
    charged_exactly(
        "repair-anthropic-keeps-emptied",
        "repair",
        "anthropic",
        &["repair-keeps-other-messages", "repair-wire-valid"],
    );
}

#[test]
fn planted_a_repairer_that_drops_blank_messages_loses_them() {
    charged_exactly(
        "repair-drops-blank",
        "repair",
        "openai",
        &["repair-keeps-other-messages"],
    );
}

#[test]
fn planted_a_repairer_that_keeps_stray_results_leaves_the_request_invalid() {
    charged_exactly(
        "repair-keeps-stray",
        "repair",
        "openai",
        &["repair-wire-valid"],
    );
}

#[test]
fn planted_a_repairer_that_answers_late_leaves_the_request_invalid() {
    charged_exactly(
        "repair-answers-late",
        "repair",
        "openai",
        &["repair-wire-valid", "repair-idempotent"],
    );
}

#[test]
fn planted_a_repairer_that_talks_on_stdout_is_charged_its_output_alone() {
    charged_exactly(
        "repair-chatty",
        "repair",
        "openai",
        &["sut-malformed-output"],
    );
}

#[test]
fn planted_a_careful_cut_finder_is_charged_nothing() {
    charged_exactly("cut-careful", "cut", "openai", &[]);
}

#[test]
fn planted_a_cut_finder_that_gives_up_on_long_transcripts_never_compacts_them() {
    charged_exactly(
        "cut-gives-up-long",
        "cut",
        "openai",
        &["cut-compacts-when-asked"],
    );
}

#[test]
fn planted_a_cut_finder_that_cuts_at_the_target_splits_tool_cycles() {
    charged_exactly(
        "cut-at-target",
        "cut",
        "openai",
        &["compaction-no-new-orphans"],
    );
}

#[test]
fn planted_a_careful_pruner_is_charged_nothing() {
    charged_exactly("prune-careful", "prune", "ai-sdk", &[]);
}

#[test]
fn planted_a_pruner_that_drops_the_last_user_message_loses_it() {
    charged_exactly(
        "prune-drops-last-user",
        "prune",
        "ai-sdk",
        &["prune-only-removes"],
    );
}

#[test]
fn planted_a_pruner_that_keeps_results_of_pruned_calls_damages_the_wire() {
    charged_exactly(
        "prune-keeps-results",
        "prune",
        "ai-sdk",
        &["prune-no-new-wire-damage"],
    );
}

#[test]
fn planted_a_careful_trimmer_is_charged_nothing() {
    charged_exactly("trim-careful", "trim", "openai", &[]);
}

#[test]
fn planted_a_trimmer_that_keeps_a_result_without_its_call_damages_the_wire() {
    charged_exactly(
        "trim-keeps-orphan",
        "trim",
        "openai",
        &["trim-no-new-wire-damage"],
    );
}

#[test]
fn planted_a_trimmer_that_shortens_what_it_keeps_changes_it() {
    charged_exactly(
        "trim-shortens-kept",
        "trim",
        "openai",
        &["trim-only-removes"],
    );
}

#[test]
fn planted_a_careful_trimmer_judged_as_a_pruner_loses_messages() {
    charged_exactly("trim-careful", "prune", "openai", &["prune-only-removes"]);
}

#[test]
fn planted_a_sweep_that_edits_kept_messages_shows_the_edit_in_its_diff() {
    let sut = format!(
        "exec python3 {}/tests/sut/planted.py sweep-drops-calls",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = tempfile::tempdir().unwrap();
    let run = ctxfuzz(&[
        "fuzz",
        "--target",
        "sweep",
        "--sut",
        &sut,
        // The diff below is of the Anthropic request (its `tool_use` blocks).
        "--provider",
        "anthropic",
        "--runs",
        "300",
        "--seed",
        "3",
        "--jobs",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let text = stdout(&run);
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert!(text.contains("but its kept message 0 differs"), "{text}");
    // The call the program deleted is in the diff, on the expected side.
    assert!(
        text.lines()
            .any(|line| line.trim_start().starts_with('-') && line.contains("\"tool_use\"")),
        "{text}"
    );
}
