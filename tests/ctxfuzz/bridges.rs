//! The format bridges round-trip what the contracts judge, on generated pi transcripts: for every
//! format, `Format::from_pi` either refuses the transcript with a typed reason (counted per format
//! and reason, printed, and bounded: each format must express most cases) or writes it so that
//! the format's own reader gives back, of what pi sends (`convertToLlm`'s output, read as pi
//! messages), the roles of the messages, the calls and results in order, and which result answers
//! which call under the provider rules (for Anthropic, which judges merged turns, on the cases
//! where no two consecutive messages share a role). The reader is the way back: no format is written back
//! into pi, since the contracts judge only this (docs/decisions.md).
//!
//! Writing is deterministic and stable: what pi sends, written again, is the same transcript (the
//! same writer on the same messages, after a `convertToLlm` that is a fixed point on its own
//! output), and the JSON text of a written transcript (a case file) reads back as it.

use ctxfuzz_oracles::error::Named;
use std::collections::BTreeMap;

use arbitrary::Unstructured;
use ctxfuzz::generators::pi;
use ctxfuzz::harness::bytes::case_bytes;
use ctxfuzz_oracles::formats::{Entry, Format, skeleton, wire};
use ctxfuzz_oracles::js::Json;
use ctxfuzz_oracles::js_value::{self, JsValue};
use ctxfuzz_oracles::pi::{PiVersion, convert_to_llm};
use ctxfuzz_oracles::wire::WireRule;
use serde_json::Value;

use crate::common::values;

/// The first `CASES` cases of `ctxfuzz fuzz --contract ... --seed SEED`: the transcripts a contract
/// run generates, from the same bytes.
const SEED: u64 = 2026;
const CASES: u64 = 4_000;

/// The least share of the cases every format must express. Measured on these cases (the table in
/// docs/contracts.md): Gemini 67.9%, OpenAI chat and AI SDK 72.2%, Anthropic 82.1%, LangChain
/// 87.7%; the bound leaves room for changes to the generator, not for a bridge that starts
/// refusing a common shape.
const MIN_EXPRESSED: f64 = 0.5;

/// What one format did with the cases.
#[derive(Default)]
struct Tally {
    expressed: u64,
    /// Expressed, with two consecutive messages of one role where the provider merges them:
    /// their pairing is not compared.
    merged: u64,
    skipped: BTreeMap<String, u64>,
}

/// Which result answers which call, as the provider rules read `view`: every rule broken, with
/// the call id concerned, in order (message indices differ between formats that group results
/// differently, so they are left out; a call id repeated among the calls, a turn of calls where
/// Gemini wants a user turn before it, and an empty message Anthropic refuses, are rules of one
/// provider, not pairings, so they are left out too).
fn pairing<J: Json + Clone>(format: Format, view: &[Entry<J>]) -> Vec<(WireRule, Option<String>)> {
    wire::validate(format, view)
        .into_iter()
        .filter(|v| {
            !matches!(
                v.rule,
                WireRule::DuplicateCallId
                    | WireRule::FunctionCallNotAfterUser
                    | WireRule::EmptyContent
            )
        })
        .map(|v| (v.rule, v.id))
        .collect()
}

#[test]
fn bridges_round_trip_what_the_contracts_judge_or_count_a_skip() {
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    for case in 0..CASES {
        let bytes = case_bytes(SEED, case);
        let generated: Vec<JsValue> =
            pi::transcript(&mut Unstructured::new(&bytes)).expect("never fails");
        assert_eq!(
            Format::Pi.from_pi(&generated).as_ref(),
            Ok(&generated),
            "case {case}: pi is its own format"
        );
        tallies.entry(Format::Pi.name()).or_default().expressed += 1;
        // What pi sends, read as pi messages, and which result answers which call there as chat
        // completions pair them (one message per result, as pi writes them); `None` when pi
        // throws (every bridge refuses then).
        let sent: Option<Vec<Value>> = convert_to_llm(&generated, PiVersion::default())
            .ok()
            .map(|llm| llm.iter().map(|message| message.to_value()).collect());
        let expected = sent.as_ref().map(|llm| {
            let view = Format::Pi.view(llm);
            (skeleton(&view), pairing(Format::OpenAi, &view))
        });
        for &format in Format::all().iter().filter(|&&f| f != Format::Pi) {
            let tally = tallies.entry(format.name()).or_default();
            let written = match format.from_pi(&generated) {
                Ok(written) => written,
                Err(reason) => {
                    *tally.skipped.entry(reason.key()).or_default() += 1;
                    continue;
                }
            };
            tally.expressed += 1;
            let (skeleton_sent, pairing_sent) = expected
                .as_ref()
                .unwrap_or_else(|| panic!("case {case}: {format} wrote what pi throws on"));
            let view = format.view(&written);
            assert_eq!(
                &skeleton(&view),
                skeleton_sent,
                "case {case}: {format} changed roles, calls or results: {written:#?}"
            );
            // A provider that merges consecutive messages of one role judges turns, not
            // messages: its rules read another pairing wherever two such messages meet.
            if format.merges_turns() && view.windows(2).any(|two| two[0].role == two[1].role) {
                tally.merged += 1;
            } else {
                assert_eq!(
                    &pairing(format, &view),
                    pairing_sent,
                    "case {case}: {format} changed which result answers which call: {written:#?}"
                );
            }
            // Written again from what pi sends: the same transcript, so writing is deterministic
            // and the bridge's `convertToLlm` step a fixed point on its own output.
            let llm = sent.as_deref().expect("checked above");
            assert_eq!(
                format.from_pi(&js_value::borrow_all(llm)).as_ref(),
                Ok(&written),
                "case {case}: {format} writes what pi sends differently"
            );
            let text = serde_json::to_string(&written).expect("JSON serialises");
            let read: Vec<Value> = serde_json::from_str(&text).expect("written JSON parses");
            assert_eq!(
                read,
                values(&written),
                "case {case}: {format} does not read back"
            );
        }
    }
    let share = |n: u64| format!("{n:>5} {:>5.1}%", n as f64 * 100.0 / CASES as f64);
    eprintln!("bridges over cases 0..{CASES} of seed {SEED}: expressed, then skipped by reason");
    for (format, tally) in &tallies {
        eprintln!("  {format:<10} {}  expressed", share(tally.expressed));
        if tally.merged > 0 {
            eprintln!(
                "  {:<10} {}  of them with turns merged",
                "",
                share(tally.merged)
            );
        }
        for (reason, &n) in &tally.skipped {
            eprintln!("  {:<10} {}  {reason}", "", share(n));
        }
    }
    let refusing: Vec<String> = tallies
        .iter()
        .filter(|(_, tally)| (tally.expressed as f64) < MIN_EXPRESSED * CASES as f64)
        .map(|(format, tally)| format!("{format} ({} of {CASES})", tally.expressed))
        .collect();
    assert!(
        refusing.is_empty(),
        "formats expressing less than {:.0}% of the cases: {refusing:?}",
        MIN_EXPRESSED * 100.0
    );
}
