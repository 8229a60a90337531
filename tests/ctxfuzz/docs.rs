//! The documentation stays a door and a map: README.md is at most 150 lines, every page under
//! `docs/` is reachable from it by relative links, every relative link in README.md and `docs/`
//! names a file that exists, and no tracked file cites a specification outside the repository
//! (the repository stands alone: docs/decisions.md).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

const README_MAX_LINES: usize = 150;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The link targets of a Markdown text, every `](target)`, as (path, `#fragment`), skipping links
/// to other sites and `mailto:`. The path is empty for an anchor of the same page.
fn link_targets(markdown: &str) -> Vec<(String, Option<String>)> {
    let mut links = Vec::new();
    let mut rest = markdown;
    while let Some(start) = rest.find("](") {
        rest = &rest[start + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        rest = &rest[end..];
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, fragment) = match target.split_once('#') {
            Some((path, fragment)) => (path, Some(fragment.to_string())),
            None => (target, None),
        };
        links.push((path.to_string(), fragment));
    }
    links
}

/// The relative link targets of a Markdown text, without their `#fragment`, skipping links to an
/// anchor of the same page.
fn relative_links(markdown: &str) -> Vec<String> {
    link_targets(markdown)
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| !path.is_empty())
        .collect()
}

/// The anchors of a Markdown page's headings, as GitHub makes them: lower case, letters, digits,
/// `-` and `_` kept, spaces turned into `-`, everything else dropped. Code blocks have none.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut anchors = BTreeSet::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            let heading = line.trim_start_matches('#').trim();
            let anchor: String = heading
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect();
            anchors.insert(anchor);
        }
    }
    anchors
}

/// `base/link` with `.` and `..` resolved, relative to the repository root.
fn resolve(base: &Path, link: &str) -> PathBuf {
    let mut resolved = PathBuf::new();
    for component in base.join(link).components() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved
}

/// The pages (`.md` files, relative to the root) reachable from `start` through relative links,
/// `start` included. `pages` maps each page to its text; links to other files are not followed.
fn reachable(start: &Path, pages: &BTreeMap<PathBuf, String>) -> BTreeSet<PathBuf> {
    let mut seen = BTreeSet::from([start.to_path_buf()]);
    let mut queue = vec![start.to_path_buf()];
    while let Some(page) = queue.pop() {
        let Some(text) = pages.get(&page) else {
            continue;
        };
        let dir = page.parent().unwrap_or(Path::new(""));
        for link in relative_links(text) {
            let target = resolve(dir, &link);
            if pages.contains_key(&target) && seen.insert(target.clone()) {
                queue.push(target);
            }
        }
    }
    seen
}

/// Every file under `docs/` (relative to the root), recursively.
fn docs_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![root().join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(
                    path.strip_prefix(root())
                        .expect("under the root")
                        .to_path_buf(),
                );
            }
        }
    }
    files.sort();
    files
}

