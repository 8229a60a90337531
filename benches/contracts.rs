//! The repair contract's judgement of a case (`repair::check`: each format's reader, the provider
//! rules, the kept messages and results), as a ratio against parsing the same messages with
//! serde_json in the same run: 256 generated pi transcripts, in pi's own format and written for
//! OpenAI chat and Anthropic, each judged as its own repair (input, output and second repair alike,
//! so every message is read and compared), from the `Value`s the contract target reads and from
//! `JsValue`s borrowed from the same text.
//!
//! `cargo bench --bench contracts`

use std::hint::black_box;

use arbitrary::Unstructured;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctxfuzz::generators::{pi, seeded_bytes};
use ctxfuzz_oracles::contracts::repair::{self, RepairRun};
use ctxfuzz_oracles::formats::Format;
use ctxfuzz_oracles::js::Json;
use ctxfuzz_oracles::js_value::{JsValue, SortedKeys};
use ctxfuzz_oracles::json_text;
use serde::Serialize;
use serde_json::Value;

/// The binary's allocator (src/main.rs), so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: ctxfuzz::allocator::Mimalloc = ctxfuzz::allocator::Mimalloc;

/// The JSON text of each generated transcript `format` can express, of 256.
fn cases(format: Format) -> Vec<String> {
    (0..256)
        .filter_map(|seed| {
            let bytes = seeded_bytes(seed, 2048);
            let transcript: Vec<JsValue> = pi::transcript(&mut Unstructured::new(&bytes)).ok()?;
            let written = JsValue::from(format.from_pi(&transcript).ok()?);
            // Keys sorted, as the cases the figures were first measured on.
            Some(serde_json::to_string(&SortedKeys(&written)).unwrap())
        })
        .collect()
}

fn judged<J: Json + Clone + PartialEq + Serialize>(format: Format, messages: &[J]) -> usize {
    repair::check(&RepairRun {
        format,
        input: messages,
        output: messages,
        again: messages,
        marker: None,
    })
    .len()
}

fn repair_judgement(c: &mut Criterion) {
    for format in [Format::Pi, Format::OpenAi, Format::Anthropic] {
        let texts = cases(format);
        let mut group = c.benchmark_group(format!("repair {format}"));
        group.throughput(Throughput::Elements(texts.len() as u64));
        group.bench_function("parse (baseline)", |b| {
            b.iter(|| {
                for text in &texts {
                    black_box(serde_json::from_str::<Value>(text).unwrap());
                }
            })
        });
        group.bench_function("parse + judge, Value", |b| {
            b.iter(|| {
                for text in &texts {
                    let messages: Vec<Value> = serde_json::from_str(text).unwrap();
                    black_box(judged(format, &messages));
                }
            })
        });
        group.bench_function("parse + judge, JsValue", |b| {
            b.iter(|| {
                for text in &texts {
                    let parsed = json_text::parse_borrowed(text).unwrap();
                    let messages: &[JsValue] = parsed.as_array().unwrap();
                    black_box(judged(format, messages));
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, repair_judgement);
criterion_main!(benches);
