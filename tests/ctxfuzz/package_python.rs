//! The Python package (docs/python.md): the wheel `ci/package-python.sh` builds from this test
//! build's binary installs with pip into a fresh venv and runs with no Rust toolchain on PATH; the
//! example suite (examples/python/, pytest) fails on the lossy repairer and on litellm with the
//! finding in the failure message and passes on the careful one; and the API, run from the source
//! tree (tests/sut/api_run.py), reports a crash, a hang and an exception of the user's function as
//! the CLI does, refuses what a child cannot import, speaks every contract, and leaves no process
//! behind after Ctrl-C.
//!
//! Needs what ci/test.sh installs first: ci/peers-install.sh (litellm) and
//! ci/python-test-wheels.sh (pytest), both cached.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{stderr, stdout};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Python interpreter itself (`python3` may be a shim that needs more of PATH).
fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let output = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        String::from_utf8(output.stdout).unwrap().trim().to_string()
    })
}

/// A PATH of `first`, the interpreter's folder and the system's, checked to hold no cargo and no
/// rustc: what a user without a Rust toolchain has.
fn path_without_rust(first: &Path) -> String {
    let interpreter = Path::new(python()).parent().unwrap();
    let dirs = [first, interpreter, Path::new("/usr/bin"), Path::new("/bin")];
    for dir in dirs {
        for tool in ["cargo", "rustc"] {
            assert!(!dir.join(tool).exists(), "{} holds {tool}", dir.display());
        }
    }
    std::env::join_paths(dirs).unwrap().into_string().unwrap()
}

fn run(command: &mut Command) -> Output {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?}: {}\n{}\n{}",
        output.status,
        stdout(&output),
        stderr(&output)
    );
    output
}

/// Builds the wheel into `dir` from this test build's binary (so nothing is compiled again).
fn build_wheel(dir: &Path) -> PathBuf {
    let output = run(Command::new("bash")
        .arg(root().join("ci/package-python.sh"))
        .args(["--binary", env!("CARGO_BIN_EXE_ctxfuzz"), "--out"])
        .arg(dir));
    PathBuf::from(stdout(&output).trim())
}

/// A fresh venv in `dir/venv` with the wheel (and `requirements`, from the local wheel cache)
/// installed by pip with no index, under a PATH without Rust. Returns the venv's `bin`.
fn venv_with_wheel(dir: &Path, wheel: &Path, requirements: Option<&Path>) -> PathBuf {
    let venv = dir.join("venv");
    let bin = venv.join("bin");
    let path = path_without_rust(&bin);
    run(Command::new(python())
        .args(["-m", "venv"])
        .arg(&venv)
        .env("PATH", &path));
    let pip = |args: &[&std::ffi::OsStr]| {
        run(Command::new(bin.join("pip"))
            .args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-index",
            ])
            .args(args)
            .env("PATH", &path));
    };
    if let Some(requirements) = requirements {
        let wheels = root().join("packages/python/.wheels");
        assert!(
            wheels.is_dir(),
            "no {}: run ci/python-test-wheels.sh",
            wheels.display()
        );
        pip(&[
            "--find-links".as_ref(),
            wheels.as_os_str(),
            "--require-hashes".as_ref(),
            "-r".as_ref(),
            requirements.as_os_str(),
        ]);
    }
    pip(&["--no-deps".as_ref(), wheel.as_os_str()]);
    bin
}

#[test]
fn the_wheel_installs_with_pip_and_its_binary_runs_without_a_rust_toolchain() {
    let dir = tempfile::tempdir().unwrap();
    let wheel = build_wheel(&dir.path().join("packages"));
    let version = env!("CARGO_PKG_VERSION");
    let name = wheel.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with(&format!("ctxfuzz-{version}-py3-none-manylinux_"))
            && name.ends_with("_x86_64.whl"),
        "{name}"
    );
    let bytes = std::fs::metadata(&wheel).unwrap().len();
    assert!(bytes < 15 << 20, "the wheel has {bytes} bytes");

    let bin = venv_with_wheel(dir.path(), &wheel, None);
    let path = path_without_rust(&bin);
    let output = run(Command::new("ctxfuzz").arg("--version").env("PATH", &path));
    assert_eq!(stdout(&output).trim(), format!("ctxfuzz {version}"));
    let output = run(Command::new("python")
        .args(["-c", "import ctxfuzz; print(ctxfuzz.__version__)"])
        .env("PATH", &path));
    assert_eq!(stdout(&output).trim(), version);
}

/// The example suite's tests, from pytest's JUnit report: (name, failure report or None).
fn junit_outcomes(report: &str) -> Vec<(String, Option<String>)> {
    report
        .split("<testcase")
        .skip(1)
        .map(|case| {
            let attribute = |text: &str, name: &str| {
                let start = text
                    .find(&format!(" {name}=\""))
                    .map(|i| i + name.len() + 3)?;
                Some(text[start..start + text[start..].find('"')?].to_string())
            };
            let name = attribute(case, "name").unwrap();
            let body = &case[..case.find("</testcase>").unwrap_or(case.len())];
            // The element's text holds the whole report (its `message` attribute is cut short).
            let failure = body.find("<failure ").map(|i| {
                let text = &body[i..body.find("</failure>").unwrap_or(body.len())];
                text[text.find('>').map_or(0, |end| end + 1)..].to_string()
            });
            (name, failure)
        })
        .collect()
}

