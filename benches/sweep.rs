//! The sweep and the transcript generator, as ratios against parsing the same transcripts with
//! serde_json in the same run (targets in docs/figures.md#targets: linear systems, 100k+ small
//! cases per second per core).
//!
//! `cargo bench --bench sweep`

use std::hint::black_box;

use arbitrary::Unstructured;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use ctxfuzz::generators::{pi, seeded_bytes};
use ctxfuzz::sweep::{BarrierRule, sweep};
use ctxfuzz_oracles::js_value::{self, JsValue};
use serde_json::Value;

/// The binary's allocator (src/main.rs), so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: ctxfuzz::allocator::Mimalloc = ctxfuzz::allocator::Mimalloc;

/// 256 generated transcripts of about 20 messages (the fuzz loop's typical case), as `Value`s:
/// what the baseline parses and the sweep borrows.
fn small_cases() -> Vec<Vec<Value>> {
    (0..256)
        .map(|seed| {
            pi::from_seed::<JsValue>(seed)
                .iter()
                .map(JsValue::to_value)
                .collect()
        })
        .collect()
}

fn small(c: &mut Criterion) {
    let cases = small_cases();
    let texts: Vec<String> = cases
        .iter()
        .map(|t| serde_json::to_string(t).unwrap())
        .collect();
    let bytes: Vec<Vec<u8>> = (0..256).map(|s| seeded_bytes(s, pi::SEED_BYTES)).collect();
    let mut group = c.benchmark_group("small-cases");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("parse (baseline)", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(serde_json::from_str::<Vec<Value>>(text).unwrap());
            }
        })
    });
    group.bench_function("generate as JsValue", |b| {
        b.iter(|| {
            for data in &bytes {
                black_box(pi::transcript::<JsValue>(&mut Unstructured::new(data)).unwrap());
            }
        })
    });
    // The sweep reads the oracle's `JsValue`, borrowed here from the parsed cases.
    let borrowed: Vec<Vec<JsValue>> = cases
        .iter()
        .map(|case| js_value::borrow_all(case))
        .collect();
    for rule in [BarrierRule::None, BarrierRule::Strict] {
        group.bench_function(format!("sweep {rule}"), |b| {
            b.iter(|| {
                for case in &borrowed {
                    black_box(sweep(case, rule));
                }
            })
        });
    }
    group.finish();
}

/// Per-message cost from 1k to 100k messages: flat if the sweep is linear.
fn long(c: &mut Criterion) {
    let pool: Vec<Value> = small_cases().into_iter().flatten().collect();
    let mut group = c.benchmark_group("per-message");
    for len in [1_000, 10_000, 100_000] {
        let transcript: Vec<JsValue> = js_value::borrow_all(&pool)
            .into_iter()
            .cycle()
            .take(len)
            .collect();
        group.throughput(Throughput::Elements(len as u64));
        group.bench_function(format!("sweep strict {len}"), |b| {
            b.iter_batched_ref(
                || (),
                |_| black_box(sweep(&transcript, BarrierRule::Strict)),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2));
    targets = small, long
}
criterion_main!(benches);
