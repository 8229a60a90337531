//! The shape of the house: layers import one way and no two modules import each other.
//!
//! Root package, top to bottom: `cli` -> `harness` (and the known-defect catalog `mutants`) ->
//! the systems under test (`sweep`, `compaction`, `guard`) and `generators` -> `transcript`
//! (the transcript model and io) and `error` (the package's error enum). The oracle package: `contracts` (for external programs) ->
//! `invariants` and `formats` (the transcript formats other programs speak) -> `pi` (pi's pipeline
//! and its request builder) and `wire` (the providers' rules) -> `json_text` (JSON text as
//! JavaScript reads and writes it) -> `js` (JavaScript's reading of a value) -> `js_value` (the
//! value, borrowed from the text), `js_string` and `error`; it never imports the root
//! package. Benchmarks and fuzz targets call library code, never the command line.
//!
//! The check reads every `use` line and every `crate::` path in code (comments are skipped),
//! resolves it to the module it names, and reports an import from a higher layer and every cycle
//! between modules that are not each other's ancestor (a parent re-exporting its child, and a child
//! reading its parent's re-exports, are one module's own namespace). A top-level module with no
//! layer is reported too, so a new one has to be placed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type ModulePath = Vec<String>;

/// The layers of the root package, highest first.
const ROOT_LAYERS: &[&[&str]] = &[
    &["cli"],
    &["harness", "mutants"],
    &["sweep", "compaction", "guard", "generators"],
    &["transcript", "error", "allocator"],
];

/// The layers of the oracle package, highest first.
const ORACLE_LAYERS: &[&[&str]] = &[
    &["contracts"],
    &["invariants", "formats"],
    &["pi", "wire"],
    &["json_text"],
    &["js"],
    &["js_value", "js_string", "error"],
];

