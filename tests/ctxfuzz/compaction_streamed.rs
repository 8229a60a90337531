//! `ctxfuzz compact` reads its file one message at a time (`compaction::streamed`): on generated
//! pi and chat transcripts, under every named variant, with the family detected or given, and
//! with escapes `JSON.parse` accepts but serde_json does not, it decides and writes exactly what
//! the compaction of the whole transcript in memory does.

use std::borrow::Cow;
use std::path::Path;

use arbitrary::Unstructured;
use ctxfuzz::compaction::config::NAMED_CONFIGS;
use ctxfuzz::compaction::facts::{CHUNK, Facts, Reader, Role};
use ctxfuzz::compaction::{
    CompactionConfig, Compactor, Family, Faults, Outcome, Scripted, Tracker, compact, streamed,
};
use ctxfuzz::generators::{chat, pi, seeded_bytes};
use ctxfuzz::transcript::io;
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::json_text;
use serde_json::{Value, json};

use crate::common::values;

const PATH: &str = "transcript.json";

/// The `--json` output of the compaction of the array in `text`, read whole into memory; its
/// outcome, and whether it clipped a message of the region.
fn in_memory(
    text: &str,
    family: Option<Family>,
    config: &CompactionConfig,
) -> (String, Outcome, bool) {
    let document = io::parse_json_borrowed(Path::new(PATH), text).unwrap();
    let JsValue::Array(messages) = &document else {
        panic!("an array")
    };
    let family = family.unwrap_or_else(|| Family::detect(messages.iter()));
    let mut tracker = Tracker::default();
    let compactor = Compactor {
        family,
        config,
        summariser: &Scripted::Digest,
        faults: Faults::default(),
    };
    let compaction = compact::<JsValue, _>(messages, &compactor, &mut tracker);
    let json = json_text::to_string_pretty(&compaction.to_json(&tracker)).unwrap();
    let clipped = (compaction.summariser_input.iter()).any(|seen| matches!(seen, Cow::Owned(_)));
    (json, compaction.decision.outcome, clipped)
}

/// The same, read one message at a time.
fn streamed(text: &str, family: Option<Family>, config: &CompactionConfig) -> String {
    let path = Path::new(PATH);
    let mut tracker = Tracker::default();
    let compacted = streamed::compact(
        path,
        text,
        family,
        config,
        &Scripted::Digest,
        &mut tracker,
        |_, _, _| {},
    )
    .unwrap()
    .expect("an array");
    let messages = compacted.messages(path, text);
    let json = compacted
        .decision
        .to_json(&messages, compacted.kept(), &tracker);
    json_text::to_string_pretty(&json).unwrap()
}

/// A transcript of each family from `seed`; every other one opens with a user turn holding a
/// lone surrogate escape, which takes the reader's rewriting path, and ends with one holding
/// escapes the writers decode (a kept message written as it is built, not from its text); every
/// third one is laid out on many lines, as a person's editor writes it.
fn transcripts(seed: u64) -> [(Family, String); 2] {
    let text = |messages: Vec<Value>| match seed % 3 {
        0 => serde_json::to_string_pretty(&messages).unwrap(),
        _ => Value::Array(messages).to_string(),
    };
    let pi = text(values(&pi::from_seed(seed)));
    let bytes = seeded_bytes(seed, 4096);
    let chat = text(values(
        &chat::transcript(&mut Unstructured::new(&bytes)).unwrap(),
    ));
    let surrogate = |text: String, role: &str| {
        let inner = &text[1..text.len() - 1];
        match seed % 2 {
            0 => text.clone(),
            _ => format!(
                r#"[{{"role":"{role}","content":"cut \ud83d here"}}{}{inner},{{"role":"{role}","content":"\u00e9 \/ \udc00"}}]"#,
                if inner.is_empty() { "" } else { "," },
            ),
        }
    };
    [
        (Family::Pi, surrogate(pi, "user")),
        (Family::Chat, surrogate(chat, "user")),
    ]
}

#[test]
fn the_streamed_compaction_writes_what_the_whole_one_does() {
    let (mut cases, mut compacted, mut clipped) = (0, 0, 0);
    for seed in 0..150 {
        for (family, text) in transcripts(seed) {
            for name in NAMED_CONFIGS {
                let mut config = CompactionConfig::named(name).unwrap();
                // Short clips on odd seeds, so that the region's tool results are clipped.
                if seed % 3 == 1 {
                    config.clip_chars = 8;
                }
                let given = (seed % 4 == 3).then_some(family);
                let (whole, outcome, clipping) = in_memory(&text, given, &config);
                assert_eq!(
                    streamed(&text, given, &config),
                    whole,
                    "seed {seed}, {family:?}, variant {name}, family given: {}",
                    given.is_some()
                );
                cases += 1;
                compacted += usize::from(outcome == Outcome::Compacted);
                clipped += usize::from(clipping);
            }
        }
    }
    // Not vacuous: many cases compact, and some clip a tool result for the summariser.
    assert!(
        compacted * 3 > cases && clipped > 0,
        "{compacted} of {cases} compacted, {clipped} with a clipped body"
    );
}

