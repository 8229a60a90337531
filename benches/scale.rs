//! `check`, `sweep` and `compact` at scale: per-message cost of judging (and of sweeping and
//! compacting) 10k, 100k and 1M-message transcripts against parsing the same text into
//! `serde_json::Value` and against Node's `JSON.parse` of it (the baselines, in the same run), and
//! the peak heap of each against the size of the text (docs/figures.md#check-scan-and-session-files). Node is
//! timed inside Node (the string already in memory, as the text is for `check`), and its resident
//! set after parsing is printed; without `node` on the path that baseline is skipped.
//!
//! `cargo bench --bench scale`. The transcripts are `ctxfuzz::generators::long_session`'s
//! (well-formed, about 180 bytes a message), built in memory from a fixed seed. "check" is what
//! `ctxfuzz check FILE` does after reading the file: the array read one message at a time
//! (`JSON.parse`-compatible) and judged in parts of `PART_SIZE` messages, each through pi's
//! pipeline and the wire validator; "sweep" what `ctxfuzz sweep FILE --json` does after reading
//! it: the sweep's decisions on a first read of the array one message at a time, then the
//! protocol line written (here to nowhere) on a second; "compact" what `ctxfuzz compact FILE
//! --json` does after reading it (`compaction::streamed`, the object written to nowhere). Peak
//! heap is counted by the allocator below, once per workload, outside the timed loops.

use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctxfuzz::compaction::{CompactionConfig, Scripted, Tracker, streamed};
use ctxfuzz::generators::long_session;
use ctxfuzz::sweep::streamed::decide;
use ctxfuzz::sweep::{BarrierRule, write_protocol_line};
use ctxfuzz::transcript::io;
use ctxfuzz_oracles::invariants::wire::{PART_SIZE, Parts};
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::json_text;

use ctxfuzz_oracles::pi::{PiVersion, default_model};
use serde_json::Value;

/// The binary's allocator (src/main.rs), counting the bytes live now and the most live at once.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { ctxfuzz::allocator::Mimalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { ctxfuzz::allocator::Mimalloc.dealloc(ptr, layout) }
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

fn check(text: &str, model: &JsValue<'_>) -> usize {
    let mut parts = Parts::new(model, PiVersion::default(), PART_SIZE);
    io::for_each_item(Path::new("transcript.json"), text, |message| {
        parts.push(message)
    })
    .expect("the generator writes JSON");
    let judged = parts
        .finish()
        .expect("the parts of a generated session stand alone");
    judged.map_or(0, |found| found.len())
}

fn swept(text: &str) -> usize {
    let path = Path::new("transcript.json");
    let decided = decide(path, text, BarrierRule::Strict, |_, _| {})
        .expect("the generator writes JSON")
        .expect("an array");
    write_protocol_line(std::io::sink(), &decided.kept(path, text), &decided.swept)
        .expect("a sink takes every byte");
    decided.swept.len()
}

/// What `ctxfuzz compact FILE --json` does after reading the file (the `--json` object written
/// to nowhere); the number of messages kept.
fn compacted(text: &str) -> usize {
    let path = Path::new("transcript.json");
    let mut tracker = Tracker::default();
    let config = CompactionConfig::default();
    let compacted = streamed::compact(
        path,
        text,
        None,
        &config,
        &Scripted::Digest,
        &mut tracker,
        |_, _, _| {},
    )
    .expect("the generator writes JSON")
    .expect("an array");
    let messages = compacted.messages(path, text);
    let json = compacted
        .decision
        .to_json(&messages, compacted.kept(), &tracker);
    // The command's writer: serde_json's own would copy each kept message's text as it stands.
    json_text::to_writer(std::io::sink(), &json).expect("a sink takes every byte");
    compacted.kept()
}