#[test]
fn the_example_suite_fails_on_the_lossy_repairer_and_litellm_with_the_finding_and_passes_on_the_careful_one()
 {
    let peers = root().join("peers/.venv/lib/python3.11/site-packages");
    assert!(
        peers.join("litellm").is_dir(),
        "litellm is not installed in peers/.venv: run ci/peers-install.sh"
    );
    let dir = tempfile::tempdir().unwrap();
    let wheel = build_wheel(&dir.path().join("packages"));
    let requirements = root().join("packages/python/requirements-test.txt");
    let bin = venv_with_wheel(dir.path(), &wheel, Some(&requirements));
    // litellm comes from the peers' venv (the pinned 1.110.2, same interpreter): a .pth file adds
    // its site-packages after the fresh venv's own, so nothing is installed twice.
    let site = dir.path().join("venv/lib/python3.11/site-packages");
    std::fs::write(
        site.join("ctxfuzz-example-peers.pth"),
        peers.to_str().unwrap(),
    )
    .unwrap();

    let report = dir.path().join("report.xml");
    let output = Command::new(bin.join("pytest"))
        .arg(root().join("examples/python"))
        .args(["-p", "no:cacheprovider", "--junitxml"])
        .arg(&report)
        .current_dir(dir.path())
        .env("PATH", path_without_rust(&bin))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        // The peers' packages bring pytest plugins of their own; the suite needs none of them.
        .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        .output()
        .unwrap();
    let context = format!("{}\n{}", stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(1), "{context}");
    let outcomes = junit_outcomes(&std::fs::read_to_string(&report).unwrap());
    let names: Vec<&str> = outcomes.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "test_careful_repair",
            "test_lossy_repair",
            "test_litellm_repair"
        ],
        "{context}"
    );
    assert_eq!(outcomes[0].1, None, "{context}");
    for (name, failure) in &outcomes[1..] {
        let failure = failure
            .as_deref()
            .unwrap_or_else(|| panic!("{name} passed"));
        for words in [
            "ctxfuzz.FuzzFailure",
            "repair-keeps-other-messages: every message that is not a tool result",
            "a message that is not a tool result was ",
            "case file:  findings/contract-repair-openai-repair-keeps-other-messages-",
            "replay:     ctxfuzz replay findings/",
            "diff:",
        ] {
            assert!(
                failure.contains(words),
                "{name}: no {words:?} in\n{failure}"
            );
        }
    }
    // The case files are where the CLI keeps them: findings/ under the directory it ran in.
    assert!(dir.path().join("findings").is_dir());
}

/// Runs `scenario` of tests/sut/api_run.py in a fresh directory, the package from the source tree
/// and this test build's binary first on PATH: its outcome, read.
fn scenario(name: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let output = api_run(name, dir.path()).output().expect("python3 runs");
    let context = format!("{}\n{}", stdout(&output), stderr(&output));
    assert!(output.status.success(), "{name}: {context}");
    assert!(!stderr(&output).contains("Traceback"), "{name}: {context}");
    serde_json::from_str(&stdout(&output)).unwrap_or_else(|e| panic!("{name}: {e}: {context}"))
}

