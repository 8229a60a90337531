//! The turn-end guard target's parts, as ratios against parsing the same schedules with serde_json
//! in the same run: generating a schedule, running pi's model on it, turning the trace into the
//! JSON the oracle reads, and judging it (from a `Value`, and from text as the fuzz target does).
//!
//! `cargo bench --bench guard`

use std::hint::black_box;

use arbitrary::Unstructured;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctxfuzz::generators::seeded_bytes;
use ctxfuzz::guard::{self, GuardWiring, Schedule, generate};
use ctxfuzz_oracles::invariants;

/// The binary's allocator (src/main.rs), so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: ctxfuzz::allocator::Mimalloc = ctxfuzz::allocator::Mimalloc;

/// 256 generated schedules (the fuzz loop's typical case).
fn cases() -> Vec<Schedule> {
    (0..256)
        .map(|seed| generate::schedule(&mut Unstructured::new(&seeded_bytes(seed, 256))).unwrap())
        .collect()
}

fn parts(c: &mut Criterion) {
    let schedules = cases();
    let texts: Vec<String> = schedules
        .iter()
        .map(|s| serde_json::to_string(&s.to_value()).unwrap())
        .collect();
    let bytes: Vec<Vec<u8>> = (0..256).map(|seed| seeded_bytes(seed, 256)).collect();
    let traces: Vec<serde_json::Value> = schedules
        .iter()
        .map(|s| guard::run(GuardWiring::EndRelease, s).to_value())
        .collect();
    let mut group = c.benchmark_group("guard");
    group.throughput(Throughput::Elements(schedules.len() as u64));
    group.bench_function("parse schedule (baseline)", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(serde_json::from_str::<serde_json::Value>(text).unwrap());
            }
        })
    });
    group.bench_function("generate", |b| {
        b.iter(|| {
            for data in &bytes {
                black_box(generate::schedule(&mut Unstructured::new(data)).unwrap());
            }
        })
    });
    group.bench_function("run end-release", |b| {
        b.iter(|| {
            for schedule in &schedules {
                black_box(guard::run(GuardWiring::EndRelease, schedule));
            }
        })
    });
    group.bench_function("run + trace to JSON", |b| {
        b.iter(|| {
            for schedule in &schedules {
                black_box(guard::run(GuardWiring::EndRelease, schedule).to_value());
            }
        })
    });
    group.bench_function("judge (value)", |b| {
        b.iter(|| {
            for trace in &traces {
                black_box(invariants::guard::judge(trace));
            }
        })
    });
    group.bench_function("run + judge as text (the target's path)", |b| {
        b.iter(|| {
            for schedule in &schedules {
                let trace = guard::run(GuardWiring::EndRelease, schedule);
                let text = serde_json::to_string(&trace).unwrap();
                black_box(invariants::guard::judge_text(&text));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, parts);
criterion_main!(benches);
