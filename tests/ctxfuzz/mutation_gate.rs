//! `ci/mutants.sh`, the mutation step of `.ci/run`, run for real (cargo-mutants on a scratch
//! crate in a scratch repository): it examines every commit of a submission, not only the last,
//! leaves out what the submission only moved, and refuses to pass when it cannot find the
//! submission's base.

use std::path::Path;
use std::process::{Command, Output};

use tempfile::TempDir;

const LANDED: &str = "pub fn size(n: i64) -> &'static str {
    if n < 0 {
        return \"negative\";
    }
    \"other\"
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes() {
        assert_eq!(super::size(-1), \"negative\");
        assert_eq!(super::size(5), \"other\");
    }
}
";

/// A scratch repository holding the mutation scripts and a one-function crate, with one commit
/// (what landed before the submission).
fn scratch() -> TempDir {
    scratch_with(LANDED)
}

/// [`scratch`], with `landed` as the crate's one file.
fn scratch_with(landed: &str) -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(root.join("ci")).unwrap();
    for script in [
        "mutants.sh",
        "lib.sh",
        "mutants_verdict.py",
        "mutants_diff.py",
    ] {
        std::fs::copy(repo.join("ci").join(script), root.join("ci").join(script)).unwrap();
    }
    std::fs::create_dir_all(root.join(".cargo")).unwrap();
    std::fs::write(
        root.join(".cargo/mutants.toml"),
        "examine_globs = [\"src/**/*.rs\"]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"scratch\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), landed).unwrap();
    std::fs::write(root.join(".gitignore"), "target/\nCargo.lock\n").unwrap();
    git(root, &["init", "-q"]);
    commit(root, "landed");
    dir
}

fn git(root: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn commit(root: &Path, message: &str) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", message]);
}

/// Replaces `from` by `to` in the crate's one file.
fn edit(root: &Path, from: &str, to: &str) {
    let path = root.join("src/lib.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from}");
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

fn mutants(root: &Path, args: &[&str]) -> Output {
    Command::new("bash")
        .arg("ci/mutants.sh")
        .args(args)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .output()
        .expect("bash runs")
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

#[test]
fn a_submission_whose_first_commit_adds_an_untested_branch_fails_until_it_is_tested() {
    let dir = scratch();
    let root = dir.path();
    // The submission: its first commit records the base and adds a branch no test reaches, the
    // next two change nothing the mutants see.
    let recorded = mutants(root, &["--record-base"]);
    assert!(recorded.status.success(), "{}", text(&recorded));
    edit(
        root,
        "    \"other\"\n}",
        "    if n > 100 {\n        return \"large\";\n    }\n    \"other\"\n}",
    );
    commit(root, "an untested branch");
    std::fs::write(root.join("README"), "scratch\n").unwrap();
    commit(root, "a readme");
    std::fs::write(root.join("README"), "scratch crate\n").unwrap();
    commit(root, "the readme again");

    let last_only = mutants(root, &["--in-diff", "HEAD~1"]);
    assert!(
        last_only.status.success() && text(&last_only).contains("mutants: 0"),
        "the last commit alone shows nothing: {}",
        text(&last_only)
    );

    let gate = mutants(root, &["--submission"]);
    let out = text(&gate);
    assert_eq!(gate.status.code(), Some(1), "{out}");
    assert!(out.contains("(3 commits)"), "{out}");
    assert!(
        out.contains("MissedMutant: src/lib.rs:5:") && out.contains("not listed as equivalent"),
        "{out}"
    );

    edit(
        root,
        "assert_eq!(super::size(5), \"other\");",
        "assert_eq!(super::size(5), \"other\");\n        assert_eq!(super::size(100), \"other\");\n        assert_eq!(super::size(101), \"large\");",
    );
    commit(root, "the branch tested");
    let gate = mutants(root, &["--submission"]);
    let out = text(&gate);
    assert!(gate.status.success(), "{out}");
    assert!(out.contains("missed: 0  timeouts: 0"), "{out}");
}

/// Code that landed with a branch no test reaches (a survivor of the backlog, examined where it
/// was written): moving it unchanged into a file of its own is not a change the gate examines
/// again; a line changed on the way is.
#[test]
fn a_function_moved_unchanged_is_not_examined_again_and_a_line_changed_in_it_is() {
    let label = "pub fn label(n: i64) -> &'static str {
    if n > 100 {
        return \"large\";
    }
    \"small\"
}
";
    let dir = scratch_with(&format!("{LANDED}\n{label}"));
    let root = dir.path();
    assert!(mutants(root, &["--record-base"]).status.success());
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        format!(
            "mod label;\npub use label::label;\n\n{}",
            lib.replace(&format!("\n{label}"), "")
        ),
    )
    .unwrap();
    std::fs::write(root.join("src/label.rs"), label).unwrap();
    commit(root, "label in its own file");

    let gate = mutants(root, &["--submission"]);
    let out = text(&gate);
    assert!(gate.status.success(), "{out}");
    assert!(
        out.contains("mutants: 6 moved line(s) not examined again"),
        "{out}"
    );
    assert!(!out.contains("MissedMutant"), "{out}");

    let path = root.join("src/label.rs");
    std::fs::write(&path, label.replace("n > 100", "n > 1000")).unwrap();
    commit(root, "a changed bound");
    let gate = mutants(root, &["--submission"]);
    let out = text(&gate);
    assert_eq!(gate.status.code(), Some(1), "{out}");
    assert!(out.contains("MissedMutant: src/label.rs:2:"), "{out}");
}

#[test]
fn a_base_that_cannot_be_found_fails_the_step() {
    let dir = scratch();
    let root = dir.path();
    let missing = mutants(root, &["--submission"]);
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    assert!(
        text(&missing).contains("ci/submission-base is missing"),
        "{}",
        text(&missing)
    );
    std::fs::write(
        root.join("ci/submission-base"),
        "0123456789abcdef0123456789abcdef01234567\n",
    )
    .unwrap();
    let unknown = mutants(root, &["--submission"]);
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown));
    assert!(
        text(&unknown).contains("is not a commit of this clone"),
        "{}",
        text(&unknown)
    );
    let first = mutants(root, &["--in-diff", "HEAD~1"]);
    assert_eq!(
        first.status.code(),
        Some(2),
        "a first commit has no HEAD~1: {}",
        text(&first)
    );
}

/// Every entry of `ci/mutants-equivalent.txt` names a mutant cargo-mutants finds in the tree as it
/// is: cargo-mutants' descriptions carry lifetimes and generics, so a renamed lifetime silently
/// turns an entry into one that excuses nothing (and its mutant into a missed one the next time
/// its line is in a submission).
#[test]
fn every_listed_equivalent_names_a_mutant_of_the_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = Command::new("cargo")
        .args(["mutants", "--workspace", "--list"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", text(&listed));
    let mutants: std::collections::BTreeSet<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(|line| {
            // FILE:LINE:COLUMN: DESCRIPTION, without the position.
            let mut parts = line.splitn(4, ':');
            let file = parts.next().unwrap_or_default();
            format!("{file}:{}", parts.nth(2).unwrap_or_default())
        })
        .collect();
    let equivalents = std::fs::read_to_string(root.join("ci/mutants-equivalent.txt")).unwrap();
    let stale: Vec<&str> = equivalents
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| line.split("  # ").next().unwrap())
        .map(|entry| entry.split(" @ `").next().unwrap())
        .filter(|entry| !mutants.contains(*entry))
        .collect();
    assert!(stale.is_empty(), "entries that name no mutant: {stale:#?}");
}