/// Reads FILE into a string, then times `JSON.parse` of it ITERS times inside Node; prints the
/// nanoseconds, then the resident set in bytes after the last parse.
const NODE_PARSE: &str = "const s = require('fs').readFileSync(process.argv[1], 'utf8'); \
    const n = Number(process.argv[2]); let v; const t = process.hrtime.bigint(); \
    for (let i = 0; i < n; i++) v = JSON.parse(s); \
    console.log(String(process.hrtime.bigint() - t), process.memoryUsage().rss, v.length);";

/// Node's time for `iters` parses of `file`, and its resident set after them.
fn node_parse(file: &Path, iters: u64) -> Option<(Duration, u64)> {
    let output = Command::new("node")
        .args(["-e", NODE_PARSE])
        .arg(file)
        .arg(iters.to_string())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let stdout = String::from_utf8(output.stdout).ok()?;
    let mut fields = stdout.split_whitespace().map(str::parse::<u64>);
    let nanos = fields.next()?.ok()?;
    let rss = fields.next()?.ok()?;
    Some((Duration::from_nanos(nanos), rss))
}

fn bench(c: &mut Criterion) {
    let model = default_model();
    let texts: Vec<(usize, String)> = SIZES
        .iter()
        .map(|&n| (n, long_session::text(n, 1)))
        .collect();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let files: Vec<_> = texts
        .iter()
        .map(|(n, text)| {
            let path = dir.path().join(format!("{n}.json"));
            std::fs::write(&path, text).expect("the transcript is written");
            path
        })
        .collect();
    for (n, text) in &texts {
        let parse = peak_heap(|| drop(black_box(serde_json::from_str::<Value>(text).unwrap())));
        let checked = peak_heap(|| assert_eq!(check(text, model), 0));
        let sweeping = peak_heap(|| assert_eq!(swept(text), 0));
        let compacting = peak_heap(|| assert!(compacted(text) > 0));
        let mb = |bytes: usize| bytes as f64 / 1e6;
        let times = |bytes: usize| bytes as f64 / text.len() as f64;
        println!(
            "peak heap, {n} messages ({:.1} MB of text): parse {:.1} MB ({:.1}x the text), check {:.1} MB ({:.1}x), sweep {:.1} MB ({:.1}x), compact {:.1} MB ({:.1}x)",
            mb(text.len()),
            mb(parse),
            times(parse),
            mb(checked),
            times(checked),
            mb(sweeping),
            times(sweeping),
            mb(compacting),
            times(compacting),
        );
    }
    // Node's resident set per size, measured once; `None` without `node` (no Node baseline).
    let node_rss: Vec<Option<u64>> = files
        .iter()
        .map(|file| node_parse(file, 1).map(|(_, rss)| rss))
        .collect();
    for ((n, text), rss) in texts.iter().zip(&node_rss) {
        match rss {
            Some(rss) => println!(
                "Node's resident set after JSON.parse of {n} messages: {:.1} MB ({:.1}x the text)",
                *rss as f64 / 1e6,
                *rss as f64 / text.len() as f64
            ),
            None => println!("Node's JSON.parse not measured: no `node` on the path"),
        }
    }
    let mut group = c.benchmark_group("check per message");
    for (((n, text), file), rss) in texts.iter().zip(&files).zip(&node_rss) {
        group.throughput(Throughput::Elements(*n as u64));
        group.bench_with_input(BenchmarkId::new("parse (baseline)", n), text, |b, text| {
            b.iter(|| black_box(serde_json::from_str::<Value>(text).unwrap()))
        });
        if rss.is_some() {
            group.bench_with_input(
                BenchmarkId::new("Node JSON.parse (baseline)", n),
                file,
                |b, file| b.iter_custom(|iters| node_parse(file, iters).expect("node ran").0),
            );
        }
        group.bench_with_input(BenchmarkId::new("check", n), text, |b, text| {
            b.iter(|| black_box(check(text, model)))
        });
        group.bench_with_input(BenchmarkId::new("sweep", n), text, |b, text| {
            b.iter(|| black_box(swept(text)))
        });
        group.bench_with_input(BenchmarkId::new("compact", n), text, |b, text| {
            b.iter(|| black_box(compacted(text)))
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
