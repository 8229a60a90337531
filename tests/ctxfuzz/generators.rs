//! The generators reach every shape of docs/fuzzing.md#shapes at a useful rate, and the sweep's
//! properties hold on what they generate, for every barrier rule.

use ctxfuzz_oracles::error::Named;
use std::collections::BTreeMap;

use arbitrary::Unstructured;
use ctxfuzz::generators::{chat, pi, seeded_bytes};
use ctxfuzz::harness::coverage;
use ctxfuzz::sweep::{BarrierRule, sweep, swept_ids};
use ctxfuzz::transcript::format_shapes::{FormatShape, format_shapes};
use ctxfuzz::transcript::shapes::{Shape, shapes};
use ctxfuzz_oracles::formats::{Format, written_in};
use ctxfuzz_oracles::invariants::sweep::{SweepRun, TwinRule, check};
use ctxfuzz_oracles::js_value::{self, JsValue};
use proptest::prelude::*;
use serde_json::Value;

use crate::common::{fingerprint, long_transcript_bytes, values};

const CASES: u64 = 10_000;

/// Minimum occurrences per 10,000 cases. Most shapes must be common enough that a short fuzz run
/// meets them many times; the expensive ones (huge bodies, 10k-message transcripts) are rare on
/// purpose and only need to occur.
fn minimum(shape: Shape) -> usize {
    match shape {
        Shape::LongTranscript => 1,
        Shape::HugeBody
        | Shape::SanitisedIdCollision
        | Shape::NullContent
        | Shape::MissingContent => 10,
        Shape::StringContent | Shape::IdOver64Units => 10,
        _ => 50,
    }
}

#[test]
fn every_shape_occurs_in_10000_seeded_cases() {
    let mut counts: BTreeMap<Shape, usize> = Shape::all().into_iter().map(|s| (s, 0)).collect();
    let mut messages = 0;
    for seed in 0..CASES {
        let transcript: Vec<JsValue> = pi::from_seed(seed);
        messages += transcript.len();
        for shape in shapes(&transcript) {
            *counts
                .get_mut(&shape)
                .expect("shapes() only reports known shapes") += 1;
        }
    }
    println!(
        "shape frequency over {CASES} cases (mean {} messages):",
        messages as u64 / CASES
    );
    for (shape, count) in &counts {
        println!(
            "{:>8.2}%  {count:>5}  {shape}",
            *count as f64 * 100.0 / CASES as f64
        );
    }
    let rare: Vec<String> = counts
        .iter()
        .filter(|&(&shape, &count)| count < minimum(shape))
        .map(|(shape, count)| format!("{shape} ({count} < {})", minimum(*shape)))
        .collect();
    assert!(rare.is_empty(), "shapes below their minimum: {rare:?}");
}

#[test]
fn most_generated_turns_are_ordinary() {
    let clean = (0..1_000)
        .filter(|&seed| {
            let found = shapes(&pi::from_seed(seed));
            found.iter().all(|s| *s == Shape::MultiCallTurn)
        })
        .count();
    // Enough clean transcripts that the fuzzer also exercises the sweep's no-op path.
    assert!(
        clean >= 150,
        "only {clean} of 1000 transcripts are free of damage"
    );
}

#[test]
fn a_seed_reproduces_its_transcript() {
    assert_eq!(seeded_bytes(7, 64), seeded_bytes(7, 64));
    assert_ne!(seeded_bytes(7, 64), seeded_bytes(8, 64));
    assert_eq!(pi::from_seed::<JsValue>(42), pi::from_seed::<JsValue>(42));
}

#[test]
fn an_exhausted_input_still_gives_an_ordinary_transcript() {
    let transcript = values(&pi::transcript::<JsValue>(&mut Unstructured::new(&[])).unwrap());
    let roles: Vec<&str> = transcript
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "toolResult"]);
    assert!(shapes(&js_value::borrow_all(&transcript)).is_empty());
}

