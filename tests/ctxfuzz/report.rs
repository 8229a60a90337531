//! `ctxfuzz report`: its three outputs from a planted nightly run (a run record, a libFuzzer log,
//! a conversion record, a case file of the gh-11 brick for variant `none`, a peer matrix), and
//! the HTML page as a person sees it, rendered by headless Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::ctxfuzz;

use serde_json::{Value, json};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const LOG: &str = "\
INFO: -fork=2: fuzzing in separate process(s)
#2048: cov: 410 ft: 900 corp: 50 exec/s: 1024 oom/timeout/crash: 0/0/1 time: 2s job: 1 dft_time: 0
#9000: cov: 455 ft: 1000 corp: 61 exec/s: 1500 oom/timeout/crash: 0/0/4 time: 6s job: 2 dft_time: 0
#30000: cov: 470 ft: 1100 corp: 66 exec/s: 1875 oom/timeout/crash: 0/0/7 time: 16s job: 3 dft_time: 0
INFO: exiting: 0 time: 20s
";

/// A nightly output directory: `runs/sweep` (run of variant `none`, 7 artifacts behind one
/// finding) and `findings/` with that finding's case file; `peers` adds a peer matrix.
fn planted(dir: &Path, with_finding: bool, peers: bool) -> PathBuf {
    let run = dir.join("runs/sweep");
    write(
        &run.join("run.json"),
        r#"{"target": "sweep", "variant": "none", "seconds": 20, "sanitizer": "address",
            "asan_options": "detect_stack_use_after_return=0:malloc_context_size=0"}"#,
    );
    write(&run.join("fuzz.log"), LOG);
    let case_path = dir.join("findings/sweep-none-planted.json");
    let groups = if with_finding {
        let mut case: Value = serde_json::from_str(
            &std::fs::read_to_string("corpus/sweep/gh11-custom.json").unwrap(),
        )
        .unwrap();
        let none = case["verdicts"]["none"].clone();
        case["verdicts"] = json!({ "none": none });
        case["replay"] = json!(format!("ctxfuzz replay {}", case_path.display()));
        write(&case_path, &serde_json::to_string_pretty(&case).unwrap());
        json!([{ "case": case_path, "target": "sweep", "variant": "none",
                 "invariant": "no-duplicate-tool-use-id", "cause": "system under test",
                 "shape": "", "artifacts": 7 }])
    } else {
        std::fs::create_dir_all(dir.join("findings")).unwrap();
        json!([])
    };
    write(
        &run.join("conversion.json"),
        &json!({ "groups": groups, "not_reproduced": [] }).to_string(),
    );
    if peers {
        write(
            &dir.join("peers.json"),
            &json!([{ "peer": "pi-sweep", "package": "@example/pi", "contract": "strict",
                      "execs": 5000, "charged": { "wire-valid": 3 }, "unpreventable": {},
                      "skipped": 2 }])
            .to_string(),
        );
    }
    dir.to_path_buf()
}

