//! Findings: a failing input, minimised for one broken invariant, kept once per
//! (target, invariant, cause, shape), written as a case file and printed with a diff.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ctxfuzz_oracles::invariants::{Cause, Judgement, Violation};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use super::minimize::{self, Budget, Cost};
use super::profile::Profile;
use super::supervisor::FaultKind;
use super::target::{Class, DynTarget, Explanation, NO_ANSWER};
use crate::transcript::case::CaseFile;

/// Which generated case a finding came from: `ctxfuzz fuzz --seed SEED --case CASE` regenerates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub seed: u64,
    pub case: u64,
}

/// What makes two failures the same finding within one target and variant.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FindingKey {
    pub invariant: &'static str,
    pub cause: Cause,
    pub shape: String,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub target: &'static str,
    pub variant: String,
    pub profile: Profile,
    pub key: FindingKey,
    pub class: Class,
    /// The violation as judged on the minimised input.
    pub violation: Violation,
    /// Every invariant the minimised input breaks (its verdict in the case file).
    pub verdict: Vec<String>,
    pub origin: Option<Origin>,
    /// Size of the input before and after minimisation (elements of a top-level array, else 1).
    pub original_size: usize,
    /// What the minimisation cost, and whether its budget cut it short.
    pub minimisation: Cost,
    pub input: Value,
}

/// The key of `violation` on (minimised) `input` for `target`. A fault's shape is [`NO_ANSWER`]
/// without asking the program again: the question would cost the fault's deadline once more,
/// and a program that answers it this time would give the finding a shape it never had.
pub fn key(target: &dyn DynTarget, input: &Value, violation: &Violation) -> FindingKey {
    FindingKey {
        invariant: violation.invariant.id,
        cause: violation.cause.clone(),
        shape: match FaultKind::of(violation) {
            Some(_) => NO_ANSWER.to_string(),
            None => target.shape(input),
        },
    }
}

/// Minimises `input` (which `target` judged `judgement`) for `violation`, within the target's
/// domain ([`DynTarget::in_domain`]): the same defect must still be shown ([`same_defect`]). The
/// finding's verdict is the judgement of the minimised input as it was adopted, so a system under
/// test is not asked again (an external program that hangs costs its whole deadline per question).
pub fn minimize(
    target: &dyn DynTarget,
    input: &Value,
    judgement: &Judgement,
    violation: &Violation,
    origin: Option<Origin>,
) -> Finding {
    let adopted = RefCell::new(None);
    let breaks_it = |candidate: &Value| {
        let judgement = target.judge_caught(candidate);
        let breaks = shows(&judgement, violation);
        if breaks {
            *adopted.borrow_mut() = Some(judgement);
        }
        breaks
    };
    let minimisation = minimize::minimize(
        input,
        |candidate| target.in_domain(candidate),
        breaks_it,
        Budget::default(),
    );
    let (small, minimisation) = (minimisation.input, minimisation.cost);
    let judgement = adopted
        .into_inner()
        .filter(|_| &small != input)
        .unwrap_or_else(|| judgement.clone());
    let judged = match &judgement {
        Judgement::Fail(violations) => violations
            .iter()
            .find(|v| same_defect(v, violation))
            .cloned(),
        _ => None,
    };
    Finding {
        target: target.name(),
        variant: target.variant(),
        profile: target.profile(),
        key: key(target, &small, violation),
        class: target.class(violation),
        violation: judged.unwrap_or_else(|| violation.clone()),
        verdict: judgement.verdict(),
        origin,
        original_size: size(input),
        minimisation,
        input: small,
    }
}

/// Whether `found` shows the defect `wanted` does: the same invariant, the same cause (charged,
/// or unpreventable for the same reason), and the same class of cause within the invariant where
/// the evidence names one (the provider rule broken, how a message was lost). Without the last,
/// a duplicated result minimised to a call without an id left unanswered: still
/// `repair-wire-valid`, but a defect a correct repairer shows too.
fn same_defect(found: &Violation, wanted: &Violation) -> bool {
    let class = |v: &Violation| {
        let evidence = evidence_json(v);
        ["rule", "kind"].map(|key| evidence.get(key).cloned())
    };
    found.invariant == wanted.invariant
        && found.cause == wanted.cause
        && class(found) == class(wanted)
}