/// A 10k-message transcript needs an input long enough to pay for it: a coverage-guided fuzzer
/// would otherwise find the draw that picks it within seconds, from 2-byte inputs, and spend most
/// of its time there (docs/figures.md#libfuzzer).
#[test]
fn only_a_long_enough_input_gives_a_long_transcript() {
    let bytes = long_transcript_bytes();
    let short = pi::transcript(&mut Unstructured::new(&bytes[..2])).unwrap();
    assert!(!shapes(&short).contains(&Shape::LongTranscript));
}

/// The draws of the rare large shapes are not made by the bytes libFuzzer's mutations favour: an
/// input of 0xFF (or 0x00) bytes only, of any length, is neither long nor carries a huge body
/// (docs/figures.md#outsized-inputs).
#[test]
fn runs_of_one_byte_draw_no_large_shape() {
    for byte in [0x00, 0xFF] {
        for len in [2, 64, pi::SEED_BYTES, 4096] {
            let transcript = pi::transcript(&mut Unstructured::new(&vec![byte; len])).unwrap();
            let found = shapes(&transcript);
            assert!(
                !found.contains(&Shape::LongTranscript) && !found.contains(&Shape::HugeBody),
                "{len} bytes of {byte:#04x}"
            );
        }
    }
}

/// The rule's own twin in the oracle, by name.
fn twin(rule: BarrierRule) -> TwinRule {
    rule.name().parse().unwrap()
}

