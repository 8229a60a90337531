//! Structural minimisation of a JSON input (delta debugging on the document, not on bytes).
//!
//! Passes, repeated until none makes progress or the budget is spent:
//! 1. array elements, outermost arrays first (messages, then content blocks), removed in chunks
//!    that halve down to single elements (ddmin);
//! 2. object fields, one at a time, except the ones a format or a request requires
//!    ([`KEPT_KEYS`], ids) and an object's last field;
//! 3. scalars simplified: every occurrence of an id (a string under a key ending in `id`/`Id`)
//!    renamed at once to a short name (`a`, `b`, ...), so a call and its result stay paired;
//!    long strings cut to the shortest prefix that still fails (roles, types and ids are left
//!    alone); integers lowered to the smallest that still fails, other numbers set to 0.
//!
//! A step is kept only if the result is in the caller's domain (`admits`: for a contract target,
//! a request the format's writer could have written, so a case file never shows an input no real
//! program sends) and `still_fails` holds for it (the caller decides what "the same" failure is).
//! The domain is enforced only when the input itself is in it: a hand-written case outside it is
//! still minimised.
//!
//! The budget counts steps (calls of `still_fails`) and wall time; a minimisation cut short by
//! either returns the smallest failing input found so far and says which ([`Cost::cut_short`]).
//! Nothing is built once the budget is spent, so a 10,000-message input costs its steps, not a
//! copy of the document per field.

use std::collections::BTreeSet;
use std::fmt;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::stop;

/// What one minimisation may spend: steps (calls of the predicate) and wall time. The time counts
/// the predicate's own: every call runs with the budget's end as its cut-off ([`stop::within`]),
/// so an external program that hangs is cut off there instead of costing its whole deadline per
/// step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub steps: usize,
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 20_000,
            time: Duration::from_secs(5),
        }
    }
}

/// Why a minimisation ended before no step made progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutShort {
    /// Its step budget was spent.
    Steps,
    /// Its time budget, or the caller's cut-off (the end of a run), passed.
    Time,
    /// A signal asked the run to stop.
    Stopped,
}

/// The result of a minimisation: the smallest failing input found, and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Minimised {
    pub input: Value,
    pub cost: Cost,
}

/// What a minimisation spent, and whether its budget cut it short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    pub steps: usize,
    pub elapsed: Duration,
    /// `None`: no step made progress any more (the input is as small as the passes make it).
    pub cut_short: Option<CutShort>,
}

impl fmt::Display for Cost {
    /// `minimised in N steps, S s`, or what cut it short and that the input is the best so far.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (steps, seconds) = (self.steps, self.elapsed.as_secs_f64());
        let why = match self.cut_short {
            None => return write!(f, "minimised in {steps} steps, {seconds:.1} s"),
            Some(CutShort::Steps) => "its step budget",
            Some(CutShort::Time) => "its time budget",
            Some(CutShort::Stopped) => "a stop request",
        };
        write!(
            f,
            "minimisation cut short by {why} after {steps} steps, {seconds:.1} s: \
             the smallest failing input found so far"
        )
    }
}

/// Strings at most this long are left alone: stop reasons and short texts are what a reader
/// needs to see.
const SHORT_STRING: usize = 12;

/// Fields never removed: what says what an object is (a message's `role`, a block's or a
/// LangChain message's `type`), the content every format requires of a message (`content`,
/// Gemini's `parts`), and a request's `messages` and `target`. Ids are never removed either
/// ([`is_id_key`]): a call and its result without them are a different defect (an id-less
/// call given an id-less synthetic result is charged to a correct repairer too).
const KEPT_KEYS: [&str; 6] = ["role", "type", "content", "parts", "messages", "target"];

/// Keys whose string values say what an object is: never shortened.
const KIND_KEYS: [&str; 2] = ["role", "type"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Index(usize),
    Key(String),
}

type Path = Vec<Step>;

/// Minimises `input` while `still_fails` holds, within `budget`, keeping to the inputs `admits`
/// takes (when `input` is one of them).
pub fn minimize(
    input: &Value,
    admits: impl Fn(&Value) -> bool,
    still_fails: impl Fn(&Value) -> bool,
    budget: Budget,
) -> Minimised {
    let started = Instant::now();
    let in_domain = admits(input);
    let mut run = Run {
        current: input.clone(),
        admits: |candidate: &Value| !in_domain || admits(candidate),
        still_fails,
        steps_left: budget.steps,
        deadline: started + budget.time,
        cut_short: None,
    };
    loop {
        let mut progress = run.shrink_arrays();
        progress |= run.remove_fields();
        progress |= run.rename_ids();
        progress |= run.simplify_scalars();
        if !progress || run.cut_short.is_some() {
            return Minimised {
                input: run.current,
                cost: Cost {
                    steps: budget.steps - run.steps_left,
                    elapsed: started.elapsed(),
                    cut_short: run.cut_short,
                },
            };
        }
    }
}

