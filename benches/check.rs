//! `ctxfuzz check` end to end against plain serde_json parsing of the same file, in the same run
//! (docs/figures.md#targets: checking a transcript costs at most 2x parsing it).
//!
//! `cargo bench --bench check`. Two workloads: one long agent session (5,000 messages, tool
//! results of a few KB, signed thinking; clean), and the fuzz loop's generated transcripts (256
//! small cases, many of them broken). "check" = parse + render through pi + validate + classify,
//! over the whole transcript at once: what `ctxfuzz check` does with a file it does not cut into
//! parts (`wire::PART_SIZE` messages at least; `benches/scale.rs` measures the parts).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctxfuzz::generators::pi;
use ctxfuzz_oracles::invariants::wire::findings;
use ctxfuzz_oracles::js_value::{JsValue, SortedKeys};
use ctxfuzz_oracles::json_text;
use ctxfuzz_oracles::pi::{PiVersion, default_model};
use serde_json::{Value, json};

/// The binary's allocator (src/main.rs), so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: ctxfuzz::allocator::Mimalloc = ctxfuzz::allocator::Mimalloc;

/// A long, well-formed session: user turns, assistants with one to three calls (and signed
/// thinking), each answered by a result of a few KB.
fn long_session(messages: usize) -> Vec<Value> {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut out = Vec::with_capacity(messages);
    let mut turn = 0;
    while out.len() < messages {
        turn += 1;
        out.push(json!({"role": "user", "content": format!("step {turn}: keep going"), "timestamp": turn}));
        let calls: Vec<String> = (0..rng.usize(1..=3))
            .map(|c| format!("toolu_{turn:05}_{c}"))
            .collect();
        let mut content = vec![
            json!({"type": "thinking", "thinking": "x".repeat(300), "thinkingSignature": "sig"}),
        ];
        content.extend(calls.iter().map(|id| {
            json!({"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": "cargo test"}})
        }));
        out.push(json!({"role": "assistant", "content": content, "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "toolUse", "timestamp": turn}));
        for id in calls {
            let body = "test result: ok. ".repeat(rng.usize(50..250));
            out.push(
                json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
                "content": [{"type": "text", "text": body}], "isError": false, "timestamp": turn}),
            );
        }
    }
    out
}

fn check_file(text: &str, model: &JsValue<'_>) -> usize {
    let document = json_text::parse_borrowed(text).unwrap();
    let messages = document.as_array().unwrap();
    findings(messages, model, PiVersion::default()).map_or(0, |f| f.len())
}

fn bench(c: &mut Criterion) {
    let model = default_model();
    let session = serde_json::to_string(&long_session(5_000)).unwrap();
    let mut group = c.benchmark_group("check long session");
    group.throughput(Throughput::Bytes(session.len() as u64));
    group.bench_function("parse (baseline)", |b| {
        b.iter(|| black_box(serde_json::from_str::<Value>(&session).unwrap()))
    });
    group.bench_function("check", |b| {
        b.iter(|| black_box(check_file(&session, model)))
    });
    group.finish();

    let cases: Vec<String> = (0..256)
        .map(|seed| {
            serde_json::to_string(&SortedKeys(&JsValue::from(pi::from_seed::<JsValue>(seed))))
                .unwrap()
        })
        .collect();
    let mut group = c.benchmark_group("check generated cases");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("parse (baseline)", |b| {
        b.iter(|| {
            for text in &cases {
                black_box(serde_json::from_str::<Value>(text).unwrap());
            }
        })
    });
    group.bench_function("check", |b| {
        b.iter(|| {
            for text in &cases {
                black_box(check_file(text, model));
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
