//! One name per concept: no public type name (`pub struct`, `enum`, `trait`, `type`) is defined
//! in two source files of the two packages (`src/`, `oracles/src/`) unless the allow list below says why
//! the two are the same concept. A type that names one thing here and another there makes every
//! reader ask which one a signature means.

use std::collections::BTreeMap;
use std::path::Path;

/// Names defined in more than one file on purpose, and why.
const ALLOWED: &[(&str, &str)] = &[
    (
        "Args",
        "one subcommand's command-line arguments, one per file of src/cli/ (clap's convention)",
    ),
    (
        "Error",
        "each package's one error enum, as arbitrary's `error.rs`: what can go wrong in that \
         package, which its callers branch on",
    ),
    (
        "Message",
        "a message of one representation: the sweep's, the compaction's and the twin's bound on the \
         JSON they read (the twin is a deliberate re-statement), pi's LLM message and the Anthropic \
         request's, each named inside its own module",
    ),
    (
        "Role",
        "a message's role as one model reads it: the compaction's facts, the format views, the \
         Anthropic request",
    ),
    (
        "Content",
        "a message's content in pi's LLM model and in the Anthropic request",
    ),
    (
        "Block",
        "a content block in pi's LLM model and in the Anthropic request",
    ),
    (
        "TrackerCall",
        "the compaction's tracker calls and the oracle's independent re-statement of them (a \
         deliberate twin: docs/decisions.md)",
    ),
];

/// Every type name defined in the code (test modules left out) of `dir`, with the files.
fn type_names(dir: &Path, root: &Path, names: &mut BTreeMap<String, Vec<String>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            type_names(&path, root, names);
            continue;
        }
        if !file.ends_with(".rs") || file == "tests.rs" {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        let code = source.split("#[cfg(test)]").next().unwrap();
        let shown = path.strip_prefix(root).unwrap().display().to_string();
        for name in defined_types(code) {
            let files = names.entry(name).or_default();
            if !files.contains(&shown) {
                files.push(shown.clone());
            }
        }
    }
}

/// The names after `pub struct`, `pub enum`, `pub trait` or `pub type` at the start of a line of
/// `code`: the public types (private ones, `pub(crate)` ones and associated types are a module's
/// own business), comments excluded.
fn defined_types(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in code.lines() {
        let mut words = line.split_whitespace();
        let (Some("pub"), Some(kind), Some(name)) = (words.next(), words.next(), words.next())
        else {
            continue;
        };
        if matches!(kind, "struct" | "enum" | "trait" | "type") {
            let name: String = name
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
    }
    names
}

#[test]
fn names_no_type_name_means_two_things_across_both_packages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names = BTreeMap::new();
    type_names(&root.join("src"), root, &mut names);
    type_names(&root.join("oracles/src"), root, &mut names);
    let allowed: BTreeMap<&str, &str> = ALLOWED.iter().copied().collect();
    let mut problems = Vec::new();
    for (name, files) in &names {
        if files.len() > 1 && !allowed.contains_key(name.as_str()) {
            problems.push(format!("`{name}` is defined in {}", files.join(", ")));
        }
    }
    for name in allowed.keys() {
        if names.get(*name).is_none_or(|files| files.len() < 2) {
            problems.push(format!(
                "`{name}` is on the allow list but no longer defined twice: remove it"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn names_the_scan_sees_every_kind_of_public_definition_and_nothing_else() {
    let code = "pub struct A {\n    pub enum B\npub trait C: D {}\npub type E<'a> = F;\n\
                pub(crate) struct G;\nstruct H;\n    type Err = I;\n// pub struct J\n/// pub enum K\n\
                pub fn struct_() {}";
    assert_eq!(defined_types(code), ["A", "B", "C", "E"]);
}
