//! The GitHub Action (`action.yml`): its steps are `ci/action.sh`, run here as the runner would,
//! with a scratch `GITHUB_STEP_SUMMARY` and `GITHUB_OUTPUT`, on a PATH that holds the ctxfuzz built
//! for these tests and no cargo, against the planted programs of `tests/sut/planted.py`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{stderr, stdout};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const MARKER: &str = "[planted-synthetic]";

/// A runner's scratch space: a bin folder holding only `ctxfuzz`, an empty summary and output.
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new(with_ctxfuzz: bool) -> Runner {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        if with_ctxfuzz {
            std::os::unix::fs::symlink(
                env!("CARGO_BIN_EXE_ctxfuzz"),
                dir.path().join("bin/ctxfuzz"),
            )
            .unwrap();
        }
        for file in ["summary.md", "output.txt"] {
            std::fs::write(dir.path().join(file), "").unwrap();
        }
        Runner { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `ci/action.sh STEP` with `inputs` as the runner sets them (`INPUT_*`), in the scratch folder.
    fn step(&self, step: &str, inputs: &[(&str, &str)]) -> Output {
        // The shell's own tools and python3 (the planted programs), but no cargo or rustc.
        let python = which("python3");
        let path = format!(
            "{}:{}:/usr/bin:/bin",
            self.path("bin").display(),
            python.parent().unwrap().display()
        );
        let mut command = Command::new(Path::new(ROOT).join("ci/action.sh"));
        command
            .arg(step)
            .current_dir(self.dir.path())
            .env_clear()
            .env("PATH", path)
            .env("HOME", std::env::var("HOME").unwrap_or_default())
            .env("GITHUB_STEP_SUMMARY", self.path("summary.md"))
            .env("GITHUB_OUTPUT", self.path("output.txt"));
        for (name, value) in inputs {
            command.env(format!("INPUT_{}", name.to_uppercase()), value);
        }
        command.output().expect("ci/action.sh runs")
    }

    /// The `run` step fuzzing a planted repairer for `runs` cases from seed 1; asserts its exit code.
    fn fuzz_planted(&self, program: &str, runs: u32, exit_code: i32) {
        let command = format!("exec python3 {ROOT}/tests/sut/planted.py {program}");
        let runs = runs.to_string();
        let inputs = [
            ("command", command.as_str()),
            ("runs", &runs),
            ("seed", "1"),
            ("marker", MARKER),
        ];
        let run = self.step("run", &inputs);
        assert_eq!(
            run.status.code(),
            Some(exit_code),
            "{}{}",
            stdout(&run),
            stderr(&run)
        );
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }
}

fn which(program: &str) -> PathBuf {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .unwrap();
    PathBuf::from(String::from_utf8(found.stdout).unwrap().trim())
}

#[test]
fn action_a_defective_program_fails_the_step_with_its_finding_in_the_summary() {
    let runner = Runner::new(true);
    runner.fuzz_planted("repair-drops-blank", 600, 1);
    let summary = runner.read("summary.md");
    assert!(
        summary.starts_with("## ctxfuzz: FAILED: charged findings in contract [repair:openai]"),
        "{summary}"
    );
    // The report's table, and the finding itself (its input and diff) shown open.
    assert!(
        summary.contains("| contract | repair:openai | repair-keeps-other-messages |"),
        "{summary}"
    );
    assert!(summary.contains("<details open>"), "{summary}");
    assert!(summary.contains("+++ the program's answer"), "{summary}");
    assert_eq!(runner.read("output.txt"), "findings=ctxfuzz-findings\n");
    let cases: Vec<_> = std::fs::read_dir(runner.path("ctxfuzz-findings"))
        .unwrap()
        .collect();
    assert_eq!(cases.len(), 1);
    // The case file replays through the same step: the program still earns the verdict it records.
    let case = cases[0].as_ref().unwrap().path();
    let replay = runner.step("run", &[("replay", case.to_str().unwrap())]);
    assert_eq!(replay.status.code(), Some(0), "{}", stdout(&replay));
    let summary = runner.read("summary.md");
    assert!(
        summary.contains(&format!("## ctxfuzz: replay of {}: passed", case.display())),
        "{summary}"
    );
}

#[test]
fn action_a_careful_program_passes_and_sets_no_findings() {
    let runner = Runner::new(true);
    runner.fuzz_planted("repair-careful", 300, 0);
    let summary = runner.read("summary.md");
    assert!(
        summary.starts_with("## ctxfuzz: clean: nothing charged"),
        "{summary}"
    );
    assert!(
        summary.contains("<details><summary>"),
        "a passing run's output is folded: {summary}"
    );
    assert_eq!(runner.read("output.txt"), "");
}

#[test]
fn action_replays_a_regression_corpus() {
    let runner = Runner::new(true);
    let corpus = format!("{ROOT}/corpus/sweep/earlier-turn-result.json");
    let run = runner.step("run", &[("replay", &corpus)]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}{}",
        stdout(&run),
        stderr(&run)
    );
    assert!(
        runner.read("summary.md").contains("passed"),
        "{}",
        runner.read("summary.md")
    );
}

#[test]
fn action_a_run_with_nothing_to_do_or_no_ctxfuzz_says_what_is_missing() {
    let runner = Runner::new(true);
    let run = runner.step("run", &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("set 'command'"), "{}", stderr(&run));

    let bare = Runner::new(false);
    let install = bare.step("install", &[("install", "none")]);
    assert_eq!(install.status.code(), Some(2));
    assert!(
        stderr(&install).contains("no ctxfuzz is on PATH"),
        "{}",
        stderr(&install)
    );
    let install = bare.step("install", &[("install", "cargo")]);
    assert_eq!(install.status.code(), Some(2));
    assert!(
        stderr(&install).contains("cargo is not on PATH"),
        "{}",
        stderr(&install)
    );
}

#[test]
fn action_install_uses_the_ctxfuzz_on_path_when_it_is_this_version() {
    // No cargo on this PATH: the step can only pass by finding the binary of the source's version.
    let install = Runner::new(true).step("install", &[("install", "cargo")]);
    assert_eq!(install.status.code(), Some(0), "{}", stderr(&install));
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        stdout(&install),
        format!("ctxfuzz {version} is on PATH already\n")
    );
}

/// Every input `action.yml` declares reaches the script: the step passes it as `INPUT_<NAME>` and
/// the script reads that variable.
#[test]
fn action_every_input_reaches_the_script() {
    let action = std::fs::read_to_string(format!("{ROOT}/action.yml")).unwrap();
    let script = std::fs::read_to_string(format!("{ROOT}/ci/action.sh")).unwrap();
    let inputs_block = action
        .split("\ninputs:\n")
        .nth(1)
        .and_then(|rest| rest.split("\noutputs:\n").next())
        .expect("action.yml has inputs, then outputs");
    let inputs: Vec<&str> = inputs_block
        .lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .map(|line| line.trim().trim_end_matches(':'))
        .collect();
    assert!(inputs.len() >= 10, "{inputs:?}");
    for input in inputs {
        let variable = format!("INPUT_{}", input.to_uppercase());
        let passed = format!("{variable}: ${{{{ inputs.{input} }}}}");
        assert!(
            action.contains(&passed),
            "action.yml does not pass {input} as {variable}"
        );
        assert!(
            script.contains(&variable),
            "ci/action.sh does not read {variable}"
        );
    }
}
