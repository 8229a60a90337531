//! A fuzz target: generates inputs, runs the system(s) under test on them, and asks the oracles
//! for a judgement. Each target has its own input type ([`Target::Input`]: a transcript, a
//! schedule, a scenario); the harness holds every target as a [`DynTarget`], whose inputs are
//! JSON documents, so the same minimiser, case files and replay serve every target. The JSON is
//! read into the input type at that edge, once per call, and a document that is not one is
//! judged "cannot judge" with the reason.
//!
//! The required methods are the target's logic; the provided ones have defaults that suit most
//! targets, and are overridden where a target knows better (how its findings are grouped, what
//! diff explains them, how libFuzzer bytes become an input).

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::str::FromStr;

use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::{Cause, Judgement, Violation};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::panics;
use super::profile::Profile;
use crate::error::Error;

/// The shape ([`Target::shape`]) of a finding whose program gave no answer: a fault of an external
/// program, whose shape is drawn without asking it again ([`super::findings::key`]).
pub const NO_ANSWER: &str = "no answer";

pub trait Target: Send + Sync {
    /// One case of this target, as a case file's `input` holds it.
    type Input: Serialize + DeserializeOwned;

    /// The configuration of the system under test an instance runs (a sweep rule, a compaction
    /// configuration, a guard wiring), read from its name (`--variant`, the key of a case file's
    /// `verdicts`) by the registry ([`super::targets`]) and written back as the same name.
    type Variant: FromStr<Err: Into<anyhow::Error>> + fmt::Display;

    /// What the system under test produced for one input, as a case file's `output` pins it.
    type Output: Serialize;

    /// The target for `variant` (`None`: the target's default) and the options of `profile` it
    /// reads (the others are ignored).
    fn build(variant: Option<Self::Variant>, profile: &Profile) -> anyhow::Result<Self>
    where
        Self: Sized;

    /// The target's name as given to `ctxfuzz fuzz --target`.
    fn name(&self) -> &'static str;

    /// The configuration this instance runs.
    fn variant(&self) -> Self::Variant;

    /// The configuration a case file records so replay rebuilds this exact target.
    fn profile(&self) -> Profile;

    /// One input from fuzz bytes (structure-aware).
    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Self::Input>;

    /// Runs the system(s) under test on `input` and judges the result.
    fn judge(&self, input: &Self::Input) -> Judgement;

    /// What the system under test produced for `input` (for diffs, and for case files that pin an
    /// exact output).
    fn output(&self, input: &Self::Input) -> Self::Output;

    /// Turns raw fuzz bytes (a libFuzzer input, or the in-process loop's seeded bytes) into an
    /// input. The default takes bytes that are this target's input as JSON literally, so the
    /// libFuzzer seed corpus can be derived from readable case files (see
    /// [`Target::seed_bytes`]), and hands every other byte string to [`Target::generate`].
    fn decode(&self, bytes: &[u8]) -> arbitrary::Result<Self::Input> {
        if matches!(bytes.first(), Some(b'[' | b'{'))
            && let Ok(input) = serde_json::from_slice(bytes)
        {
            return Ok(input);
        }
        self.generate(&mut Unstructured::new(bytes))
    }

    /// The fuzz bytes that [`Target::decode`] turns back into `input`: how a case file becomes a
    /// libFuzzer seed.
    fn seed_bytes(&self, input: &Self::Input) -> Vec<u8> {
        serde_json::to_vec(input).expect("an input always serialises")
    }

    /// A short description of the input's shape, so findings that break the same invariant on
    /// differently shaped inputs are kept apart and the same bug found a thousand times is kept
    /// once. The default groups every failure of one invariant together.
    fn shape(&self, _input: &Self::Input) -> String {
        String::new()
    }

    /// Whether `input` is one this target's generator could have written: the minimiser keeps
    /// to such inputs, so a case file never shows an input no real program sends (a call
    /// without its id, a cut request whose target is past its messages). Every input by default.
    fn in_domain(&self, _input: &Self::Input) -> bool {
        true
    }

    /// How a violation is reported: charged to the system under test (a finding that fails the
    /// run), in a section of its own that does not fail the run, or as unpreventable.
    fn class(&self, violation: &Violation) -> Class {
        match violation.cause {
            Cause::SystemUnderTest => Class::Charged,
            Cause::Unpreventable(_) => Class::Unpreventable,
        }
    }

