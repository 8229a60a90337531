//! The golden vectors of the APIs other than Anthropic's (`tests/data/openai_completions.expected.jsonl`,
//! `tests/data/openai_responses.expected.jsonl` and `tests/data/google.expected.jsonl`, the real
//! pi's answers recorded through the
//! conformance bridge, which also checks that each file is still what the real pi answers): every
//! one must be reproduced by `run_vector_input` for its pi version.
//!
//! pi's providers report a throw while building the body as an error event that keeps only the
//! message, except for one while collapsing the system messages (from 0.86, before their `try`);
//! the model always names the error, so an error at the builder's stage is compared without its
//! name.

use ctxfuzz_oracles::json_text;
use ctxfuzz_oracles::pi::{PiVersion, run_vector_input};
use serde_json::Value;

const OPENAI_COMPLETIONS: &str = include_str!("../data/openai_completions.expected.jsonl");
const OPENAI_RESPONSES: &str = include_str!("../data/openai_responses.expected.jsonl");
const GOOGLE: &str = include_str!("../data/google.expected.jsonl");

fn without_error_name(mut output: Value, stage: &str) -> Value {
    if output["stage"] == stage
        && let Some(Value::String(error)) = output.get_mut("error")
        && let Some((name, message)) = error.split_once(": ")
        && name.ends_with("Error")
    {
        *error = message.to_string();
    }
    output
}

/// Every vector of `vectors` reproduced at its pi version; returns how many were checked.
fn reproduced(vectors: &str, stage: &str) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in vectors.lines() {
        let vector = json_text::parse(line).expect("a vector line");
        let v = PiVersion::of_vector(vector["variant"].as_str().unwrap_or_default())
            .expect("a vector names its pi version");
        let actual = without_error_name(run_vector_input(&vector["input"], v), stage);
        let expected = without_error_name(vector["output"].clone(), stage);
        checked += 1;
        if actual != expected {
            failures.push(format!(
                "[{}] {}\n  expected: {expected}\n  actual:   {actual}",
                vector["variant"], vector["name"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn every_openai_completions_vector_is_reproduced() {
    let checked = reproduced(OPENAI_COMPLETIONS, "openai-completions");
    assert_eq!(checked, 4 * 43, "43 vectors x 4 pi versions");
}

#[test]
fn every_openai_responses_vector_is_reproduced() {
    let checked = reproduced(OPENAI_RESPONSES, "openai-responses");
    assert_eq!(checked, 4 * 33, "33 vectors x 4 pi versions");
}

#[test]
fn every_google_vector_is_reproduced() {
    let checked = reproduced(GOOGLE, "google-generative-ai");
    assert_eq!(checked, 4 * 29, "29 vectors x 4 pi versions");
}