fn api_run(name: &str, dir: &Path) -> Command {
    let binary = Path::new(env!("CARGO_BIN_EXE_ctxfuzz")).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(binary.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let source = std::env::join_paths([
        root().join("packages/python"),
        root().join("tests/sut"),
        root().join("examples/python"),
    ])
    .unwrap();
    let mut command = Command::new(python());
    command
        .arg(root().join("tests/sut/api_run.py"))
        .arg(name)
        .current_dir(dir)
        .env("PATH", path)
        .env("PYTHONPATH", source)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    command
}

fn text(outcome: &Value, key: &str) -> String {
    outcome[key].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_crash_a_hang_and_an_exception_in_the_function_are_reported_as_the_cli_reports_them() {
    for (name, invariant, words) in [
        (
            "crash",
            "sut-crash",
            "the program exited (exit status 3) instead of answering",
        ),
        (
            "hang",
            "sut-hang",
            "no answer within 300 ms of reading the request",
        ),
    ] {
        let outcome = scenario(name);
        assert_eq!(outcome["outcome"], "failure", "{outcome}");
        assert_eq!(outcome["invariants"], serde_json::json!([invariant]));
        let message = text(&outcome, "message");
        assert!(message.contains(words), "{message}");
        assert!(message.contains("output: no answer"), "{message}");
        let case_file = outcome["case_files"][0].as_str().unwrap_or_default();
        let expected = format!("findings/contract-repair-openai-{invariant}-");
        assert!(case_file.starts_with(&expected), "{outcome}");
    }
    // An exception is the CLI's `sut-threw`: reported in its own class, not charged.
    let outcome = scenario("exception");
    assert_eq!(outcome["outcome"], "summary", "{outcome}");
    let threw = outcome["classes"]["informational"]["sut-threw"].as_u64();
    assert_eq!(threw, outcome["execs"].as_u64(), "{outcome}");
}

#[test]
fn a_clean_run_returns_the_cli_summary_and_bad_arguments_are_the_cli_error() {
    let outcome = scenario("careful");
    assert_eq!(outcome["outcome"], "summary", "{outcome}");
    assert_eq!(outcome["seed"], 1);
    // The same run through the CLI and an adapter file judges the same cases.
    let dir = tempfile::tempdir().unwrap();
    let sut = format!(
        "exec {} {}",
        python(),
        root().join("tests/sut/careful_adapter.py").display()
    );
    let output = crate::common::ctxfuzz_in(
        dir.path(),
        &[
            "fuzz",
            "--contract",
            "repair",
            "--format",
            "openai",
            "--runs",
            "300",
            "--seed",
            "1",
            "--json",
            "--sut",
            &sut,
        ],
    );
    let cli: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let target = &cli["targets"][0];
    assert_eq!(outcome["execs"], target["execs"], "{outcome}\n{cli}");
    assert_eq!(
        outcome["skipped"], target["cannot_express"],
        "{outcome}\n{cli}"
    );
    assert_eq!(
        outcome["classes"]["unpreventable"],
        target["violations"]["unpreventable"]
    );
    assert!(
        text(&outcome, "verdict").starts_with("clean: "),
        "{outcome}"
    );

    let outcome = scenario("unknown-format");
    assert_eq!(outcome["outcome"], "CtxfuzzError", "{outcome}");
    assert!(
        text(&outcome, "message").contains("unknown format `yaml`"),
        "{outcome}"
    );
}

#[test]
fn every_contract_and_format_of_the_cli_is_spoken() {
    for (contract, prefix) in [
        ("repair", "repair-"),
        ("prune", "prune-"),
        ("trim", "prune-"),
        ("cut", "cut-"),
        ("sweep", "sut-matches-rust"),
    ] {
        let outcome = scenario(contract);
        // A clean run, or findings of the contract itself: never an answer of the wrong shape.
        if outcome["outcome"] == "failure" {
            for invariant in outcome["invariants"].as_array().unwrap() {
                let invariant = invariant.as_str().unwrap();
                assert!(invariant.starts_with(prefix), "{contract}: {outcome}");
            }
        } else {
            assert_eq!(outcome["outcome"], "summary", "{contract}: {outcome}");
            assert!(outcome["execs"].as_u64() > Some(0), "{contract}: {outcome}");
        }
    }
}

#[test]
fn a_function_a_child_cannot_import_by_name_is_refused_before_anything_runs() {
    for (name, error, words) in [
        ("lambda", "TypeError", "is a lambda and has none"),
        (
            "closure",
            "TypeError",
            "is a function defined inside another",
        ),
        (
            "main",
            "TypeError",
            "defined in the script being run (__main__)",
        ),
        ("no-module", "ValueError", "no module 'no_such_module'"),
    ] {
        let outcome = scenario(name);
        assert_eq!(outcome["outcome"], error, "{name}: {outcome}");
        assert!(
            text(&outcome, "message").contains(words),
            "{name}: {outcome}"
        );
        assert_eq!(outcome["findings_dir"], false, "{name}: {outcome}");
    }
}

/// Whether process `pid` still runs (a zombie does not).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| Some(stat.rsplit_once(") ")?.1.starts_with('Z')))
        == Some(false)
}

#[test]
fn ctrl_c_during_a_run_stops_the_cli_and_leaves_no_process_behind() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let mut child = api_run("block", dir.path())
        .env("CTXFUZZ_TEST_PIDS", &pids)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    // The user's function runs (and hangs) in the child the CLI supervises: "PID PPID".
    let line = loop {
        let text = std::fs::read_to_string(&pids).unwrap_or_default();
        if let Some(line) = text.lines().next() {
            break line.to_string();
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no case started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let (function, binary) = line.split_once(' ').unwrap();
    assert!(running(function) && running(binary), "{line}");
    // Only the Python process is signalled, as a test runner's own interrupt or timeout does;
    // the CLI and the function's process hear of it from the API.
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the Python process did not stop within 30 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let outcome: Value = serde_json::from_str(&stdout(&output))
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&output), stderr(&output)));
    assert_eq!(outcome["outcome"], "interrupted", "{outcome}");
    let left: Vec<&str> = [function, binary]
        .into_iter()
        .filter(|pid| running(pid))
        .collect();
    for pid in &left {
        // SAFETY: kill(2) of a process this test's run started, so that a failure leaves nothing.
        unsafe { libc::kill(pid.parse().unwrap(), libc::SIGKILL) };
    }
    assert!(left.is_empty(), "processes left behind: {left:?}");
}
