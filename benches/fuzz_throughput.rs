//! `ctxfuzz fuzz` throughput on the `sweep` target, per core, for transcripts of about 20 messages:
//! one exec is what a fuzz worker does per case (seeded bytes → transcript → sweep → oracle).
//! The stages are measured side by side in the same run so the ratios say where the time goes:
//! `decode` (bytes to transcript), `sweep` (decode + the sweep under test), `exec` (the whole case,
//! the oracle included, as [`DynTarget::fuzz_case`] runs it). Then one exec of every default
//! target on the in-process loop's own cases (`fuzz_throughput_every_target`).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctxfuzz::harness::{DynTarget, Profile, bytes, targets};
use ctxfuzz::sweep::{BarrierRule, sweep};
use serde_json::Value;

/// The binary's allocator (src/main.rs), so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Seeded cases whose transcript has 15 to 25 messages.
fn twenty_message_cases(target: &dyn DynTarget) -> Vec<Vec<u8>> {
    (0..)
        .map(|index| bytes::case_bytes(0xbe4c, index))
        .filter(|case| {
            let input = target.decode(case).expect("the generator never fails");
            input
                .as_array()
                .is_some_and(|m| (15..=25).contains(&m.len()))
        })
        .take(256)
        .collect()
}

fn throughput(c: &mut Criterion) {
    let target = targets::build("sweep", Some("strict"), &Profile::default()).unwrap();
    let cases = twenty_message_cases(target.as_ref());
    let mut group = c.benchmark_group("fuzz_throughput_sweep_20_messages");
    group.throughput(Throughput::Elements(1));
    let mut next = cases.iter().cycle();
    group.bench_function("decode", |b| {
        b.iter(|| black_box(target.decode(next.next().unwrap()).unwrap()))
    });
    group.bench_function("sweep", |b| {
        b.iter(|| {
            let input: Value = target.decode(next.next().unwrap()).unwrap();
            let messages = input.as_array().unwrap();
            black_box(sweep(messages, BarrierRule::Strict).swept.len())
        })
    });
    group.bench_function("exec", |b| {
        b.iter(|| black_box(target.fuzz_case(next.next().unwrap(), &|_| true).unwrap()))
    });
    group.finish();
}

/// One exec of every target `ctxfuzz fuzz` runs by default, as the in-process loop runs it: case
/// after case of one seed (`bytes::fill`), so the rare costly case (a 10,000-message transcript)
/// weighs what it weighs in a run. The figures behind "each target at 20,000 execs/s or more".
fn every_target(c: &mut Criterion) {
    let mut group = c.benchmark_group("fuzz_throughput_every_target");
    group.throughput(Throughput::Elements(1));
    for name in targets::default_names() {
        let target = targets::build(name, None, &Profile::default()).unwrap();
        let (mut index, mut buffer) = (0, Vec::new());
        // No failure is kept: the loop converts a failing case back to JSON only while its
        // finding is new, and in a run of any length almost every failure is a known one.
        group.bench_function(name, |b| {
            b.iter(|| {
                bytes::fill(1, index, &mut buffer);
                index += 1;
                black_box(target.fuzz_case(&buffer, &|_| false).is_ok())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, throughput, every_target);
criterion_main!(benches);
