//! `ci/mutants_verdict.py`, the judge of every cargo-mutants run: survivors fail it, listed
//! equivalents do not, and an entry pinned to a code snippet excuses only the mutant under it.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// The source the fabricated mutants point into: two `+` in one function, the case a description
/// alone cannot tell apart.
const SOURCE: &str =
    "fn open_cycles(o: usize, i: usize) -> (usize, usize) {\n    (o + 1, i + 1)\n}\n";

fn mutant(line: u32, column: u32, description: &str) -> Value {
    json!({
        "file": "src/cycles.rs",
        "name": format!("src/cycles.rs:{line}:{column}: {description}"),
        "span": {"start": {"line": line, "column": column}, "end": {"line": line, "column": column + 1}},
    })
}

fn outcome(mutant: Value, summary: &str) -> Value {
    json!({"scenario": {"Mutant": mutant}, "summary": summary})
}

/// Writes a run's `outcomes.json` (after its baseline) into `dir/NAME/`; the folder's path.
fn write_run(dir: &Path, name: &str, outcomes: &[Value]) -> std::path::PathBuf {
    let out = dir.join(name);
    std::fs::create_dir_all(&out).unwrap();
    let mut all = vec![json!({"scenario": "Baseline", "summary": "Success"})];
    all.extend_from_slice(outcomes);
    std::fs::write(
        out.join("outcomes.json"),
        json!({"outcomes": all}).to_string(),
    )
    .unwrap();
    out
}

/// Runs the verdict on first passes (one per package), an optional rerun of their survivors and
/// these equivalents, with `extra` arguments; its exit code and output.
fn judge(
    first_passes: &[&[Value]],
    rerun: Option<&[Value]>,
    equivalents: &str,
    extra: &[&str],
) -> (i32, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/cycles.rs"), SOURCE).unwrap();
    let listed = dir.path().join("equivalent.txt");
    std::fs::write(&listed, equivalents).unwrap();
    let runs = first_passes
        .iter()
        .enumerate()
        .map(|(n, pass)| write_run(dir.path(), &format!("own-{n}"), pass));
    let rerun = rerun.map(|rerun| write_run(dir.path(), "workspace", rerun));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("ci/mutants_verdict.py");
    let run = Command::new("python3")
        .arg(script)
        .arg(&listed)
        .args(runs)
        .args(rerun.iter().flat_map(|rerun| [Path::new("--rerun"), rerun]))
        .arg("--root")
        .arg(dir.path())
        .args(extra)
        .output()
        .expect("python3 runs");
    let text =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    (run.status.code().expect("an exit code"), text)
}

/// The verdict of one pass.
fn verdict(outcomes: &[Value], equivalents: &str) -> (i32, String) {
    judge(&[outcomes], None, equivalents, &[])
}

const SECOND_PLUS: &str = "replace + with * in open_cycles";

#[test]
fn every_caught_or_unviable_run_passes_with_its_counts() {
    let (code, text) = verdict(
        &[
            outcome(mutant(2, 8, SECOND_PLUS), "CaughtMutant"),
            outcome(mutant(2, 15, SECOND_PLUS), "Unviable"),
        ],
        "",
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("mutants: 2  caught: 1  unviable: 1  equivalent: 0  missed: 0  timeouts: 0"),
        "{text}"
    );
}

#[test]
fn a_missed_mutant_not_listed_fails_and_is_named_with_its_line() {
    let (code, text) = verdict(&[outcome(mutant(2, 15, SECOND_PLUS), "MissedMutant")], "");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("missed: 1"), "{text}");
    assert!(
        text.contains("MissedMutant: src/cycles.rs:2:15: replace + with * in open_cycles (not listed as equivalent)"),
        "{text}"
    );
}

#[test]
fn a_timeout_fails_even_when_its_mutant_is_listed() {
    let listed = format!("src/cycles.rs: {SECOND_PLUS}  # reason\n");
    let (code, text) = verdict(&[outcome(mutant(2, 15, SECOND_PLUS), "Timeout")], &listed);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("timeouts: 1"), "{text}");
    assert!(text.contains("Timeout: src/cycles.rs:2:15:"), "{text}");
}