/// A violation's evidence as JSON, keys sorted: how a finding (and a replay's mismatch) shows it.
pub fn evidence_json(violation: &Violation) -> Value {
    serde_json::to_value(&violation.evidence).expect("evidence serialises to JSON")
}

/// Whether `judgement` shows the defect `violation` does ([`same_defect`]).
pub fn shows(judgement: &Judgement, violation: &Violation) -> bool {
    matches!(judgement, Judgement::Fail(found) if found.iter().any(|v| same_defect(v, violation)))
}

fn size(input: &Value) -> usize {
    input.as_array().map_or(1, Vec::len)
}

impl Finding {
    /// `TARGET-VARIANT-INVARIANT-HASH.json`, with `-PROVIDER` before the hash when the profile
    /// names one: stable for the same minimised input, and apart for each provider it was judged
    /// for (one input can be a finding for two providers in one run).
    pub fn file_name(&self) -> String {
        let text = serde_json::to_string(&self.input).expect("a JSON value always serialises");
        let slug = |s: &str| -> String {
            s.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect()
        };
        let provider = self
            .profile
            .provider
            .map_or_else(String::new, |p| format!("{p}-"));
        format!(
            "{}-{}-{}-{provider}{:08x}.json",
            slug(self.target),
            slug(&self.variant),
            slug(self.key.invariant),
            super::bytes::fnv1a(text.as_bytes()) as u32
        )
    }

    /// The regression case this finding becomes, replayed by `ctxfuzz replay PATH`.
    pub fn case_file(&self, path: &Path) -> CaseFile {
        let why = format!("{}: {}", self.key.invariant, self.violation.summary);
        CaseFile {
            target: self.target.to_string(),
            why: why.lines().next().unwrap_or_default().to_string(),
            profile: self.profile.to_value(),
            input: self.input.clone(),
            verdicts: BTreeMap::from([(self.variant.clone(), self.verdict.clone())]),
            output: None,
            replay: Some(format!("ctxfuzz replay {}", path.display())),
        }
    }

    /// Writes the case file under `dir` (atomically) and returns its path.
    pub fn write(&self, dir: &Path) -> anyhow::Result<PathBuf> {
        let path = dir.join(self.file_name());
        self.case_file(&path).write(&path)?;
        Ok(path)
    }

    /// The two sides its diff shows ([`DynTarget::explain`]); none for a fault, whose evidence
    /// is what the program did: asked again, it may answer, and the diff would show an answer
    /// the finding never had (see [`key`]).
    pub fn explanation(&self, target: &dyn DynTarget) -> Option<Explanation> {
        match FaultKind::of(&self.violation) {
            Some(_) => None,
            None => target.explain(&self.input),
        }
    }

    /// What a person reads: the violation (and the provider whose body it was judged for, when
    /// the profile names one), where the case file is, the commands that replay and
    /// regenerate it, the minimised input, and the diff that explains it (for a fault, the
    /// evidence does).
    pub fn report(
        &self,
        target: &dyn DynTarget,
        path: Option<&Path>,
        regenerate: Option<&str>,
    ) -> String {
        let mut text = String::new();
        let judged_for = self
            .profile
            .provider
            .map_or_else(String::new, |p| format!(" for {p}"));
        let _ = writeln!(
            text,
            "finding: {} [{}] {} ({}){judged_for}",
            self.target, self.variant, self.key.invariant, self.violation.cause
        );
        let _ = writeln!(text, "  {}", self.violation.summary);
        let _ = writeln!(
            text,
            "  minimised from {} to {} element(s) ({}); evidence: {}",
            self.original_size,
            size(&self.input),
            self.minimisation,
            evidence_json(&self.violation)
        );
        if let Some(path) = path {
            let _ = writeln!(text, "  case file:  {}", path.display());
            let _ = writeln!(text, "  replay:     ctxfuzz replay {}", path.display());
        }
        if let Some(command) = regenerate {
            let _ = writeln!(text, "  regenerate: {command}");
        }
        let _ = writeln!(text, "  input:");
        indent(&mut text, &pretty(&self.input));
        match self.explanation(target) {
            Some(e) => {
                let _ = writeln!(text, "  diff:");
                indent(&mut text, &e.diff());
            }
            None if FaultKind::of(&self.violation).is_some() => {
                let _ = writeln!(
                    text,
                    "  output: {NO_ANSWER} (the evidence above is what the program did)"
                );
            }
            None => {
                let _ = writeln!(text, "  output:");
                indent(&mut text, &pretty(&target.output(&self.input)));
            }
        }
        text
    }
}

