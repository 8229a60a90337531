//! The invariant registry and `ctxfuzz explain`: every invariant a check can report is registered
//! once, stated on its group's docs page, and explained by the command; an unknown id is one line
//! naming the close ids, exit 2.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ctxfuzz::harness::invariants;
use ctxfuzz_oracles::invariants::Group;
use ctxfuzz_oracles::wire::WireRule;

use crate::common::{ctxfuzz, stderr, stdout};

/// Every id registered, with its statement (one statement per id).
fn registered() -> BTreeMap<&'static str, &'static str> {
    let mut ids = BTreeMap::new();
    for invariant in invariants::groups().flat_map(|group| group.invariants) {
        let before = ids.insert(invariant.id, invariant.statement);
        assert!(
            before.is_none_or(|statement| statement == invariant.statement),
            "two invariants share the id `{}`",
            invariant.id
        );
    }
    ids
}

/// The id of every `Invariant { id: "..", .. }` written in the code of `dir` (test code left out).
fn defined_in(dir: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" {
                defined_in(&path, found);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            let source = std::fs::read_to_string(&path).unwrap();
            let code = source.split("#[cfg(test)]").next().unwrap();
            found.extend(ids_of_literals(code));
        }
    }
}

fn ids_of_literals(code: &str) -> Vec<String> {
    code.split("Invariant {")
        .skip(1)
        .filter_map(|after| {
            let rest = after.trim_start().strip_prefix("id: \"")?;
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

#[test]
fn explain_every_invariant_the_code_defines_is_registered() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut defined = BTreeSet::new();
    defined_in(&root.join("src"), &mut defined);
    defined_in(&root.join("oracles/src"), &mut defined);
    let registered: BTreeSet<String> = registered().keys().map(|id| id.to_string()).collect();
    let unregistered: Vec<&String> = defined.difference(&registered).collect();
    assert!(
        unregistered.is_empty(),
        "invariants no group lists (add them to src/harness/invariants.rs or an `ALL`): {unregistered:?}"
    );
    assert_eq!(defined, registered);
}

#[test]
fn explain_the_scan_finds_an_invariant_literal() {
    let code = "pub const X: Invariant = Invariant {\n    id: \"planted-id\",\n    statement: \"s\",\n};\npub struct Invariant {\n    pub id: &'static str,\n}";
    assert_eq!(ids_of_literals(code), ["planted-id"]);
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The text of `page` (`docs/x.md` or `docs/x.md#anchor`): the whole file, or the section under
/// the heading with that anchor (up to the next heading of its level or above).
fn section(page: &str) -> Result<String, String> {
    let (file, wanted) = match page.split_once('#') {
        Some((file, wanted)) => (file, Some(wanted)),
        None => (page, None),
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{file}: {e}"))?;
    let Some(wanted) = wanted else {
        return Ok(text);
    };
    let mut level = None;
    let mut out = String::new();
    for line in text.lines() {
        let depth = line.chars().take_while(|&c| c == '#').count();
        let heading = depth > 0 && line[depth..].starts_with(' ');
        match level {
            None if heading && anchor(&line[depth..]) == wanted => level = Some(depth),
            Some(open) if heading && depth <= open => break,
            Some(_) => {
                out.push_str(line);
                out.push('\n');
            }
            None => {}
        }
    }
    level
        .map(|_| out)
        .ok_or_else(|| format!("{file} has no heading with the anchor #{wanted}"))
}

/// The generated table of `group` as its page holds it: from its marker line to the end line.
fn generated_block(group: &Group) -> String {
    format!(
        "{}\n{}{}\n",
        invariants::table_start(group),
        invariants::table(group),
        invariants::TABLE_END
    )
}

/// `text` with the block that starts with `start` replaced by `block` (None: no such block).
fn replace_block(text: &str, start: &str, block: &str) -> Option<String> {
    let from = text.find(start)?;
    let to = from + text[from..].find(invariants::TABLE_END)? + invariants::TABLE_END.len() + 1;
    Some(format!(
        "{}{block}{}",
        &text[..from],
        &text[to.min(text.len())..]
    ))
}

/// Each invariant is stated once, in code; its group's page shows the statements as
/// `invariants::table` renders them, in the section the registry names. `CTXFUZZ_BLESS=1`
/// rewrites the tables of pages that already carry the marker.
#[test]
fn explain_every_group_s_page_shows_its_statements_as_the_code_states_them() {
    let bless = std::env::var_os("CTXFUZZ_BLESS").is_some();
    let mut problems = Vec::new();
    for group in invariants::groups() {
        let block = generated_block(group);
        match section(group.page) {
            Err(problem) => problems.push(problem),
            Ok(text) if text.contains(&block) => {}
            Ok(_) => {
                let file = group.page.split('#').next().unwrap();
                let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
                let page = std::fs::read_to_string(&path).unwrap();
                match replace_block(&page, &invariants::table_start(group), &block) {
                    Some(blessed) if bless => std::fs::write(&path, blessed).unwrap(),
                    _ => problems.push(format!(
                        "{} does not show the statements of {} as the code states them \
                         (CTXFUZZ_BLESS=1 rewrites a table that has its marker); expected:\n{block}",
                        group.page, group.name
                    )),
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn explain_a_generated_table_is_replaced_from_its_marker_to_its_end() {
    let group = invariants::groups().next().unwrap();
    let start = invariants::table_start(group);
    let old = format!(
        "intro\n{start}\n| old |\n{}\nafter\n",
        invariants::TABLE_END
    );
    let new = replace_block(&old, &start, "NEW\n").unwrap();
    assert_eq!(new, "intro\nNEW\nafter\n");
    assert_eq!(replace_block("no marker", &start, "NEW\n"), None);
}

#[test]
fn explain_a_page_section_ends_at_the_next_heading_of_its_level() {
    let sweep = section("docs/sweep.md#invariants").unwrap();
    assert!(sweep.contains("`sweep-only-removes`"));
    let rules = section("docs/sweep.md#barrier-rules").unwrap();
    assert!(rules.contains("| `strict` (default) |"), "{rules}");
    assert!(!rules.contains("`sweep-only-removes`"), "{rules}");
    assert!(section("docs/sweep.md#no-such-heading").is_err());
}

#[test]
fn explain_an_id_prints_its_statement_group_and_page() {
    let output = ctxfuzz(&["explain", "no-orphan-result"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let statement = registered()["no-orphan-result"];
    assert_eq!(
        stdout(&output),
        format!(
            "no-orphan-result: {statement}\n  belongs to the provider boundary after pi's pipeline: see docs/oracle.md#the-model\n"
        )
    );
}

/// A provider rule's id, as a finding's summary names it, is explained too: what breaks it, each
/// contract format's provider error where it applies there, and the pages.
#[test]
fn explain_a_provider_rule_prints_what_breaks_it_and_each_format_s_error() {
    let output = ctxfuzz(&["explain", "empty-tool-calls"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "empty-tool-calls: an assistant message whose `tool_calls` is an empty list (OpenAI's \
         `empty_array`)\n  a provider rule: see docs/oracle.md#the-model (pi's request bodies), \
         docs/contracts.md#the-provider-rules-oraclessrcformatswirers (the contract formats)\n  \
         openai: `Invalid 'messages[i].tool_calls': empty array. Expected an array with minimum \
         length 1, but got an empty array instead.`\n"
    );
    let text = stdout(&ctxfuzz(&["explain", "duplicate-call-id"]));
    assert!(
        text.ends_with("\n  anthropic: `tool_use ids must be unique`\n"),
        "{text}"
    );
    let body_rule = stdout(&ctxfuzz(&["explain", "function-response-count-mismatch"]));
    assert_eq!(body_rule.lines().count(), 2, "{body_rule}");
}

#[test]
fn explain_an_invariant_of_two_groups_names_both() {
    let output = ctxfuzz(&["explain", "compaction-no-new-orphans"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("belongs to the compaction: see docs/compaction.md#invariants"));
    assert!(text.contains("belongs to the cut contract: see docs/contracts.md#"));
}

#[test]
fn explain_with_no_id_lists_every_invariant_by_group() {
    let output = ctxfuzz(&["explain"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let groups = invariants::groups().count();
    let listed = invariants::groups()
        .map(|g| g.invariants.len())
        .sum::<usize>();
    let rules = WireRule::all().count();
    assert_eq!(text.lines().count(), groups + listed + 1 + rules, "{text}");
    for (id, statement) in registered() {
        assert!(
            text.lines()
                .any(|line| line.trim_start().starts_with(id) && line.ends_with(statement)),
            "`{id}` is not listed with its statement:\n{text}"
        );
    }
    let (_, rule_lines) = text
        .split_once("\nthe provider rules (")
        .expect("the rules follow the invariants");
    for rule in WireRule::all() {
        assert!(
            rule_lines
                .lines()
                .any(|line| line.trim_start().starts_with(rule.id())
                    && line.ends_with(&rule.description())),
            "`{rule}` is not listed with its description:\n{text}"
        );
    }
    assert!(
        text.starts_with("the provider boundary after pi's pipeline (docs/oracle.md#the-model)\n")
    );
}

#[test]
fn explain_an_unknown_id_names_the_close_ones_and_exits_2() {
    let output = ctxfuzz(&["explain", "sweep-idempotnt"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        "ctxfuzz: error: unknown invariant or rule `sweep-idempotnt`: did you mean \
         `sweep-idempotent`? (`ctxfuzz explain` lists them all)\n"
    );
    let part = stderr(&ctxfuzz(&["explain", "orphan"]));
    assert!(
        part.contains(
            "did you mean `orphan-result`, `no-orphan-result`, `compaction-no-new-orphans`?"
        ),
        "{part}"
    );
    let rule = stderr(&ctxfuzz(&["explain", "missing-reslt"]));
    assert!(rule.contains("did you mean `missing-result`?"), "{rule}");
    let nothing_close = ctxfuzz(&["explain", "zzz"]);
    assert_eq!(nothing_close.status.code(), Some(2));
    assert_eq!(
        stderr(&nothing_close),
        "ctxfuzz: error: unknown invariant or rule `zzz` (`ctxfuzz explain` lists them all)\n"
    );
}
