//! The reference vectors (`tests/data/vectors.expected.jsonl`, produced by running the real pi
//! 1.6.0 and 0.81.1): every message-mode vector must be reproduced exactly by
//! `run_vector_input`, for both pi versions.
//!
//! Session-mode vectors (input with `entries` or `jsonl`: V27 to V31) belong to the session-file
//! model and are checked by its own test; they are skipped here by their input shape, and the test
//! asserts how many it skipped so a vector cannot silently drop out.

use ctxfuzz_oracles::pi::{PiVersion, run_vector_input};
use serde_json::Value;

struct Vector {
    pi_version: PiVersion,
    name: String,
    input: Value,
    output: Value,
}

fn vectors() -> Vec<Vector> {
    include_str!("../data/vectors.expected.jsonl")
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).expect("a vector is valid JSON");
            let pi_version = PiVersion::of_vector(record["variant"].as_str().unwrap_or_default())
                .expect("a vector names its pi version");
            Vector {
                pi_version,
                name: record["name"].as_str().unwrap_or_default().to_string(),
                input: record["input"].take(),
                output: record["output"].take(),
            }
        })
        .collect()
}

fn is_session_mode(input: &Value) -> bool {
    input.get("entries").is_some() || input.get("jsonl").is_some()
}

#[test]
fn every_message_mode_vector_is_reproduced_exactly() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 66, "33 vectors x 2 pi versions");
    let mut checked = 0;
    let mut failures = Vec::new();
    for vector in vectors.iter().filter(|v| !is_session_mode(&v.input)) {
        checked += 1;
        let actual = run_vector_input(&vector.input, vector.pi_version);
        if actual != vector.output {
            failures.push(format!(
                "[{}] {}\n  expected: {}\n  actual:   {}",
                vector.pi_version, vector.name, vector.output, actual
            ));
        }
    }
    assert_eq!(
        checked, 56,
        "28 message-mode vectors x 2 pi versions (V27-V31 are session mode)"
    );
    assert!(
        failures.is_empty(),
        "{} vectors differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_skipped_vectors_are_exactly_the_session_ones() {
    let skipped: Vec<String> = vectors()
        .into_iter()
        .filter(|v| is_session_mode(&v.input))
        .map(|v| v.name[..3].to_string())
        .collect();
    let expected: Vec<String> = ["V27", "V28", "V29", "V30", "V31"]
        .repeat(2)
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(skipped, expected);
}

#[test]
fn the_borrowing_pipeline_renders_what_render_does() {
    use ctxfuzz_oracles::js_value::{self, JsValue};
    use ctxfuzz_oracles::pi::{
        Api, convert_and_transform, convert_to_llm, default_model, transform_messages,
    };
    let mut compared = 0;
    for vector in vectors().iter().filter(|v| !is_session_mode(&v.input)) {
        let Some(messages) = vector.input["messages"].as_array() else {
            continue;
        };
        let mut model = default_model().to_value();
        if let Some(overrides) = vector.input["model"].as_object() {
            for (key, value) in overrides {
                model[key] = value.clone();
            }
        }
        let model = JsValue::from(&model);
        if vector.input["skipConvert"] == true {
            continue;
        }
        let input = js_value::borrow_all(messages);
        for pi_version in PiVersion::ALL {
            let Ok(llm) = convert_to_llm(&input, pi_version) else {
                continue;
            };
            let Ok(transformed) =
                transform_messages(&llm, &model, Api::AnthropicMessages, pi_version)
            else {
                continue;
            };
            let borrowed = convert_and_transform(&input, &model, pi_version).expect("renders");
            assert_eq!(
                borrowed, transformed,
                "[{pi_version}] {}: the borrowing pipeline renders what `render` does",
                vector.name
            );
            compared += 1;
        }
    }
    assert!(compared >= 100, "{compared}");
}
