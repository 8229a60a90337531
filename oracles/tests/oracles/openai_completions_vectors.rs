//! The openai-completions golden vectors (`tests/data/openai_completions.expected.jsonl`, the real
//! pi's answers recorded through the conformance bridge, which also checks that the file is still
//! what the real pi answers): every one must be reproduced by `run_vector_input` for its pi
//! version.
//!
//! pi's provider reports a throw while building the body as an error event that keeps only the
//! message, except for one while collapsing the system messages (from 0.86, before its `try`); the
//! model always names the error, so an error at the builder's stage is compared without its name.

use ctxfuzz_oracles::json_text;
use ctxfuzz_oracles::pi::{PiVersion, run_vector_input};
use serde_json::Value;

const VECTORS: &str = include_str!("../data/openai_completions.expected.jsonl");

fn without_error_name(mut output: Value) -> Value {
    if output["stage"] == "openai-completions"
        && let Some(Value::String(error)) = output.get_mut("error")
        && let Some((name, message)) = error.split_once(": ")
        && name.ends_with("Error")
    {
        *error = message.to_string();
    }
    output
}

#[test]
fn every_openai_completions_vector_is_reproduced() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in VECTORS.lines() {
        let vector = json_text::parse(line).expect("a vector line");
        let v = PiVersion::of_vector(vector["variant"].as_str().unwrap_or_default())
            .expect("a vector names its pi version");
        let actual = without_error_name(run_vector_input(&vector["input"], v));
        let expected = without_error_name(vector["output"].clone());
        checked += 1;
        if actual != expected {
            failures.push(format!(
                "[{}] {}\n  expected: {expected}\n  actual:   {actual}",
                vector["variant"], vector["name"]
            ));
        }
    }
    assert_eq!(checked, 4 * 43, "43 vectors x 4 pi versions");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