    /// The two sides a finding is explained with, as text for a line diff: what a correct system
    /// would have produced and what this one did. `None` prints the output alone.
    fn explain(&self, _input: &Self::Input) -> Option<Explanation> {
        None
    }

    /// The generated cases this target could not hand to its system under test so far, by reason
    /// (a transcript a format cannot express): skipped and counted, never altered. Only the
    /// contract target skips.
    fn cannot_express(&self) -> BTreeMap<String, u64> {
        BTreeMap::new()
    }
}

/// A [`Target`] with its input as JSON: what the runner, the minimiser, findings, replay and the
/// command line hold (`&dyn DynTarget`). Implemented for every target.
pub trait DynTarget: Send + Sync {
    fn name(&self) -> &'static str;
    /// [`Target::variant`] by its name.
    fn variant(&self) -> String;
    fn profile(&self) -> Profile;
    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Value>;
    /// Judges `input`; a document that is not this target's input cannot be judged.
    fn judge(&self, input: &Value) -> Judgement;
    fn output(&self, input: &Value) -> Value;
    fn decode(&self, bytes: &[u8]) -> arbitrary::Result<Value>;
    fn seed_bytes(&self, input: &Value) -> Vec<u8>;
    fn shape(&self, input: &Value) -> String;
    /// [`Target::in_domain`]; a document that is not this target's input is in no domain.
    fn in_domain(&self, input: &Value) -> bool;
    fn class(&self, violation: &Violation) -> Class;
    fn explain(&self, input: &Value) -> Option<Explanation>;
    fn cannot_express(&self) -> BTreeMap<String, u64>;

    /// [`DynTarget::judge`] with panics caught: a panic is a `no-panic` violation charged to the
    /// system under test ([`panics::catch`]).
    fn judge_caught(&self, input: &Value) -> Judgement {
        panics::catch(|| self.judge(input))
    }

    /// One case of the fuzz loop: decodes `bytes` and judges the input in the target's own type,
    /// panics caught ([`panics::catch`]). The input comes back as JSON only when it failed and
    /// `wanted` asks for it (it is then minimised and written): a passing case, or a failure the
    /// run has stopped minimising, is never converted.
    fn fuzz_case(
        &self,
        bytes: &[u8],
        wanted: &dyn Fn(&Judgement) -> bool,
    ) -> arbitrary::Result<(Judgement, Option<Value>)>;

    /// One libFuzzer execution: decodes `bytes` and judges the input in the target's own type,
    /// a panic left to libFuzzer (it is the crash report).
    fn libfuzzer_case(&self, bytes: &[u8]) -> arbitrary::Result<LibfuzzerCase>;
}

/// What one libFuzzer execution found (see [`DynTarget::libfuzzer_case`]).
#[derive(Debug)]
pub struct LibfuzzerCase {
    pub judgement: Judgement,
    /// The input is one of the generators' rare large shapes ([`OUTSIZED_JSON_BYTES`]).
    pub outsized: bool,
}

/// An input whose JSON is longer than this is outsized: the generators' rare large shapes (a
/// transcript of 10,000 messages, a tool result of 64 KiB) are over it, 0.4 to 0.7% of the
/// in-process loop's cases in every target; the 99th percentile of the others is under 30 KiB
/// (docs/figures.md#outsized-inputs).
pub const OUTSIZED_JSON_BYTES: usize = 64 * 1024;

/// Whether `input`'s JSON is longer than [`OUTSIZED_JSON_BYTES`]: written to a counter that gives
/// up past the limit, so an outsized input costs no more to measure than an ordinary one.
fn is_outsized(input: &impl Serialize) -> bool {
    struct Budget(usize);
    impl io::Write for Budget {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 = (self.0.checked_sub(buf.len())).ok_or(io::ErrorKind::FileTooLarge)?;
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(Budget(OUTSIZED_JSON_BYTES), input).is_err()
}

/// `input` read as `T`'s input, or why it is not one.
fn typed<T: Target + ?Sized>(target: &T, input: &Value) -> Result<T::Input, Error> {
    T::Input::deserialize(input).map_err(|source| Error::NotAnInput {
        target: target.name(),
        source,
    })
}

/// An input or an output as a case file holds it.
fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).expect("an input or an output always serialises")
}