#[test]
fn the_root_package_imports_one_way_without_circles() {
    let problems = check(&read_crate("src"), ROOT_LAYERS);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_oracle_package_imports_one_way_without_circles() {
    let problems = check(&read_crate("oracles/src"), ORACLE_LAYERS);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_oracle_package_never_imports_the_root_package() {
    let manifest = read("oracles/Cargo.toml");
    assert!(
        !manifest
            .lines()
            .any(|l| l.trim_start().starts_with("ctxfuzz ")),
        "oracles/Cargo.toml depends on the root package"
    );
    for (module, source) in read_crate("oracles/src") {
        for line in code_lines(&source) {
            assert!(
                !line.contains("ctxfuzz::"),
                "oracles module {} names the root package: {line}",
                module.join("::")
            );
        }
    }
}

#[test]
fn benchmarks_and_fuzz_targets_never_call_the_command_line() {
    for dir in ["benches", "fuzz/fuzz_targets", "fuzz/src"] {
        for (name, source) in read_dir_files(dir) {
            for line in code_lines(&source) {
                assert!(
                    !line.contains("ctxfuzz::cli"),
                    "{dir}/{name} imports the command line: {line}"
                );
            }
        }
    }
}

#[test]
fn a_planted_upward_import_is_reported() {
    let modules = planted(&[("transcript/case", "use crate::cli::io;\n"), ("cli/io", "")]);
    let problems = check(&modules, ROOT_LAYERS);
    assert_eq!(
        problems,
        ["transcript::case imports cli::io from a higher layer"]
    );
}

#[test]
fn a_planted_import_circle_is_reported() {
    let modules = planted(&[
        ("generators/pi", "use super::shapes::Kind;\n"),
        (
            "generators/shapes",
            "use crate::{\n    generators::{pi::TARGET, seeded},\n};\n",
        ),
    ]);
    let problems = check(&modules, ROOT_LAYERS);
    assert_eq!(
        problems,
        ["import circle: generators::pi -> generators::shapes -> generators::pi"]
    );
}

#[test]
fn a_planted_module_without_a_layer_is_reported() {
    let problems = check(&planted(&[("report/html", "")]), ROOT_LAYERS);
    assert_eq!(
        problems,
        ["top-level module `report` has no layer: add it to the layers in tests/ctxfuzz/layers.rs"]
    );
}

/// Where `serde_json::Value` may stand in a module's code (its tests aside), named or built with
/// `json!`: where files, case files, other programs' messages and the minimiser's inputs are read
/// or written, each entry a module and everything under it, with the reason. Everywhere else a transcript is the oracle's
/// borrowed `JsValue` or a typed value (docs/decisions.md: "`serde_json::Value` stands only at
/// the edges").
const VALUE_AT_THE_EDGES: &[(&str, &str)] = &[
    ("ctxfuzz::cli", "the command line reads and writes files"),
    (
        "ctxfuzz::transcript::io",
        "reads and writes transcript files",
    ),
    ("ctxfuzz::transcript::case", "case files"),
    (
        "ctxfuzz::harness::findings",
        "a finding as its case file holds it",
    ),
    ("ctxfuzz::harness::artifacts", "writes a finding's files"),
    ("ctxfuzz::harness::report", "the campaign's report file"),
    ("ctxfuzz::harness::replay", "reads case files"),
    ("ctxfuzz::harness::profile", "a case file's profile"),
    ("ctxfuzz::harness::minimize", "the minimiser"),
    (
        "ctxfuzz::harness::runner",
        "hands a failing input to the minimiser",
    ),
    (
        "ctxfuzz::harness::target",
        "the type-erased seam of case files, replay and the minimiser (`DynTarget`)",
    ),
    (
        "ctxfuzz::harness::pi_bridge",
        "the lines exchanged with the real pi in Node",
    ),
    (
        "ctxfuzz::harness::external",
        "the lines exchanged with an external program",
    ),
    (
        "ctxfuzz::harness::supervisor",
        "the lines exchanged with an external program",
    ),
    (
        "ctxfuzz::harness::targets::contract",
        "writes an external program's input, reads its answer",
    ),
    (
        "ctxfuzz::generators::session_file",
        "writes pi session files",
    ),
    (
        "ctxfuzz::guard::schedule",
        "a guard schedule as its case file holds it",
    ),
    (
        "ctxfuzz::guard::trace",
        "a guard trace as its case file holds it",
    ),
    ("ctxfuzz::mutants", "reads the golden vectors file"),
    (
        "ctxfuzz_oracles::json_text",
        "JSON text as JavaScript reads and writes it",
    ),
    (
        "ctxfuzz_oracles::js_value",
        "the conversion between `Value` and `JsValue`",
    ),
    (
        "ctxfuzz_oracles::js",
        "JavaScript's reading of either value (`Json`)",
    ),
    (
        "ctxfuzz_oracles::pi::vectors",
        "the vectors protocol: the lines exchanged with the real pi",
    ),
    (
        "ctxfuzz_oracles::pi::session_context",
        "a session's context as the vectors protocol writes it",
    ),
    (
        "ctxfuzz_oracles::wire::anthropic::request",
        "the request body as the vectors protocol writes it",
    ),
];

#[test]
fn serde_json_values_stand_only_at_the_edges() {
    let mut modules = BTreeMap::new();
    for (package, dir) in [("ctxfuzz", "src"), ("ctxfuzz_oracles", "oracles/src")] {
        for (module, source) in read_crate(dir) {
            modules.insert(format!("{package}::{}", module.join("::")), source);
        }
    }
    let problems = value_problems(&modules);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_planted_value_off_the_edges_is_reported_and_a_stale_entry_too() {
    let modules = BTreeMap::from([
        (
            "ctxfuzz::error".to_string(),
            "use serde_json::{Map, Value};\n".to_string(),
        ),
        (
            "ctxfuzz::cli::io".to_string(),
            "fn f() -> serde_json::Value { todo!() }\n".to_string(),
        ),
        (
            "ctxfuzz::sweep".to_string(),
            "#[cfg(test)]\npub(crate) mod fixtures;\nmod rules;\n".to_string(),
        ),
        (
            "ctxfuzz::sweep::fixtures".to_string(),
            "use serde_json::Value;\n".to_string(),
        ),
        (
            "ctxfuzz::sweep::rules".to_string(),
            "use serde_json::Value;\n".to_string(),
        ),
        (
            "ctxfuzz::guard::checks".to_string(),
            "fn f() -> Evidence { Evidence::new(serde_json::json!({})) }\n".to_string(),
        ),
        (
            "ctxfuzz::guard::shrink".to_string(),
            "fn f() {}\n#[cfg(test)]\nmod tests { use serde_json::Value; }\n".to_string(),
        ),
    ]);
    let problems = value_problems(&modules);
    assert!(problems.contains(&"ctxfuzz::error holds a `serde_json::Value` off the edges (tests/ctxfuzz/layers.rs, VALUE_AT_THE_EDGES)".to_string()), "{problems:?}");
    assert!(
        !problems.iter().any(|p| p.starts_with("ctxfuzz::cli::io")
            || p.starts_with("ctxfuzz::guard::shrink")
            || p.starts_with("ctxfuzz::sweep::fixtures")),
        "{problems:?}"
    );
    // A module declared for every build is no test code, whatever sits next to it.
    assert!(problems.contains(&"ctxfuzz::sweep::rules holds a `serde_json::Value` off the edges (tests/ctxfuzz/layers.rs, VALUE_AT_THE_EDGES)".to_string()), "{problems:?}");
    assert!(problems.contains(&"`ctxfuzz::mutants` is listed in VALUE_AT_THE_EDGES but holds no `serde_json::Value`: remove it".to_string()), "{problems:?}");
    // A `Value` built with `json!` is one too.
    assert!(problems.contains(&"ctxfuzz::guard::checks holds a `serde_json::Value` off the edges (tests/ctxfuzz/layers.rs, VALUE_AT_THE_EDGES)".to_string()), "{problems:?}");
}

/// Every module holding a `Value` outside both lists, then every entry of either list that
/// covers no such module.
fn value_problems(modules: &BTreeMap<String, String>) -> Vec<String> {
    let holders: BTreeSet<&String> = modules
        .iter()
        .filter(|(module, source)| !test_only(module, modules) && holds_value(source))
        .map(|(module, _)| module)
        .collect();
    let covers =
        |entry: &str, module: &str| module == entry || module.starts_with(&format!("{entry}::"));
    let mut problems = Vec::new();
    for module in &holders {
        let listed = VALUE_AT_THE_EDGES
            .iter()
            .any(|(entry, _)| covers(entry, module));
        if !listed {
            problems.push(format!(
                "{module} holds a `serde_json::Value` off the edges (tests/ctxfuzz/layers.rs, VALUE_AT_THE_EDGES)"
            ));
        }
    }
    for (entry, _) in VALUE_AT_THE_EDGES {
        if !holders.iter().any(|module| covers(entry, module)) {
            problems.push(format!(
                "`{entry}` is listed in VALUE_AT_THE_EDGES but holds no `serde_json::Value`: remove it"
            ));
        }
    }
    problems
}

/// Whether `module` is test code: a `tests` module, or one its parent declares under
/// `#[cfg(test)]` (the builders' shared fixtures).
fn test_only(module: &str, modules: &BTreeMap<String, String>) -> bool {
    let Some((parent, name)) = module.rsplit_once("::") else {
        return false;
    };
    let declared_for_tests = modules.get(parent).is_some_and(|source| {
        let mut lines = source.lines().map(str::trim);
        while let Some(line) = lines.next() {
            if line == "#[cfg(test)]"
                && let Some(next) = lines.next()
                && next
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub ")
                    == format!("mod {name};")
            {
                return true;
            }
        }
        false
    });
    name == "tests" || declared_for_tests
}

/// Whether a module's code before its tests names `serde_json::Value` (by path or by import) or
/// builds one with `json!`.
fn holds_value(source: &str) -> bool {
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    code_lines(code).any(|line| line.contains("serde_json::Value") || line.contains("json!("))
        || imports(code).iter().any(|path| {
            path.len() == 2 && path[0] == "serde_json" && ["Value", "json"].contains(&&*path[1])
        })
}

/// Every problem: modules without a layer, upward imports, then circles.
fn check(modules: &BTreeMap<ModulePath, String>, layers: &[&[&str]]) -> Vec<String> {
    let layer_of = |module: &ModulePath| {
        layers
            .iter()
            .position(|names| names.contains(&module[0].as_str()))
    };
    let mut problems = Vec::new();
    let top: BTreeSet<&String> = modules.keys().map(|m| &m[0]).collect();
    for name in top {
        if !layers.iter().any(|names| names.contains(&name.as_str())) {
            problems.push(format!(
                "top-level module `{name}` has no layer: add it to the layers in tests/ctxfuzz/layers.rs"
            ));
        }
    }
    let mut upward = BTreeSet::new();
    let mut edges: BTreeMap<&ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    for (module, source) in modules {
        for path in imports(source) {
            let Some(target) = resolve(module, &path, modules) else {
                continue;
            };
            if target.starts_with(module) || module.starts_with(&target) {
                continue;
            }
            if let (Some(from), Some(to)) = (layer_of(module), layer_of(&target))
                && to < from
            {
                upward.insert(format!(
                    "{} imports {} from a higher layer",
                    module.join("::"),
                    target.join("::")
                ));
            }
            edges.entry(module).or_default().insert(target);
        }
    }
    problems.extend(upward);
    problems.extend(circles(&edges));
    problems
}

/// One report per circle, named from its smallest module.
fn circles(edges: &BTreeMap<&ModulePath, BTreeSet<ModulePath>>) -> Vec<String> {
    let mut reported = BTreeSet::new();
    let mut problems = Vec::new();
    for &start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((module, trail)) = stack.pop() {
            for next in edges.get(&module).into_iter().flatten() {
                if next == start {
                    let mut circle = trail.clone();
                    let smallest = circle.iter().min().expect("a circle has a module").clone();
                    let at = circle.iter().position(|m| *m == smallest).unwrap();
                    circle.rotate_left(at);
                    if reported.insert(circle.clone()) {
                        circle.push(smallest);
                        let names: Vec<String> = circle.iter().map(|m| m.join("::")).collect();
                        problems.push(format!("import circle: {}", names.join(" -> ")));
                    }
                } else if seen.insert(next.clone()) {
                    let mut longer = trail.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    problems
}

/// The module an import path names inside this crate: the longest known module that prefixes it.
/// `None` for another crate.
fn resolve(
    from: &ModulePath,
    path: &[String],
    modules: &BTreeMap<ModulePath, String>,
) -> Option<ModulePath> {
    let mut absolute: ModulePath = match path.first()?.as_str() {
        "crate" => Vec::new(),
        "self" => from.clone(),
        "super" => from.clone(),
        _ => {
            let mut child = from.clone();
            child.push(path[0].clone());
            if !modules.contains_key(&child) {
                return None;
            }
            from.clone()
        }
    };
    let mut rest = path;
    if matches!(path[0].as_str(), "crate" | "self") {
        rest = &path[1..];
    }
    while rest.first().is_some_and(|s| s == "super") {
        absolute.pop();
        rest = &rest[1..];
    }
    absolute.extend(rest.iter().cloned());
    while !absolute.is_empty() && !modules.contains_key(&absolute) {
        absolute.pop();
    }
    (!absolute.is_empty()).then_some(absolute)
}

/// The paths a source file imports: every `use` declaration (braces expanded) and every
/// `crate::`/`super::` path written in code.
fn imports(source: &str) -> Vec<Vec<String>> {
    let code: Vec<&str> = code_lines(source).collect();
    let mut paths = Vec::new();
    let mut declaration: Option<String> = None;
    for line in &code {
        let trimmed = line.trim_start();
        let body = ["pub use ", "pub(crate) use ", "pub(super) use ", "use "]
            .iter()
            .find_map(|prefix| trimmed.strip_prefix(prefix));
        match (&mut declaration, body) {
            (Some(text), _) => text.push_str(trimmed),
            (None, Some(body)) => declaration = Some(body.to_string()),
            (None, None) => {
                paths.extend(inline_paths(trimmed));
                continue;
            }
        }
        if let Some(text) = declaration.take_if(|text| text.contains(';')) {
            let tree = text.split(';').next().unwrap_or_default();
            paths.extend(expand(tree).into_iter().map(|p| segments(&p)));
        }
    }
    paths
}

/// `crate::a::b` and `super::a` paths inside a line of code.
fn inline_paths(line: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for start in ["crate::", "super::"] {
        for (at, _) in line.match_indices(start) {
            let before = line[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = line[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push(segments(&path));
        }
    }
    paths
}

/// `a::{b::c, d as e, f::{self, g}}` -> `a::b::c`, `a::d`, `a::f`, `a::f::g`.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or_default().trim();
        let path = path.trim_end_matches("::*").trim_end_matches("::self");
        return vec![path.to_string()];
    };
    let prefix = tree[..open].trim().trim_end_matches("::");
    let close = tree.rfind('}').unwrap_or(tree.len());
    let inner = &tree[open + 1..close];
    let mut items = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[from..]);
    items
        .into_iter()
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .flat_map(expand)
        .map(|item| match (prefix.is_empty(), item.as_str()) {
            (true, _) => item,
            (false, "self" | "") => prefix.to_string(),
            (false, _) => format!("{prefix}::{item}"),
        })
        .collect()
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// The lines of a source file without comments (line comments, doc comments).
fn code_lines(source: &str) -> impl Iterator<Item = &str> {
    source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
}

/// Every module of a crate rooted at `dir` (relative to the package root), by its path.
fn read_crate(dir: &str) -> BTreeMap<ModulePath, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut modules = BTreeMap::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(&root).unwrap().with_extension("");
            let mut module: ModulePath = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            if matches!(module.as_slice(), [m] if m == "lib" || m == "main") {
                continue;
            }
            modules.insert(module, std::fs::read_to_string(&path).unwrap());
        }
    }
    modules
}

fn read_dir_files(dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    std::fs::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

fn read(file: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap()
}

fn planted(files: &[(&str, &str)]) -> BTreeMap<ModulePath, String> {
    files
        .iter()
        .map(|(path, source)| (segments(&path.replace('/', "::")), source.to_string()))
        .collect()
}
