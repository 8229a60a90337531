//! The oracle against the real pi, and `check` on a session file against parsing it (targets:
//! docs/figures.md#targets).
//!
//! `cargo bench --bench oracle` (needs `npm ci --prefix oracles/conformance`).
//!
//! 1. `convertToLlm` + `transformMessages` over the same 20,000 generated transcripts: the Rust
//!    models (`ctxfuzz_oracles::pi`) against pi 1.6.0 in Node, timed inside Node by the bridge
//!    (`oracles/conformance/bridge.mjs`, after one untimed warm-up pass). Neither side includes
//!    JSON parsing. Target: the oracle at least 20x faster.
//! 2. `check` of a pi session file (5,000 messages) end to end (read the lines as pi does, build
//!    the session context, render through pi, validate the request) against plain serde_json
//!    parsing of the same lines. Target: at most 2x the parse.
//!
//! 3. `render --batch`'s work per transcript (`write_vector_answer`: `convertToLlm`,
//!    `transformMessages` and one request body, the answer written as JSON text; reading the
//!    lines left out) for each API the oracle models, over the same 20,000 transcripts.
//!    Target: no API's body slower than the Anthropic one (docs/figures.md#oracle-against-the-real-pi).
//!
//! The ratios are printed at the end, measured in this run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ctxfuzz::generators::pi as pi_gen;
use ctxfuzz::harness::pi_bridge;
use ctxfuzz::transcript::session_file;
use ctxfuzz_oracles::invariants::wire::findings;
use ctxfuzz_oracles::js_value::{self, JsValue};
use ctxfuzz_oracles::pi::{
    PiVersion, Provider, convert_and_transform, default_model, write_vector_answer,
};
use serde_json::{Value, json};

/// The binary's allocator (src/main.rs), so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: ctxfuzz::allocator::Mimalloc = ctxfuzz::allocator::Mimalloc;

const TRANSCRIPTS: u64 = 20_000;
const SESSION_MESSAGES: usize = 5_000;

/// The generated transcripts as `Value`s, the form the Node side is given.
fn transcripts() -> Vec<Vec<Value>> {
    (0..TRANSCRIPTS)
        .map(|seed| {
            pi_gen::from_seed::<JsValue>(seed)
                .iter()
                .map(JsValue::to_value)
                .collect()
        })
        .collect()
}

/// The Rust side of comparison 1: every transcript through `convertToLlm` and
/// `transformMessages` (a throw is an outcome, as in Node).
fn oracle_pass(transcripts: &[Vec<JsValue<'_>>], model: &JsValue<'_>) -> usize {
    transcripts
        .iter()
        .filter_map(|t| convert_and_transform(t, model, PiVersion::From130).ok())
        .map(|out| out.len())
        .sum()
}

/// A session file: a header, then generated transcripts laid end to end as message entries.
fn session_file() -> String {
    let mut text = json!({"type": "session", "version": 3, "id": "bench",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"})
    .to_string();
    text.push('\n');
    let mut count = 0;
    for seed in 0.. {
        for message in pi_gen::from_seed::<JsValue>(seed) {
            let parent = if count == 0 {
                Value::Null
            } else {
                json!(format!("e{}", count - 1))
            };
            let entry = json!({"type": "message", "id": format!("e{count}"), "parentId": parent,
                "timestamp": "2026-01-01T00:00:01.000Z", "message": message});
            text += &entry.to_string();
            text.push('\n');
            count += 1;
        }
        if count >= SESSION_MESSAGES {
            break;
        }
    }
    text
}

fn parse_lines(text: &str) -> usize {
    text.lines()
        .filter(|line| serde_json::from_str::<Value>(line).is_ok())
        .count()
}

fn check_session(text: &str, model: &JsValue<'_>) -> usize {
    let loaded = session_file::load(text, PiVersion::From130);
    match loaded.context {
        Some(Ok(context)) => {
            findings(&context.messages, model, PiVersion::From130).map_or(0, |f| f.len())
        }
        _ => 0,
    }
}

/// The `render --batch` input asking for each API's body, by API, each for the catalog model of
/// a provider that speaks it (pi 1.6.0's `models.generated.js`: the default Claude model, Groq's
/// Llama 3.3, OpenAI's GPT-4.1, Google's Gemini 2.5 Flash). Every input names its model, so that
/// each pays the same merge of it over the default model: the bodies are what is compared.
fn batch_inputs(transcripts: &[Vec<Value>]) -> Vec<(&'static str, Vec<Value>)> {
    let each = |body: Value| -> Vec<Value> {
        transcripts
            .iter()
            .map(|t| {
                let mut input = body.clone();
                input["messages"] = json!(t);
                input
            })
            .collect()
    };
    vec![
        (
            "anthropic-messages",
            each(json!({"anthropic": true, "model": Provider::Anthropic.model()})),
        ),
        (
            "openai-completions",
            each(json!({"openaiCompletions": true, "model": Provider::Groq.model()})),
        ),
        (
            "openai-responses",
            each(json!({"openaiResponses": true, "model": Provider::OpenAi.model()})),
        ),
        (
            "google-generative-ai",
            each(json!({"google": true, "model": Provider::Google.model()})),
        ),
    ]
}

/// `render --batch`'s work on every input: its answer written as it is built
/// (`write_vector_answer`), the bytes counted so that none is optimised away.
fn render_batch(inputs: &[JsValue]) -> usize {
    let mut text = Vec::new();
    inputs
        .iter()
        .map(|input| {
            text.clear();
            write_vector_answer(input, PiVersion::From130, &mut text)
                .expect("an answer is written");
            text.len()
        })
        .sum()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                black_box(f());
                start.elapsed()
            })
            .collect(),
    )
}