#[test]
fn an_entry_without_code_excuses_every_mutant_of_its_description() {
    let listed = format!("# a comment\n\nsrc/cycles.rs: {SECOND_PLUS}  # reason\n");
    let (code, text) = verdict(
        &[
            outcome(mutant(2, 8, SECOND_PLUS), "MissedMutant"),
            outcome(mutant(2, 15, SECOND_PLUS), "MissedMutant"),
        ],
        &listed,
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("equivalent: 2  missed: 0"), "{text}");
}

#[test]
fn an_entry_pinned_to_code_excuses_only_the_mutant_under_it() {
    // `i + 1` covers column 15 (the second `+`) and not column 8 (the first).
    let listed = format!("src/cycles.rs: {SECOND_PLUS} @ `i + 1`  # reason\n");
    let under = verdict(
        &[outcome(mutant(2, 15, SECOND_PLUS), "MissedMutant")],
        &listed,
    );
    assert_eq!(under.0, 0, "{}", under.1);
    assert!(under.1.contains("equivalent: 1  missed: 0"), "{}", under.1);

    let (code, text) = verdict(
        &[outcome(mutant(2, 8, SECOND_PLUS), "MissedMutant")],
        &listed,
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(
            "listed as equivalent at `i + 1`, but the mutated line reads `(o + 1, i + 1)`"
        ),
        "{text}"
    );
}

#[test]
fn an_entry_without_a_reason_is_refused_with_its_line() {
    let listed = format!("# header\nsrc/cycles.rs: {SECOND_PLUS}\n");
    let (code, text) = verdict(
        &[outcome(mutant(2, 15, SECOND_PLUS), "MissedMutant")],
        &listed,
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("equivalent.txt:2: an equivalent mutant needs a reason"),
        "{text}"
    );
}

#[test]
fn a_survivor_of_the_first_pass_caught_by_the_rerun_counts_as_caught() {
    let first = [
        outcome(mutant(2, 8, SECOND_PLUS), "MissedMutant"),
        outcome(mutant(2, 15, SECOND_PLUS), "MissedMutant"),
    ];
    let rerun = [
        outcome(mutant(2, 8, SECOND_PLUS), "CaughtMutant"),
        outcome(mutant(2, 15, SECOND_PLUS), "MissedMutant"),
    ];
    let (code, text) = judge(&[&first], Some(&rerun), "", &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("mutants: 2  caught: 1  unviable: 0  equivalent: 0  missed: 1"),
        "{text}"
    );
    assert!(text.contains("MissedMutant: src/cycles.rs:2:15:"), "{text}");
    assert!(!text.contains("src/cycles.rs:2:8:"), "{text}");
}

#[test]
fn the_survivors_regex_names_each_unexcused_survivor_by_its_line_and_column() {
    let listed = format!("src/cycles.rs: {SECOND_PLUS} @ `i + 1`  # reason\n");
    let first = [
        outcome(mutant(2, 8, SECOND_PLUS), "MissedMutant"),
        outcome(mutant(2, 15, SECOND_PLUS), "MissedMutant"),
        outcome(
            mutant(1, 4, "replace open_cycles -> (usize, usize) with (0, 0)"),
            "CaughtMutant",
        ),
    ];
    let (code, text) = judge(&[&first], None, &listed, &["--survivors-regex"]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        text.trim(),
        r"(?:^src/cycles\.rs:(?:2:8:)? replace \+ with \* in open_cycles$)",
        "only the survivor the list does not excuse"
    );
    let (_, none) = judge(&[&first[2..]], None, "", &["--survivors-regex"]);
    assert_eq!(none, "", "no survivor, no regex");
}

#[test]
fn the_first_passes_of_two_packages_are_judged_together() {
    let root = [outcome(mutant(2, 8, SECOND_PLUS), "CaughtMutant")];
    let oracle = [
        outcome(mutant(2, 15, SECOND_PLUS), "MissedMutant"),
        outcome(
            mutant(1, 4, "replace open_cycles -> (usize, usize) with (0, 0)"),
            "Unviable",
        ),
    ];
    let (code, text) = judge(&[&root, &oracle], None, "", &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("mutants: 3  caught: 1  unviable: 1  equivalent: 0  missed: 1"),
        "{text}"
    );
    assert!(text.contains("MissedMutant: src/cycles.rs:2:15:"), "{text}");
    let (_, regex) = judge(&[&root, &oracle], None, "", &["--survivors-regex"]);
    assert_eq!(
        regex.trim(),
        r"(?:^src/cycles\.rs:(?:2:15:)? replace \+ with \* in open_cycles$)",
        "the second package's survivor goes to the rerun"
    );
}