impl<T: Target> DynTarget for T {
    fn name(&self) -> &'static str {
        Target::name(self)
    }

    fn variant(&self) -> String {
        Target::variant(self).to_string()
    }

    fn profile(&self) -> Profile {
        Target::profile(self)
    }

    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
        Target::generate(self, u).map(|input| to_json(&input))
    }

    fn judge(&self, input: &Value) -> Judgement {
        match typed(self, input) {
            Ok(input) => Target::judge(self, &input),
            Err(reason) => Judgement::CannotJudge(reason.to_string()),
        }
    }

    fn output(&self, input: &Value) -> Value {
        match typed(self, input) {
            Ok(input) => to_json(&Target::output(self, &input)),
            Err(reason) => json!({ "error": reason.to_string() }),
        }
    }

    fn decode(&self, bytes: &[u8]) -> arbitrary::Result<Value> {
        Target::decode(self, bytes).map(|input| to_json(&input))
    }

    fn seed_bytes(&self, input: &Value) -> Vec<u8> {
        match typed(self, input) {
            Ok(input) => Target::seed_bytes(self, &input),
            Err(_) => serde_json::to_vec(input).expect("a JSON value always serialises"),
        }
    }

    fn shape(&self, input: &Value) -> String {
        typed(self, input).map_or_else(
            |_| "invalid".to_string(),
            |input| Target::shape(self, &input),
        )
    }

    fn in_domain(&self, input: &Value) -> bool {
        typed(self, input).is_ok_and(|input| Target::in_domain(self, &input))
    }

    fn class(&self, violation: &Violation) -> Class {
        Target::class(self, violation)
    }

    fn explain(&self, input: &Value) -> Option<Explanation> {
        Target::explain(self, &typed(self, input).ok()?)
    }

    fn cannot_express(&self) -> BTreeMap<String, u64> {
        Target::cannot_express(self)
    }

    fn fuzz_case(
        &self,
        bytes: &[u8],
        wanted: &dyn Fn(&Judgement) -> bool,
    ) -> arbitrary::Result<(Judgement, Option<Value>)> {
        let input = Target::decode(self, bytes)?;
        let judgement = panics::catch(|| Target::judge(self, &input));
        let keep = matches!(judgement, Judgement::Fail(_)) && wanted(&judgement);
        Ok((judgement, keep.then(|| to_json(&input))))
    }

    fn libfuzzer_case(&self, bytes: &[u8]) -> arbitrary::Result<LibfuzzerCase> {
        let input = Target::decode(self, bytes)?;
        Ok(LibfuzzerCase {
            judgement: Target::judge(self, &input),
            outsized: is_outsized(&input),
        })
    }
}

/// Where a violation is reported (see [`Target::class`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A finding against the system under test: `ctxfuzz fuzz` exits 1.
    Charged,
    /// A real difference worth showing in its own section that is not a defect of the system
    /// under test (for instance the documented over-sweep of the strict sweep rule).
    Informational,
    /// No system under test could have prevented it (the violation's cause says why).
    Unpreventable,
}

/// Two renderings a finding is explained with (see [`Target::explain`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    pub expected_label: String,
    pub expected: String,
    pub actual_label: String,
    pub actual: String,
}

impl Explanation {
    /// The unified diff of the two renderings (three lines of context), or, where they are the
    /// same (a program that answered its input unchanged), a line that says so instead of an
    /// empty diff.
    pub fn diff(&self) -> String {
        if self.expected == self.actual {
            return format!(
                "{}: no line differs from {}\n",
                self.actual_label, self.expected_label
            );
        }
        similar::TextDiff::from_lines(&self.expected, &self.actual)
            .unified_diff()
            .context_radius(3)
            .header(&self.expected_label, &self.actual_label)
            .to_string()
    }

    /// `value` as an explanation shows JSON: pretty-printed, every object's keys sorted (through a
    /// `Value`, as the explanations have always shown them), with a final newline.
    pub fn json_text(value: &impl Serialize) -> String {
        serde_json::to_string_pretty(&to_json(value)).expect("JSON") + "\n"
    }
}
