//! `ctxfuzz fuzz` throughput on the `sweep` target, per core, for transcripts of about 20 messages:
//! one exec is what a fuzz worker does per case (seeded bytes → transcript → sweep → oracle).
//! The stages are measured side by side in the same run so the ratios say where the time goes:
//! `decode` (bytes to the transcript the target judges, the oracle's `JsValue`s), `sweep` (decode
//! and the sweep under test), `exec` (the whole case, the oracle included, as
//! [`DynTarget::fuzz_case`] runs it). Then one exec of every default target on the in-process
//! loop's own cases (`fuzz_throughput_every_target`).
//!
//! Before the timed groups it prints how many allocations one sweep case makes: generating the
//! transcript (the case itself) and judging it (everything else), counted by the allocator below,
//! which costs one relaxed load per allocation while it is not counting.

use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use arbitrary::Unstructured;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctxfuzz::generators::pi;
use ctxfuzz::harness::{DynTarget, Profile, bytes, targets};
use ctxfuzz::sweep::{BarrierRule, sweep};
use ctxfuzz_oracles::js_value::JsValue;

/// The binary's allocator (src/main.rs), so that the figures are the command's, counting the
/// allocations made while [`COUNTING`] is set.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { ctxfuzz::allocator::Mimalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { ctxfuzz::allocator::Mimalloc.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What `work` returns, and how many allocations it made.
fn allocations<T>(work: impl FnOnce() -> T) -> (T, usize) {
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let result = black_box(work());
    COUNTING.store(false, Ordering::Relaxed);
    (result, ALLOCATIONS.load(Ordering::Relaxed))
}

/// The transcript the sweep target judges for `case` (its seeded bytes never read as JSON).
fn transcript(case: &[u8]) -> Vec<JsValue<'static>> {
    pi::transcript(&mut Unstructured::new(case)).expect("the generator never fails")
}

/// Seeded cases whose transcript has 15 to 25 messages.
fn twenty_message_cases(target: &dyn DynTarget) -> Vec<Vec<u8>> {
    (0..)
        .map(|index| bytes::case_bytes(0xbe4c, index))
        .filter(|case| {
            let decoded = target.decode(case).expect("the generator never fails");
            let length = transcript(case).len();
            assert_eq!(decoded.as_array().map(Vec::len), Some(length));
            (15..=25).contains(&length)
        })
        .take(256)
        .collect()
}

fn throughput(c: &mut Criterion) {
    let target = targets::build("sweep", Some("strict"), &Profile::default()).unwrap();
    let cases = twenty_message_cases(target.as_ref());
    let (mut generating, mut judging, mut messages) = (0, 0, 0);
    for case in &cases {
        let (transcript, made) = allocations(|| transcript(case));
        let (_, whole) = allocations(|| target.fuzz_case(case, &|_| false));
        (generating, judging, messages) = (
            generating + made,
            judging + whole - made,
            messages + transcript.len(),
        );
    }
    println!(
        "allocations per sweep case ({:.1} messages): generating the transcript {:.0}, judging it {:.0}",
        messages as f64 / cases.len() as f64,
        generating as f64 / cases.len() as f64,
        judging as f64 / cases.len() as f64,
    );
    let mut group = c.benchmark_group("fuzz_throughput_sweep_20_messages");
    group.throughput(Throughput::Elements(1));
    let mut next = cases.iter().cycle();
    group.bench_function("decode", |b| {
        b.iter(|| black_box(transcript(next.next().unwrap())))
    });
    group.bench_function("sweep", |b| {
        b.iter(|| {
            let messages = transcript(next.next().unwrap());
            black_box(sweep(&messages, BarrierRule::Strict).swept.len())
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