fn bench(c: &mut Criterion) {
    let transcripts_json = transcripts();
    let inputs: Vec<Value> = transcripts_json
        .iter()
        .map(|t| json!({"messages": t}))
        .collect();
    // The oracle reads transcripts as the pipeline does, borrowed (Node reads parsed objects).
    let model = default_model();
    let transcripts: Vec<Vec<JsValue>> = transcripts_json
        .iter()
        .map(|t| js_value::borrow_all(t))
        .collect();
    let node_ready = pi_bridge::require_installation();

    let mut group = c.benchmark_group("oracle vs real pi, 20,000 transcripts");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("ctxfuzz oracle (Rust)", |b| {
        b.iter(|| black_box(oracle_pass(&transcripts, model)))
    });
    if node_ready.is_ok() {
        group.bench_function("pi 1.6.0 (Node, timed inside Node)", |b| {
            b.iter_custom(|iters| {
                pi_bridge::time_in_node("1.6.0", &inputs, iters).expect("the pi bridge runs")
            })
        });
    }
    group.finish();

    let session = session_file();
    let mut group = c.benchmark_group("check a session file (5,000 messages)");
    group.sample_size(20);
    group.bench_function("parse the lines (serde_json baseline)", |b| {
        b.iter(|| black_box(parse_lines(&session)))
    });
    group.bench_function("check end to end", |b| {
        b.iter(|| black_box(check_session(&session, model)))
    });
    group.finish();

    let inputs_json = batch_inputs(&transcripts_json);
    let batches: Vec<(&str, Vec<JsValue>)> = inputs_json
        .iter()
        .map(|(api, inputs)| (*api, js_value::borrow_all(inputs)))
        .collect();
    let mut group = c.benchmark_group("render --batch, one body a transcript (20,000 transcripts)");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (api, inputs) in &batches {
        group.bench_function(*api, |b| b.iter(|| black_box(render_batch(inputs))));
    }
    group.finish();

    println!("\nratios measured in this run (medians):");
    // Alternated, run by run, so that a change in the machine's load falls on every API alike.
    let mut samples = vec![Vec::new(); batches.len()];
    for _ in 0..7 {
        for ((_, inputs), samples) in batches.iter().zip(&mut samples) {
            samples.push(time(1, || render_batch(inputs)));
        }
    }
    let per_api: Vec<(&str, Duration)> = batches
        .iter()
        .zip(samples)
        .map(|((api, _), samples)| (*api, median(samples)))
        .collect();
    let anthropic = per_api[0].1;
    for (api, took) in &per_api[1..] {
        println!(
            "  render --batch {took:?} for {api} vs {anthropic:?} for anthropic-messages: {:.2}x (target <= 1x)",
            took.as_secs_f64() / anthropic.as_secs_f64()
        );
    }
    let rust = time(5, || oracle_pass(&transcripts, model));
    match node_ready.and_then(|()| pi_bridge::time_in_node("1.6.0", &inputs, 5)) {
        Ok(node) => {
            let node = node / 5;
            println!(
                "  oracle {rust:?} vs real pi {node:?} per 20,000 transcripts: the oracle is {:.1}x faster (target >= 20x)",
                node.as_secs_f64() / rust.as_secs_f64()
            );
        }
        Err(e) => println!("  oracle {rust:?} per 20,000 transcripts; real pi not measured: {e:#}"),
    }
    let parse = time(11, || parse_lines(&session));
    let check = time(11, || check_session(&session, model));
    println!(
        "  session check {check:?} vs parse {parse:?}: {:.2}x the parse (target <= 2x)",
        check.as_secs_f64() / parse.as_secs_f64()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