fn sweep_properties(transcript: &[JsValue]) -> Result<(), TestCaseError> {
    for &rule in BarrierRule::all() {
        let first = sweep(transcript, rule);
        let kept = first.messages.refs();
        let run = SweepRun {
            input: transcript,
            output: &kept,
            swept: &first.swept,
            returned_input: first.messages.is_input(transcript),
            second_swept: &swept_ids(&kept, rule),
            twin: twin(rule),
        };
        let violations = check(&run);
        prop_assert!(violations.is_empty(), "rule {rule}: {violations:#?}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// For every rule: the sweep only removes tool results and reports them, returns the input
    /// itself exactly when it swept nothing, is idempotent, and agrees with the oracle's twin of
    /// the same rule.
    #[test]
    fn the_sweep_keeps_its_invariants_under_every_rule(
        transcript in pi::strategy()
    ) {
        sweep_properties(&transcript)?;
    }
}

/// Seeds must keep meaning the same transcripts: a finding's replay command and every recorded
/// seed depend on it. Changing the generator on purpose changes this fingerprint; update it in the
/// same commit and say so.
#[test]
fn seeded_transcripts_are_pinned() {
    let transcripts: Vec<Vec<Value>> = (0..300).map(|seed| values(&pi::from_seed(seed))).collect();
    let messages: usize = transcripts.iter().map(Vec::len).sum();
    let texts: Vec<String> = transcripts
        .iter()
        .map(|t| serde_json::to_string(t).unwrap())
        .collect();
    let hash = fingerprint(texts.iter().map(String::as_str));
    assert_eq!((messages, hash), (4633, 13_155_635_284_572_170_013));
}

/// The proptest face shrinks: a property that the pre-fix sweep breaks (it keeps a result after a
/// barrier, so it disagrees with the contract's twin) comes back as one turn of a few messages
/// (measured: `user / assistant(2 calls) / user / result / result`, from about 20).
#[test]
fn proptest_shrinks_a_pre_fix_failure_to_a_few_messages() {
    use ctxfuzz_oracles::invariants::sweep::matches_twin;
    use proptest::test_runner::{Config, TestError, TestRunner};

    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 2_000,
            failure_persistence: None,
            ..Config::default()
        },
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    let outcome = runner.run(&pi::strategy(), |transcript| {
        let out = sweep(&transcript, BarrierRule::None);
        prop_assert!(matches_twin(&transcript, &out.swept, TwinRule::CONTRACT).is_empty());
        Ok(())
    });
    let Err(TestError::Fail(_, minimal)) = outcome else {
        panic!("the pre-fix sweep was not caught: {outcome:?}");
    };
    println!("{}", serde_json::to_string_pretty(&minimal).unwrap());
    assert!(
        minimal.len() <= 5,
        "shrank only to {} messages",
        minimal.len()
    );
}

/// Every shape real programs write ([`FormatShape::listed`]) is in the stream the contract target
/// hands a program in each format: 3,000 cases of the run seeded 0 contain each at least 10 times.
#[test]
fn every_listed_format_shape_is_generated() {
    let mut rare = Vec::new();
    for &format in Format::all() {
        let counted = coverage::count(format, 0, 3_000);
        println!("{counted}");
        for shape in FormatShape::listed(format) {
            let n = counted.shapes[&shape];
            if n < 10 {
                rare.push(format!("{format}: {shape} ({n})"));
            }
        }
    }
    assert!(
        rare.is_empty(),
        "shapes generated fewer than 10 times: {rare:?}"
    );
}

#[test]
fn the_format_shapes_are_read_from_the_transcript() {
    let openai = serde_json::json!([
        {"role": "system", "content": " \n"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "outil_é1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "outil_é1", "content": ""},
        {"role": "assistant", "content": "done"}
    ]);
    let found = format_shapes(Format::OpenAi, openai.as_array().unwrap());
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        vec![
            FormatShape::EmptyText,
            FormatShape::WhitespaceText,
            FormatShape::NullContentWithCalls,
            FormatShape::MissingOptional("assistant", "tool_calls"),
            FormatShape::NonAsciiId,
            FormatShape::LeadingSystem,
        ]
    );
    let langchain = serde_json::json!([
        {"type": "human", "content": "go"},
        {"type": "ai", "content": "", "tool_calls": [{"id": "a", "name": "f", "args": {}, "type": "tool_call"}]}
    ]);
    assert_eq!(
        format_shapes(Format::LangChain, langchain.as_array().unwrap())
            .into_iter()
            .collect::<Vec<_>>(),
        vec![FormatShape::EmptyText, FormatShape::EmptyContentWithCalls]
    );
}

#[test]
fn ctxfuzz_shapes_prints_the_count_and_fails_on_a_shape_never_generated() {
    let out = crate::common::ctxfuzz(&["shapes", "--format", "langchain", "--cases", "400"]);
    let text = crate::common::stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with("langchain: 400 generated transcripts"),
        "{text}"
    );
    assert!(text.contains("%  empty-content-with-calls"), "{text}");
    let few = crate::common::ctxfuzz(&["shapes", "--format", "openai", "--cases", "1"]);
    assert_eq!(few.status.code(), Some(1));
    assert!(crate::common::stdout(&few).contains("NOT GENERATED: "));
    let unknown = crate::common::ctxfuzz(&["shapes", "--format", "xml"]);
    assert_eq!(unknown.status.code(), Some(2));
}

/// `check`, `render`, `sweep` and `compact` refuse a file with a message another program wrote
/// (`formats::written_in`): none of the generated transcripts they read may hold one, or a user
/// who saved a generated case could not run the commands on it. A chat message may be OpenAI's
/// (AutoBot's chat is its schema).
#[test]
fn no_generated_message_is_taken_for_another_program_s() {
    for seed in 0..2_000 {
        let bytes = seeded_bytes(seed, 4096);
        let pi = values(&pi::transcript::<JsValue>(&mut Unstructured::new(&bytes)).unwrap());
        let told = pi.iter().find_map(|m| written_in(m).map(|w| (m, w)));
        assert_eq!(told, None, "pi, seed {seed}");
        let chat = values(&chat::transcript::<JsValue>(&mut Unstructured::new(&bytes)).unwrap());
        let told = chat.iter().find_map(|m| {
            written_in(m)
                .filter(|&(format, _)| format != Format::OpenAi)
                .map(|w| (m, w))
        });
        assert_eq!(told, None, "chat, seed {seed}");
    }
}