/// Writes the three outputs of a report of `dir` and returns (markdown, html path, json).
fn report(dir: &Path) -> (String, PathBuf, Value) {
    let out = dir.join("out");
    let (html, md, js) = (
        out.join("report.html"),
        out.join("report.md"),
        out.join("report.json"),
    );
    let output = ctxfuzz(&[
        "report",
        dir.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
        "--json",
        js.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json = serde_json::from_str(&std::fs::read_to_string(&js).unwrap()).unwrap();
    (std::fs::read_to_string(&md).unwrap(), html, json)
}

#[test]
fn markdown_lists_the_finding_with_its_count_and_replay_command_and_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (markdown, _, _) = report(&planted(dir.path(), true, true));
    let case = dir.path().join("findings/sweep-none-planted.json");
    let row = format!(
        "| sweep | none | no-duplicate-tool-use-id | system under test | 7 | `ctxfuzz replay {}` |",
        case.display()
    );
    assert!(markdown.contains(&row), "{markdown}");
    assert!(markdown.contains("**1 distinct finding(s)**"), "{markdown}");
    // The run: last status line's executions, rate, coverage, corpus.
    assert!(
        markdown.contains(
            "| sweep | none | address (`detect_stack_use_after_return=0:malloc_context_size=0`) \
             | 20 | 30000 | 1875 | 470 | 66 | 0 | 1 |"
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains("| pi-sweep | @example/pi | strict | 5000 | wire-valid: 3  | none | 2 |"),
        "{markdown}"
    );
}

#[test]
fn json_holds_the_same_finding_run_samples_and_peers() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, json) = report(&planted(dir.path(), true, true));
    let finding = &json["findings"][0];
    assert_eq!(finding["variant"], "none");
    assert_eq!(finding["invariant"], "no-duplicate-tool-use-id");
    assert_eq!(finding["cause"], "system under test");
    assert_eq!(finding["count"], 7);
    let kinds: Vec<&str> = finding["diff"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"insert") || kinds.contains(&"delete"));
    assert_eq!(
        json["runs"][0]["stats"]["samples"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(json["runs"][0]["stats"]["samples"][2]["coverage"], 470);
    assert_eq!(json["peers"][0]["charged"]["wire-valid"], 3);
}

#[test]
fn without_a_case_file_every_output_says_there_is_no_finding() {
    let dir = tempfile::tempdir().unwrap();
    let (markdown, html, json) = report(&planted(dir.path(), false, false));
    assert!(markdown.contains("**No findings**"), "{markdown}");
    assert!(!markdown.contains("### Peers"));
    assert_eq!(json["findings"], json!([]));
    assert!(
        std::fs::read_to_string(html)
            .unwrap()
            .contains("id=\"no-findings\"")
    );
}

/// A run record written before the build was recorded reads as before: no sanitizer shown.
#[test]
fn a_run_record_without_its_build_reads_with_none_shown() {
    let dir = tempfile::tempdir().unwrap();
    let run = planted(dir.path(), false, false).join("runs/sweep");
    write(
        &run.join("run.json"),
        r#"{"target": "sweep", "variant": "none", "seconds": 20}"#,
    );
    let (markdown, _, json) = report(dir.path());
    assert!(
        markdown.contains("| sweep | none | - | 20 | 30000 |"),
        "{markdown}"
    );
    assert_eq!(json["runs"][0]["sanitizer"], Value::Null);
}

#[test]
fn a_broken_run_record_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("runs/sweep/run.json"), "{\"target\": 3}");
    let output = ctxfuzz(&["report", dir.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The position is said once, in front, as editors read it.
    assert!(
        stderr.contains(
            "runs/sweep/run.json:1:12: not a run record: invalid type: integer `3`, expected a string\n"
        ),
        "{stderr}"
    );
}

/// The DOM headless Chromium builds from the page (installed by ci/test.sh).
fn rendered_dom(html: &Path) -> String {
    let output = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
            &format!("file://{}", html.display()),
        ])
        .output()
        .expect("chromium (ci/test.sh installs it)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_page_in_a_browser_shows_the_finding_its_diff_and_the_plots() {
    let dir = tempfile::tempdir().unwrap();
    let (_, html, _) = report(&planted(dir.path(), true, false));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(no_fetch(&page));
    let dom = rendered_dom(&html);
    let table = between(&dom, "<table id=\"findings-table\">", "</table>");
    assert!(
        table.contains("<td>sweep</td><td>none</td>")
            && table.contains("no-duplicate-tool-use-id</a></td><td>system under test</td><td class=\"number\">7</td>"),
        "{table}"
    );
    let case = between(&dom, "<section class=\"case\" id=\"case-1\">", "</section>");
    assert!(case.contains("<table class=\"diff\">"), "{case}");
    assert!(
        case.contains("<tr class=\"insert\">") || case.contains("<tr class=\"delete\">"),
        "{case}"
    );
    // Two plots for the run, each an SVG with a drawn line through the three samples.
    let plots = between(&dom, "<div class=\"plots\" id=\"plots-sweep\">", "</div>");
    assert_eq!(plots.matches("<svg").count(), 2, "{plots}");
    // The data line is drawn in blue; the axes and ticks are black polylines of two points.
    let lines: Vec<&str> = plots
        .split("<polyline")
        .skip(1)
        .filter(|l| l.contains("stroke=\"#0000FF\""))
        .collect();
    assert_eq!(lines.len(), 2, "{plots}");
    for line in lines {
        let points = between(line, "points=\"", "\"")
            .trim_start_matches("points=\"")
            .trim_end_matches('"');
        assert_eq!(points.split_whitespace().count(), 3, "{line}");
    }
}

/// The page fetches nothing: links only to its own anchors, no `src=`, no `<link>`.
fn no_fetch(page: &str) -> bool {
    !page.contains(" src=") && !page.contains("<link")
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in {text}"));
    let rest = &text[from..];
    let after = rest[start.len()..]
        .find(end)
        .map_or(rest.len(), |i| start.len() + i + end.len());
    &rest[..after]
}
