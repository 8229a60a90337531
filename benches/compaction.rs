//! Compaction cost per message for 1k-, 10k-, 100k- and 1M-message transcripts, for both families
//! (docs/figures.md#targets: every system linear in transcript length). Each size reports
//! messages/s; the per-message cost must stay within 1.5x across the range.
//!
//! Every iteration compacts at least 200,000 messages (two hundred distinct 1k transcripts, twenty
//! 10k ones, ...), so every size reads the same amount of memory and only the length of the
//! transcripts changes: re-compacting one 1k transcript that sits in the cache would measure the
//! cache, not the algorithm. The baseline, in the same run, is one read of every message (the
//! length of every message's text: the least any compaction has to do). Nothing in the
//! measured loops allocates per message besides the compaction itself, so no benchmark disturbs
//! the heap of the next one.
//!
//! `cargo bench --bench compaction`

use std::hint::black_box;

use arbitrary::Unstructured;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctxfuzz::compaction::{
    CompactionConfig, Compactor, Family, Faults, Scripted, Tracker, compact,
};
use ctxfuzz::generators::{chat, pi, seeded_bytes};
use ctxfuzz_oracles::js_value::JsValue;

/// The binary's allocator (src/main.rs), so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: ctxfuzz::allocator::Mimalloc = ctxfuzz::allocator::Mimalloc;

/// The compaction's messages as `ctxfuzz compact` and the targets hold them.
type Message = JsValue<'static>;

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];
const MESSAGES_PER_ITERATION: usize = 200_000;
/// Generated messages repeated to build every transcript (a tenth of the smallest size).
const POOL: usize = 100;

/// `pool` repeated to `len` messages: every size (and each half of it, the summarised and the
/// kept one) has the same mix of messages, so only the length changes.
fn transcript(pool: &[Message], len: usize) -> Vec<Message> {
    pool.iter().cycle().take(len).cloned().collect()
}

fn pool(family: Family) -> Vec<Message> {
    (0..)
        .flat_map(|seed| {
            let bytes = seeded_bytes(seed, 4096);
            let mut u = Unstructured::new(&bytes);
            match family {
                Family::Pi => pi::transcript(&mut u).unwrap(),
                Family::Chat => chat::transcript(&mut u).unwrap(),
            }
        })
        .take(POOL)
        .collect()
}

fn per_message(c: &mut Criterion) {
    for family in [Family::Chat, Family::Pi] {
        let pool = pool(family);
        let mut group = c.benchmark_group(format!("compaction-{family:?}").to_lowercase());
        group.sample_size(10);
        for len in SIZES {
            let copies = (MESSAGES_PER_ITERATION / len).max(1);
            let transcripts: Vec<Vec<Message>> =
                (0..copies).map(|_| transcript(&pool, len)).collect();
            group.throughput(Throughput::Elements((copies * len) as u64));
            group.bench_function(format!("read {len} (baseline)"), |b| {
                b.iter(|| {
                    for messages in &transcripts {
                        black_box(
                            messages
                                .iter()
                                .map(|m| family.text(family.role(m), m).chars().count())
                                .sum::<usize>(),
                        );
                    }
                })
            });
            group.bench_function(format!("compact {len}"), |b| {
                b.iter(|| {
                    for messages in &transcripts {
                        black_box(compact(
                            messages,
                            &Compactor {
                                family,
                                config: &CompactionConfig::default(),
                                summariser: &Scripted::Digest,
                                faults: Faults::default(),
                            },
                            &mut Tracker::default(),
                        ));
                    }
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(std::time::Duration::from_secs(3));
    targets = per_message
}
criterion_main!(benches);