struct Run<A, F> {
    current: Value,
    admits: A,
    still_fails: F,
    steps_left: usize,
    deadline: Instant,
    cut_short: Option<CutShort>,
}

impl<A: Fn(&Value) -> bool, F: Fn(&Value) -> bool> Run<A, F> {
    /// Whether the budget is spent (and if so, records why).
    fn spent(&mut self) -> bool {
        if self.cut_short.is_none() {
            self.cut_short = if self.steps_left == 0 {
                Some(CutShort::Steps)
            } else if stop::requested().is_some() {
                Some(CutShort::Stopped)
            } else if Instant::now() >= self.deadline || stop::over() {
                Some(CutShort::Time)
            } else {
                None
            };
        }
        self.cut_short.is_some()
    }

    /// Adopts `candidate` if it is in the domain and still fails (and the budget allows asking).
    fn try_adopt(&mut self, candidate: Value) -> bool {
        if self.spent() || !(self.admits)(&candidate) {
            return false;
        }
        self.steps_left -= 1;
        if stop::within(self.deadline, || (self.still_fails)(&candidate)) {
            self.current = candidate;
            true
        } else {
            false
        }
    }

    /// Adopts a copy of the current input edited at `path` (nothing is built once the budget is
    /// spent, or when the path no longer exists).
    fn try_edit(&mut self, path: &[Step], edit: impl FnOnce(&mut Value)) -> bool {
        if self.spent() {
            return false;
        }
        let mut candidate = self.current.clone();
        match value_at(&mut candidate, path) {
            Some(value) => edit(value),
            None => return false,
        }
        self.try_adopt(candidate)
    }

    fn shrink_arrays(&mut self) -> bool {
        let mut progress = false;
        for path in paths(&self.current, |_, v| v.is_array()) {
            progress |= self.ddmin_array(&path);
        }
        progress
    }

    /// Removes chunks of the array at `path`, halving the chunk size down to one element.
    fn ddmin_array(&mut self, path: &[Step]) -> bool {
        let len = |run: &Self| {
            read_at(&run.current, path)
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        };
        let mut progress = false;
        let mut chunk = len(self).div_ceil(2).max(1);
        loop {
            let mut start = 0;
            while start < len(self) && !self.spent() {
                let end = (start + chunk).min(len(self));
                let removed = self.try_edit(path, |v| {
                    if let Some(items) = v.as_array_mut() {
                        items.drain(start..end);
                    }
                });
                if removed {
                    progress = true;
                } else {
                    start += chunk;
                }
            }
            if chunk == 1 || self.spent() {
                return progress;
            }
            chunk = chunk.div_ceil(2);
        }
    }

    fn remove_fields(&mut self) -> bool {
        let mut progress = false;
        for path in paths(&self.current, |_, v| {
            v.as_object().is_some_and(|m| m.len() > 1)
        }) {
            let keys: Vec<String> = match read_at(&self.current, &path) {
                Some(Value::Object(map)) => map.keys().filter(|k| removable(k)).cloned().collect(),
                _ => continue,
            };
            for key in keys {
                let fields = read_at(&self.current, &path).and_then(Value::as_object);
                if fields.is_none_or(|map| map.len() < 2) {
                    break;
                }
                progress |= self.try_edit(&path, |v| {
                    if let Some(map) = v.as_object_mut() {
                        map.remove(&key);
                    }
                });
            }
        }
        progress
    }

    /// Renames each id (every occurrence at once) to the shortest name not already in use.
    fn rename_ids(&mut self) -> bool {
        let mut ids = Vec::new();
        collect_ids(&self.current, &mut ids);
        let mut used: BTreeSet<String> = ids.iter().cloned().collect();
        let mut progress = false;
        for id in ids {
            if self.spent() {
                break;
            }
            // Names come shortest first, so the search ends at the first name as long as the id.
            let mut shorter = short_names().take_while(|n| n.len() < id.len());
            let Some(name) = shorter.find(|n| !used.contains(n)) else {
                continue;
            };
            let mut candidate = self.current.clone();
            replace_string(&mut candidate, &id, &name);
            if self.try_adopt(candidate) {
                used.insert(name);
                progress = true;
            }
        }
        progress
    }