/// What an explanation's diff changes: its removed and added lines, without the lines around
/// them. Two findings of one invariant with the same change are one defect seen in two shapes.
pub fn change(explanation: &Explanation) -> String {
    TextDiff::from_lines(&explanation.expected, &explanation.actual)
        .iter_all_changes()
        .filter(|change| change.tag() != ChangeTag::Equal)
        .map(|change| format!("{}{}", change.tag(), change.value().trim_end()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("a JSON value always serialises")
}

/// Lines of an input, a diff or an output a report prints: a finding whose minimisation was cut
/// short may hold 10,000 messages (230,000 lines printed); its case file holds them all.
const SHOWN_LINES: usize = 200;

fn indent(text: &mut String, block: &str) {
    let mut lines = block.lines();
    for line in lines.by_ref().take(SHOWN_LINES) {
        let _ = writeln!(text, "    {line}");
    }
    let more = lines.count();
    if more > 0 {
        let _ = writeln!(text, "    ... {more} more line(s) not shown");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxfuzz_oracles::contracts::repair::{KEEPS_OTHER_MESSAGES, WIRE_VALID};
    use serde_json::json;

    fn violation(invariant: ctxfuzz_oracles::invariants::Invariant, evidence: Value) -> Violation {
        Violation::charged(invariant, String::new(), evidence)
    }

    #[test]
    fn a_report_shows_at_most_its_share_of_lines_and_counts_the_rest() {
        let block = |n: usize| (0..n).map(|i| format!("{i}\n")).collect::<String>();
        let mut all = String::new();
        indent(&mut all, &block(SHOWN_LINES));
        assert_eq!(all.lines().count(), SHOWN_LINES);
        assert!(
            all.ends_with(&format!("    {}\n", SHOWN_LINES - 1)),
            "{all}"
        );
        let mut cut = String::new();
        indent(&mut cut, &block(SHOWN_LINES + 3));
        assert_eq!(cut.lines().count(), SHOWN_LINES + 1);
        assert!(cut.ends_with("    ... 3 more line(s) not shown\n"), "{cut}");
    }

    #[test]
    fn the_same_defect_is_the_same_invariant_cause_and_rule_or_kind() {
        let duplicate = violation(
            WIRE_VALID,
            json!({"rule": "duplicate-result", "message": 3}),
        );
        let moved = violation(
            WIRE_VALID,
            json!({"rule": "duplicate-result", "message": 1}),
        );
        let missing = violation(WIRE_VALID, json!({"rule": "missing-result", "message": 3}));
        assert!(same_defect(&moved, &duplicate));
        assert!(!same_defect(&missing, &duplicate));
        let lost = violation(KEEPS_OTHER_MESSAGES, json!({"kind": "lost"}));
        let reordered = violation(KEEPS_OTHER_MESSAGES, json!({"kind": "reordered"}));
        assert!(!same_defect(&reordered, &lost));
        assert!(!same_defect(
            &lost,
            &violation(WIRE_VALID, json!({"kind": "lost"}))
        ));
        let unpreventable = Violation {
            cause: Cause::Unpreventable("the input repeats this call id among its calls"),
            ..duplicate.clone()
        };
        assert!(!same_defect(&unpreventable, &duplicate));
    }
}