/// The strings a streamed compaction keeps outlive the message they were read from by pointing
/// into the file's text: a string that lies there is lent by it, any other is copied.
#[test]
fn a_string_lying_in_the_text_is_lent_by_it_and_any_other_is_copied() {
    let text = String::from(r#"[{"role":"user"}]"#);
    let inside = &text[3..7];
    let lent = io::lent_by(&text, inside);
    assert_eq!(&*lent, "role");
    assert_eq!(lent.as_ptr(), inside.as_ptr(), "borrowed from the text");
    let elsewhere = String::from("user");
    let copied = io::lent_by(&text, &elsewhere);
    assert_eq!(&*copied, "user");
    assert!(
        !text.as_bytes().as_ptr_range().contains(&copied.as_ptr()),
        "not a part of the text"
    );
}

/// A transcript long enough that the new one is written from a start noted past the first
/// (`streamed::compact` notes each message's), read as it lies, with an escape to rewrite,
/// and converted (a reserved character written raw), the family detected and given: written as
/// the compaction of the whole transcript writes it.
#[test]
fn a_long_transcript_is_written_from_the_start_noted_before_its_boundary() {
    let mut messages: Vec<Value> = Vec::new();
    let mut seed = 0;
    while messages.len() < 700 {
        messages.extend(values(&pi::from_seed(seed)));
        seed += 1;
    }
    let plain = Value::Array(messages).to_string();
    let inner = &plain[1..plain.len() - 1];
    let texts = [
        plain.clone(),
        format!(r#"[{{"role":"user","content":"cut \ud83d here"}},{inner}]"#),
        format!("[{inner},{{\"role\":\"user\",\"content\":\"\u{10FFFF} raw\"}}]"),
    ];
    let mut far = 0;
    for text in &texts {
        for name in NAMED_CONFIGS {
            let config = CompactionConfig::named(name).unwrap();
            for given in [None, Some(Family::Pi)] {
                let (whole, _, _) = in_memory(text, given, &config);
                assert_eq!(streamed(text, given, &config), whole, "variant {name}");
                let boundary = serde_json::from_str::<Value>(&whole).unwrap()["boundary"]
                    .as_u64()
                    .unwrap();
                far += usize::from(boundary > 2 * 64);
            }
        }
    }
    // Not vacuous: most cases keep messages from past the 128th.
    assert!(far > texts.len() * NAMED_CONFIGS.len(), "{far}");
}

/// The region's messages are read each at its start (`io::Document::item_at`) where the text
/// lies as read; from a text whose escapes are rewritten in their order, or from a converted
/// copy, none is (they are read from the first message), and no item starts past the text.
#[test]
fn a_message_is_read_at_its_start_unless_its_text_is_rewritten() {
    let path = Path::new(PATH);
    let item_at = |text: &str, at: usize| {
        let document = io::Document::new(path, text).unwrap();
        let starts = document.item_starts().unwrap().unwrap();
        let start = starts.at(at).unwrap();
        assert_eq!(start.at, at);
        document
            .item_at(start.offset)
            .unwrap()
            .map(|m| m.to_value())
    };
    let plain = r#"[{"role":"user","content":"a"}, {"role":"user","content":"b"}]"#;
    assert_eq!(
        item_at(plain, 1),
        Some(json!({"role": "user", "content": "b"}))
    );
    let document = io::Document::new(path, plain).unwrap();
    assert!(document.item_at(plain.len() + 1).is_err());
    let escaped = r#"[{"content":"cut \ud83d"}, {"content":"b"}]"#;
    let converted = "[{\"content\":\"\u{10FFFF}\"}, {\"content\":\"b\"}]";
    for rewritten in [escaped, converted] {
        assert_eq!(item_at(rewritten, 1), None, "{rewritten}");
    }
}

/// Facts read one message at a time without the messages counted first, as `ctxfuzz compact`
/// reads them, over three chunks: each message's fact at its position, in order either way, and
/// in reverse; the same as those `Facts::read` takes from the slice.
#[test]
fn facts_read_one_at_a_time_over_several_chunks_are_held_in_order() {
    let len = 2 * CHUNK + 5;
    let messages: Vec<JsValue> = (0..len)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            JsValue::from(json!({"role": role, "content": i.to_string()}))
        })
        .collect();
    let mut reader = Reader::with_capacity(Family::Chat, 0);
    for message in &messages {
        reader.read(message, |part| part.to_owned().into());
    }
    let facts = reader.finish();
    assert_eq!(facts, Facts::read(&messages, Family::Chat));
    assert_eq!(
        (facts.messages.len(), facts.messages.is_empty()),
        (len, false)
    );
    let text = |at: usize| facts.messages[at].text.to_string();
    for at in [0, CHUNK - 1, CHUNK, 2 * CHUNK, len - 1] {
        assert_eq!(text(at), at.to_string());
        assert_eq!(facts.messages[at].role == Role::User, at % 2 == 0);
    }
    let read: Vec<String> = facts.messages.iter().map(|f| f.text.to_string()).collect();
    assert_eq!(read, (0..len).map(|i| i.to_string()).collect::<Vec<_>>());
    let last_three: Vec<String> = (facts.messages.range(len - 3..len).rev())
        .map(|f| f.text.to_string())
        .collect();
    assert_eq!(
        last_three,
        [len - 1, len - 2, len - 3].map(|i| i.to_string())
    );
    assert_eq!(
        facts.tokens(CHUNK..CHUNK + 2),
        facts.messages[CHUNK].tokens() * 2
    );
    assert!(
        Facts::read::<JsValue, JsValue>(&[], Family::Chat)
            .messages
            .is_empty()
    );
}