    fn simplify_scalars(&mut self) -> bool {
        let mut progress = false;
        for path in paths(&self.current, |key, v| match v {
            Value::String(s) => {
                s.chars().count() > SHORT_STRING
                    && key.is_none_or(|k| !KIND_KEYS.contains(&k) && !is_id_key(k))
            }
            Value::Number(n) => n.as_f64() != Some(0.0),
            _ => false,
        }) {
            progress |= self.simplify_scalar(&path);
        }
        progress
    }

    fn simplify_scalar(&mut self, path: &[Step]) -> bool {
        match read_at(&self.current, path).cloned() {
            Some(Value::Number(n)) => match n.as_u64() {
                Some(n) => self.lowest(path, n as usize, Value::from),
                None => self.try_edit(path, |v| *v = Value::from(0)),
            },
            Some(Value::String(text)) => {
                let chars: Vec<char> = text.chars().collect();
                self.lowest(path, chars.len(), |len| {
                    Value::String(chars[..len].iter().collect())
                })
            }
            _ => false,
        }
    }

    /// Replaces the value at `path` (which is `make(high)`) by `make(n)` for the lowest `n` that
    /// still fails: 0 first, then a binary search between 0 and `high`.
    fn lowest(&mut self, path: &[Step], high: usize, make: impl Fn(usize) -> Value) -> bool {
        if self.try_edit(path, |v| *v = make(0)) {
            return true;
        }
        let (mut passes, mut fails) = (0, high);
        while fails - passes > 1 && !self.spent() {
            let middle = passes + (fails - passes) / 2;
            if self.try_edit(path, |v| *v = make(middle)) {
                fails = middle;
            } else {
                passes = middle;
            }
        }
        fails < high
    }
}

/// `a`..`z`, then `a1`.. : short, readable replacement ids.
fn short_names() -> impl Iterator<Item = String> {
    let letters = ('a'..='z').map(String::from);
    let numbered = (1..).flat_map(|n| ('a'..='z').map(move |c| format!("{c}{n}")));
    letters.chain(numbered)
}

fn is_id_key(key: &str) -> bool {
    key == "id" || key.ends_with("Id") || key.ends_with("_id")
}

/// Whether the minimiser may remove the field `key` (see [`KEPT_KEYS`]).
fn removable(key: &str) -> bool {
    !KEPT_KEYS.contains(&key) && !is_id_key(key)
}

/// Distinct string values under id keys, in first-seen order.
fn collect_ids(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| collect_ids(v, out)),
        Value::Object(map) => {
            for (key, v) in map {
                match v {
                    Value::String(s) if is_id_key(key) => {
                        if !out.contains(s) {
                            out.push(s.clone());
                        }
                    }
                    _ => collect_ids(v, out),
                }
            }
        }
        _ => {}
    }
}

/// Replaces every string value equal to `from` (keys are left alone).
fn replace_string(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(s) if s == from => *s = to.to_string(),
        Value::Array(items) => items.iter_mut().for_each(|v| replace_string(v, from, to)),
        Value::Object(map) => map.values_mut().for_each(|v| replace_string(v, from, to)),
        _ => {}
    }
}

/// Paths of every value matching `pick` (given the key it sits under, if any), shallowest first
/// (messages before their blocks).
fn paths(root: &Value, pick: impl Fn(Option<&str>, &Value) -> bool) -> Vec<Path> {
    let mut found = Vec::new();
    let mut level: Vec<(Path, &Value)> = vec![(Vec::new(), root)];
    while !level.is_empty() {
        let mut next = Vec::new();
        for (path, value) in level {
            let key = match path.last() {
                Some(Step::Key(key)) => Some(key.as_str()),
                _ => None,
            };
            if pick(key, value) {
                found.push(path.clone());
            }
            match value {
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        next.push((extend(&path, Step::Index(i)), item));
                    }
                }
                Value::Object(map) => {
                    for (key, item) in map {
                        next.push((extend(&path, Step::Key(key.clone())), item));
                    }
                }
                _ => {}
            }
        }
        level = next;
    }
    found
}

fn extend(path: &[Step], step: Step) -> Path {
    let mut longer = path.to_vec();
    longer.push(step);
    longer
}

fn value_at<'a>(root: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(root, |value, step| match step {
        Step::Index(i) => value.as_array_mut()?.get_mut(*i),
        Step::Key(k) => value.as_object_mut()?.get_mut(k),
    })
}

fn read_at<'a>(root: &'a Value, path: &[Step]) -> Option<&'a Value> {
    path.iter().try_fold(root, |value, step| match step {
        Step::Index(i) => value.as_array()?.get(*i),
        Step::Key(k) => value.as_object()?.get(k),
    })
}

#[cfg(test)]
mod tests;