/// README.md and every Markdown page under `docs/`, by path relative to the root.
fn pages() -> BTreeMap<PathBuf, String> {
    let mut paths = vec![PathBuf::from("README.md")];
    paths.extend(
        docs_files()
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    paths
        .into_iter()
        .map(|p| {
            let text = fs::read_to_string(root().join(&p))
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

#[test]
fn readme_is_at_most_150_lines() {
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, at most {README_MAX_LINES}: move depth to a page in docs/ \
         and link it"
    );
}

#[test]
fn every_docs_file_is_reachable_from_the_readme() {
    let pages = pages();
    let reached = reachable(Path::new("README.md"), &pages);
    // A non-Markdown file under docs/ counts when a reached page links to it.
    let linked: BTreeSet<PathBuf> = reached
        .iter()
        .flat_map(|page| {
            let dir = page.parent().unwrap_or(Path::new("")).to_path_buf();
            relative_links(&pages[page])
                .into_iter()
                .map(move |link| resolve(&dir, &link))
        })
        .collect();
    let orphans: Vec<String> = docs_files()
        .into_iter()
        .filter(|f| !reached.contains(f) && !linked.contains(f))
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        orphans.is_empty(),
        "not reachable from README.md by links (link them from README.md or a page it links): \
         {orphans:?}"
    );
}

#[test]
fn every_relative_link_names_an_existing_file() {
    let mut broken = BTreeSet::new();
    for (page, text) in pages() {
        let dir = page.parent().unwrap_or(Path::new("")).to_path_buf();
        for link in relative_links(&text) {
            if !root().join(resolve(&dir, &link)).exists() {
                broken.insert(format!("{}: {link}", page.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to files that do not exist: {broken:#?}"
    );
}

#[test]
fn every_anchor_names_a_heading_of_its_page() {
    let pages = pages();
    let mut broken = BTreeSet::new();
    for (page, text) in &pages {
        let dir = page.parent().unwrap_or(Path::new(""));
        for (path, fragment) in link_targets(text) {
            let Some(fragment) = fragment else { continue };
            let target = if path.is_empty() {
                page.clone()
            } else {
                resolve(dir, &path)
            };
            // Only pages are checked here; a missing page is the test above's.
            let Some(target_text) = pages.get(&target) else {
                continue;
            };
            if !anchors(target_text).contains(&fragment) {
                broken.insert(format!("{}: {path}#{fragment}", page.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to an anchor no heading makes: {broken:#?}"
    );
}

/// Whether `bytes` cite the outside specification by section: its name in capitals, a space, and
/// `§` or a section number.
fn cites_the_specification(bytes: &[u8]) -> bool {
    // Built from parts, so this file does not match itself.
    let word = ["SP", "EC "].concat();
    bytes.windows(word.len() + 2).any(|w| {
        w.starts_with(word.as_bytes())
            && (w[word.len()].is_ascii_digit() || w[word.len()..] == *"§".as_bytes())
    })
}

/// The repository's files, relative to the root: what `git ls-files` lists, or, in a copy without
/// the repository (cargo-mutants tests a copy of the tree), every file outside `target/`,
/// `node_modules/` and `.git/`.
fn tracked_files() -> Vec<String> {
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output();
    if let Some(output) = listed.ok().filter(|o| o.status.success()) {
        return output
            .stdout
            .split(|&b| b == 0)
            .filter(|name| !name.is_empty())
            .map(|name| String::from_utf8_lossy(name).into_owned())
            .collect();
    }
    let mut files = Vec::new();
    let mut dirs = vec![root()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            let name = path.file_name().unwrap_or_default();
            if path.is_dir() {
                if !["target", "node_modules", ".git"]
                    .iter()
                    .any(|skip| name == *skip)
                {
                    dirs.push(path);
                }
            } else {
                let relative = path.strip_prefix(root()).expect("under the root");
                files.push(relative.display().to_string());
            }
        }
    }
    files
}

#[test]
fn no_tracked_file_cites_the_outside_specification() {
    let citing: Vec<String> = tracked_files()
        .into_iter()
        // A tracked file deleted in the work tree cites nothing.
        .filter(|name| fs::read(root().join(name)).is_ok_and(|b| cites_the_specification(&b)))
        .collect();
    assert!(
        citing.is_empty(),
        "these files cite a specification section that is not in the repository; cite a page of \
         docs/ or state the rule: {citing:?}"
    );
}

#[test]
fn a_citation_is_recognised_by_section_sign_or_number() {
    let word = ["SP", "EC"].concat();
    assert!(cites_the_specification(
        format!("as {word} §4.1 says").as_bytes()
    ));
    assert!(cites_the_specification(format!("({word} 7.1)").as_bytes()));
    assert!(!cites_the_specification(
        format!("the {word} of the rule").as_bytes()
    ));
    assert!(!cites_the_specification(b"docs/sweep.md#barrier-rules"));
}

#[test]
fn links_are_read_and_resolved_as_a_reader_follows_them() {
    let text = "see [a](docs/a.md#part), [site](https://example.com/x.md), [here](#top), \
                [b](../b.md \"title\")";
    assert_eq!(relative_links(text), ["docs/a.md", "../b.md"]);
    assert_eq!(
        resolve(Path::new("docs"), "../src/x.rs"),
        PathBuf::from("src/x.rs")
    );
    assert_eq!(
        resolve(Path::new("docs"), "./y.md"),
        PathBuf::from("docs/y.md")
    );
    assert_eq!(
        link_targets(text)[0],
        ("docs/a.md".to_string(), Some("part".to_string()))
    );
    let page = "# Title\n## Before merge: what `.ci/run` does\n```sh\n# not a heading\n```\n";
    assert_eq!(
        anchors(page),
        BTreeSet::from(["title", "before-merge-what-cirun-does"].map(String::from))
    );
}

#[test]
fn a_page_no_link_reaches_is_not_reachable() {
    let pages: BTreeMap<PathBuf, String> = [
        ("README.md", "[one](docs/one.md)"),
        ("docs/one.md", "[two](two.md) and [back](../README.md)"),
        ("docs/two.md", "no links"),
        ("docs/lost.md", "[one](one.md)"),
    ]
    .into_iter()
    .map(|(p, t)| (PathBuf::from(p), t.to_string()))
    .collect();
    let reached = reachable(Path::new("README.md"), &pages);
    assert_eq!(
        reached,
        BTreeSet::from(["README.md", "docs/one.md", "docs/two.md"].map(PathBuf::from))
    );
}

/// The marker before the provider rules' table in docs/contracts.md; the table ends at
/// `invariants::TABLE_END`.
const RULES_START: &str = "<!-- provider rules and their sources: generated from the code -->";

/// `formats::wire::SOURCES` as docs/contracts.md shows it: a rule a row, a format a column.
fn rules_table() -> String {
    use ctxfuzz_oracles::formats::{Format, wire};
    let header = |format: Format| match format {
        Format::OpenAi => "OpenAI chat",
        Format::Anthropic => "Anthropic",
        Format::Gemini => "Gemini",
        Format::AiSdk => "AI SDK",
        Format::LangChain => "LangChain",
        Format::Pi => "pi",
    };
    let columns: Vec<&str> = wire::SOURCE_FORMATS.into_iter().map(header).collect();
    let mut table = format!(
        "| rule | {} |\n|---{}|\n",
        columns.join(" | "),
        "|---".repeat(5)
    );
    for (rule, texts) in wire::SOURCES {
        let cells: Vec<&str> = texts.iter().map(|t| t.unwrap_or("not applied")).collect();
        table.push_str(&format!("| `{rule}` | {} |\n", cells.join(" | ")));
    }
    table
}

/// The provider rules' error texts are written once, in `formats::wire::SOURCES` (which also
/// decides where a rule is applied); docs/contracts.md shows them as generated here
/// (`CTXFUZZ_BLESS=1` rewrites the table).
#[test]
fn the_provider_rules_table_is_the_code_s() {
    use ctxfuzz::harness::invariants::TABLE_END;
    let path = root().join("docs/contracts.md");
    let page = fs::read_to_string(&path).unwrap();
    let block = format!("{RULES_START}\n{}{TABLE_END}\n", rules_table());
    if page.contains(&block) {
        return;
    }
    let from = page
        .find(RULES_START)
        .expect("docs/contracts.md has the rules' marker");
    let to = from + page[from..].find(TABLE_END).unwrap() + TABLE_END.len() + 1;
    assert!(
        std::env::var_os("CTXFUZZ_BLESS").is_some(),
        "docs/contracts.md's provider rules differ from formats::wire::SOURCES \
         (CTXFUZZ_BLESS=1 rewrites them); expected:\n{block}"
    );
    fs::write(&path, format!("{}{block}{}", &page[..from], &page[to..])).unwrap();
}
