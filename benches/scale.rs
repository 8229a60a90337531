//! `check` at scale: per-message cost of judging 10k, 100k and 1M-message transcripts against
//! parsing the same text into `serde_json::Value` (the baseline, in the same run), and the peak
//! heap of each against the size of the text (docs/figures.md#check-at-scale).
//!
//! `cargo bench --bench scale`. The transcripts are `ctxfuzz::generators::long_session`'s
//! (well-formed, about 180 bytes a message), built in memory from a fixed seed. "check" is what
//! `ctxfuzz check FILE` does after reading the file: `JSON.parse`-compatible parsing, the
//! messages of the document, pi's pipeline and the wire validator. Peak heap is counted by the
//! allocator below, once per workload, outside the timed loops.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctxfuzz::generators::long_session;
use ctxfuzz_oracles::invariants::wire::findings;
use ctxfuzz_oracles::json_text;
use ctxfuzz_oracles::pi::{PiVersion, default_model};
use serde_json::Value;

/// The system allocator, counting the bytes live now and the most live at once.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes live at once while `work` runs, above what was live before it.
fn peak_heap(work: impl FnOnce()) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    work();
    PEAK.load(Ordering::Relaxed) - before
}

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

fn check(text: &str, model: &Value) -> usize {
    let document = json_text::parse(text).expect("the generator writes JSON");
    let messages = document.as_array().expect("an array");
    findings(messages, model, PiVersion::default()).map_or(0, |f| f.len())
}

fn bench(c: &mut Criterion) {
    let model = default_model();
    let texts: Vec<(usize, String)> = SIZES
        .iter()
        .map(|&n| (n, long_session::text(n, 1)))
        .collect();
    for (n, text) in &texts {
        let parse = peak_heap(|| drop(black_box(serde_json::from_str::<Value>(text).unwrap())));
        let checked = peak_heap(|| assert_eq!(check(text, &model), 0));
        let mb = |bytes: usize| bytes as f64 / 1e6;
        println!(
            "peak heap, {n} messages ({:.1} MB of text): parse {:.1} MB ({:.1}x the text), check {:.1} MB ({:.1}x)",
            mb(text.len()),
            mb(parse),
            parse as f64 / text.len() as f64,
            mb(checked),
            checked as f64 / text.len() as f64,
        );
    }
    let mut group = c.benchmark_group("check per message");
    for (n, text) in &texts {
        group.throughput(Throughput::Elements(*n as u64));
        group.bench_with_input(BenchmarkId::new("parse (baseline)", n), text, |b, text| {
            b.iter(|| black_box(serde_json::from_str::<Value>(text).unwrap()))
        });
        group.bench_with_input(BenchmarkId::new("check", n), text, |b, text| {
            b.iter(|| black_box(check(text, &model)))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
