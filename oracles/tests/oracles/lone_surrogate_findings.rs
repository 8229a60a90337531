//! What the real pi does with texts and ids cut inside a surrogate pair (lone surrogate escapes
//! such as `"\ud83d"`, as `JSON.stringify` writes them), recorded through
//! `oracles/conformance/bridge.mjs` from pi 0.79.0, 0.81.1, 0.87.1 and 1.6.0 (all four answer the
//! same) and pinned here, so a regression shows without Node. The inputs and the recorded request
//! bodies are JSON text, read with `json_text::parse` as `JSON.parse` reads them.

use ctxfuzz_oracles::invariants::wire::findings;
use ctxfuzz_oracles::json_text;
use ctxfuzz_oracles::pi::{self, PiVersion, run_vector_input};
use ctxfuzz_oracles::wire::WireRule;
use serde_json::Value;

const VARIANTS: [PiVersion; 4] = [
    PiVersion::Before0804,
    PiVersion::From0804,
    PiVersion::From086,
    PiVersion::From130,
];

/// A transcript from the target model itself (its ids are not normalised) whose texts, call id
/// and arguments hold lone halves; the last user message is nothing but one.
const SAME_MODEL: &str = r#"[
 {"role":"user","content":"cut \ud83d here","timestamp":1},
 {"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",
  "stopReason":"toolUse","timestamp":2,
  "content":[{"type":"text","text":"\ude00 ok"},
             {"type":"toolCall","id":"call\ud83d","name":"bash","arguments":{"cmd":"\udfff"}}]},
 {"role":"toolResult","toolCallId":"call\ud83d","toolName":"bash","isError":false,
  "content":[{"type":"text","text":"out \udbff"}],"timestamp":3},
 {"role":"user","content":"\ud800","timestamp":4}]"#;

/// The request body's messages the real pi builds for [`SAME_MODEL`].
const SAME_MODEL_SENT: &str = r#"[{"role": "user", "content": "cut  here"},
 {"role": "assistant", "content": [{"type": "text", "text": " ok"},
   {"type": "tool_use", "id": "call\ud83d", "name": "bash", "input": {"cmd": "\udfff"}}]},
 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call\ud83d", "content": "out ",
   "is_error": false}]},
 {"role": "user", "content": ""}]"#;

/// The same call from another provider: its id goes through pi's Anthropic normaliser.
const OTHER_MODEL: &str = r#"[
 {"role":"user","content":"go \udc00","timestamp":1},
 {"role":"assistant","api":"openai-responses","provider":"openai","model":"gpt-5",
  "stopReason":"toolUse","timestamp":2,
  "content":[{"type":"toolCall","id":"call\ud83d","name":"bash","arguments":{}}]},
 {"role":"toolResult","toolCallId":"call\ud83d","toolName":"bash","isError":false,
  "content":[{"type":"text","text":"\ud83d"}],"timestamp":3}]"#;

const OTHER_MODEL_SENT: &str = r#"[{"role": "user", "content": "go "},
 {"role": "assistant", "content": [{"type": "tool_use", "id": "call_", "name": "bash", "input": {}}]},
 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_", "content": "",
   "is_error": false}]}]"#;

fn parse(text: &str) -> Value {
    json_text::parse(text).expect("valid JSON text")
}

fn sent(messages: &str, v: PiVersion) -> Value {
    let input = serde_json::json!({"anthropic": true, "messages": parse(messages)});
    run_vector_input(&input, v)["anthropic"]["messages"].clone()
}

/// pi-ai's `sanitizeSurrogates` removes every lone half from the texts it sends (user, assistant,
/// tool result), after the blank check: a user message that was only a lone half is sent empty.
/// Ids and tool arguments are sent as they are.
#[test]
fn a_text_cut_inside_a_surrogate_pair_is_sent_without_its_lone_half() {
    for v in VARIANTS {
        let body = sent(SAME_MODEL, v);
        assert_eq!(body, parse(SAME_MODEL_SENT), "{v:?}");
        assert!(
            json_text::to_string(&body)
                .unwrap()
                .contains(r#""id":"call\ud83d""#),
            "written back as the escape JSON.stringify writes"
        );
    }
}

/// `normalizeToolCallId` replaces each UTF-16 unit outside `[a-zA-Z0-9_-]`: a lone half becomes
/// one `_`, and the result is renamed with its call.
#[test]
fn an_id_cut_inside_a_surrogate_pair_is_normalised_to_one_underscore() {
    for v in VARIANTS {
        assert_eq!(sent(OTHER_MODEL, v), parse(OTHER_MODEL_SENT), "{v:?}");
    }
}

/// The verdicts `check` gives: the id pi passes through unchanged breaks the API's id pattern;
/// the normalised one does not.
#[test]
fn check_refuses_the_id_pi_sends_unchanged_and_accepts_the_normalised_one() {
    let model = pi::default_model();
    // Read as `check` reads a file: borrowed from the text.
    let same_model = json_text::parse_borrowed(SAME_MODEL).expect("valid JSON text");
    let other_model = json_text::parse_borrowed(OTHER_MODEL).expect("valid JSON text");
    for v in VARIANTS {
        let same = findings(same_model.as_array().unwrap(), model, v).unwrap();
        let rules: Vec<WireRule> = same.iter().map(|f| f.wire.rule).collect();
        assert_eq!(rules, [WireRule::InvalidToolUseId], "{v:?}");
        let other = findings(other_model.as_array().unwrap(), model, v).unwrap();
        assert!(other.is_empty(), "{v:?}: {}", other.len());
    }
}
