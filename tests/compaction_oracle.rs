//! The compaction oracle on rounds tampered by hand. The default compaction's real round is judged
//! clean; each tampering is then reported under its invariant and with its own words, so a check
//! that is weakened, widened or pointed at the wrong rule turns a test red. (The fuzz tests reach
//! the oracle only through whole variants, which exercise few of its branches each.)

use ctxfuzz::compaction::{Config, Family, Faults, Scripted, Tracker, compact};
use ctxfuzz_oracles::invariants::compaction::{
    BOUNDARY_VALID, Contract, KEPT_SUFFIX, Round, USER_TURNS, judge,
};
use serde_json::{Value, json};

/// One compaction as the oracle sees it, owned so that a test can tamper with any part.
#[derive(Clone)]
struct Observed {
    input: Vec<Value>,
    output: Vec<Value>,
    boundary: usize,
    picked: usize,
    summary: String,
    summariser_input: Vec<Value>,
    tracker_calls: Vec<Value>,
}

impl Observed {
    fn of(input: Vec<Value>) -> Observed {
        let mut tracker = Tracker::with_total(0);
        let c = compact(
            &input,
            Family::Chat,
            &Config::default(),
            &Scripted::Digest,
            Faults::default(),
            &mut tracker,
        );
        Observed {
            output: c.messages(),
            boundary: c.boundary,
            picked: c.picked,
            summary: c.summary.clone(),
            summariser_input: c
                .summariser_input
                .iter()
                .map(|v| v.clone().into_owned())
                .collect(),
            tracker_calls: tracker
                .calls
                .iter()
                .map(|call| serde_json::to_value(call).expect("serialisable"))
                .collect(),
            input,
        }
    }

    fn round(&self) -> Round<'_> {
        Round {
            input: &self.input,
            input_after: &self.input,
            output: &self.output,
            boundary: self.boundary,
            picked: self.picked,
            summary: &self.summary,
            summariser_input: &self.summariser_input,
            tracker_calls: &self.tracker_calls,
        }
    }
}

fn contract() -> Contract {
    Contract::from_json(
        "chat",
        &serde_json::to_value(Config::default()).expect("serialisable"),
    )
}

/// `(invariant, summary)` of every violation of `rounds`, in the order reported.
fn verdict(rounds: &[&Observed]) -> Vec<(&'static str, String)> {
    let rounds: Vec<Round<'_>> = rounds.iter().map(|o| o.round()).collect();
    judge(&contract(), &rounds)
        .into_iter()
        .map(|v| (v.invariant, v.summary))
        .collect()
}

/// A long enough body for the summary to be smaller than the region it replaces.
fn padded(text: &str) -> String {
    format!("{text} {}", "and some detail ".repeat(40))
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": padded(text)})
}

fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": padded(text)})
}

fn call(id: &str) -> Value {
    json!({"role": "assistant", "content": "", "tool_calls": [
        {"id": id, "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]})
}

fn result(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "a.rs b.rs"})
}

/// Eight messages with a call cycle in the middle: the default compaction cuts at 4 (`user`).
fn transcript() -> Vec<Value> {
    vec![
        user("never deploy on fridays"),
        assistant("noted"),
        call("c1"),
        result("c1"),
        user("now add the endpoint"),
        call("c2"),
        result("c2"),
        assistant("added"),
    ]
}

#[test]
fn the_default_compaction_is_judged_clean() {
    let observed = Observed::of(transcript());
    assert_eq!(observed.boundary, 4, "the fixture must compact");
    assert_eq!(verdict(&[&observed]), []);
}

#[test]
fn no_cut_despite_a_valid_one_is_reported_and_so_is_a_touched_transcript() {
    let observed = Observed::of(transcript());
    let mut skipped = observed.clone();
    skipped.boundary = 0;
    skipped.picked = 0;
    skipped.summary.clear();
    skipped.summariser_input.clear();
    skipped.tracker_calls.clear();
    skipped.output = skipped.input.clone();
    assert_eq!(
        verdict(&[&skipped]),
        [(
            BOUNDARY_VALID,
            "boundary 0 although index 4 is a valid cut".into()
        )]
    );
    // The transcript changed although the tracker was not touched: reported on its own.
    skipped.output.pop();
    assert_eq!(
        verdict(&[&skipped]),
        [
            (
                BOUNDARY_VALID,
                "boundary 0 although index 4 is a valid cut".into()
            ),
            (
                BOUNDARY_VALID,
                "boundary 0 but the transcript or the tracker was touched".into()
            ),
            (
                KEPT_SUFFIX,
                "nothing was compacted but the transcript changed".into()
            ),
        ]
    );
}

#[test]
fn a_picked_boundary_is_named_by_what_is_wrong_with_it() {
    let observed = Observed::of(transcript());
    // (The other rules read the region off `picked` as well; only this rule's words matter here.)
    let picked_at = |observed: &Observed, picked: usize| {
        let mut tampered = observed.clone();
        tampered.picked = picked;
        let mut found = verdict(&[&tampered]);
        found.retain(|(invariant, _)| *invariant == BOUNDARY_VALID);
        found
    };
    assert_eq!(
        picked_at(&observed, 3),
        [(BOUNDARY_VALID, "boundary 3 is at a tool result".into())]
    );
    assert_eq!(
        picked_at(&observed, 8),
        [(BOUNDARY_VALID, "boundary 8 is past the end".into())]
    );
    // A message between a call and its result is inside the open cycle.
    let interrupted = Observed::of(vec![
        user("never deploy on fridays"),
        call("c1"),
        assistant("still running"),
        result("c1"),
        user("now add the endpoint"),
        assistant("added"),
    ]);
    assert_eq!(
        picked_at(&interrupted, 2),
        [(
            BOUNDARY_VALID,
            "boundary 2 is inside an open call cycle".into()
        )]
    );
}

#[test]
fn a_first_round_that_alters_a_user_turn_breaks_only_that_rounds_rule() {
    let observed = Observed::of(transcript());
    let mut altered = observed.clone();
    altered.summary = altered
        .summary
        .replace("- never deploy on fridays", "- deploy on fridays");
    altered.output[0]["text"] = json!(altered.summary);
    let found: Vec<&str> = verdict(&[&altered]).into_iter().map(|(i, _)| i).collect();
    assert_eq!(found, [USER_TURNS]);
}
