//! Structural minimisation of a JSON input (delta debugging on the document, not on bytes).
//!
//! Passes, repeated until none makes progress or the budget of predicate calls is spent:
//! 1. array elements, outermost arrays first (messages, then content blocks), removed in chunks
//!    that halve down to single elements (ddmin);
//! 2. object fields, one at a time, except the ones that say what an object is ([`KIND_KEYS`]);
//! 3. scalars simplified: every occurrence of an id (a string under a key ending in `id`/`Id`)
//!    renamed at once to a short name (`a`, `b`, ...), so a call and its result stay paired;
//!    long strings cut to nothing or halved; numbers set to 0.
//!
//! Every step is kept only if `still_fails` holds for the result, so the minimised input fails
//! exactly as the original did (the caller's predicate decides what "the same" failure is).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::stop;

/// What one minimisation may spend: predicate calls and wall time. The time counts the predicate's
/// own: every call runs with the budget's end as its cut-off ([`stop::within`]), so an external
/// program that hangs is cut off there instead of costing its whole deadline per call.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub calls: usize,
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            calls: 20_000,
            time: Duration::from_secs(5),
        }
    }
}

/// Strings at most this long are left alone unless they are ids: roles, block types and
/// stop reasons are what a reader needs to see.
const SHORT_STRING: usize = 12;

/// Fields never removed: a message's `role` and a block's or entry's `type` say what the object is.
/// Without them a user's message the failure needs would shrink to a bare `{}`, which no reader
/// (and no format's reader) takes for a user's message.
const KIND_KEYS: [&str; 2] = ["role", "type"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Index(usize),
    Key(String),
}

type Path = Vec<Step>;

/// Minimises `input` while `still_fails` holds, within `budget`.
pub fn minimize(input: &Value, still_fails: impl Fn(&Value) -> bool, budget: Budget) -> Value {
    let mut run = Run {
        current: input.clone(),
        still_fails,
        calls_left: budget.calls,
        deadline: Instant::now() + budget.time,
    };
    loop {
        let mut progress = run.shrink_arrays();
        progress |= run.remove_fields();
        progress |= run.rename_ids();
        progress |= run.simplify_scalars();
        if !progress || run.calls_left == 0 {
            return run.current;
        }
    }
}

struct Run<F> {
    current: Value,
    still_fails: F,
    calls_left: usize,
    deadline: Instant,
}

impl<F: Fn(&Value) -> bool> Run<F> {
    /// Adopts `candidate` if it still fails (and the budget allows asking).
    fn try_adopt(&mut self, candidate: Value) -> bool {
        if self.calls_left > 0 && (Instant::now() >= self.deadline || stop::over()) {
            self.calls_left = 0;
        }
        if self.calls_left == 0 {
            return false;
        }
        self.calls_left -= 1;
        if stop::within(self.deadline, || (self.still_fails)(&candidate)) {
            self.current = candidate;
            true
        } else {
            false
        }
    }

    /// Edits a copy of the current input at `path`; `None` if the path no longer exists.
    fn edited(&self, path: &[Step], edit: impl FnOnce(&mut Value)) -> Option<Value> {
        let mut candidate = self.current.clone();
        edit(value_at(&mut candidate, path)?);
        Some(candidate)
    }

    fn shrink_arrays(&mut self) -> bool {
        let mut progress = false;
        for path in paths(&self.current, |v| v.is_array()) {
            progress |= self.ddmin_array(&path);
        }
        progress
    }

    /// Removes chunks of the array at `path`, halving the chunk size down to one element.
    fn ddmin_array(&mut self, path: &[Step]) -> bool {
        let len = |run: &Self| {
            let mut current = run.current.clone();
            value_at(&mut current, path)
                .and_then(|v| v.as_array().map(Vec::len))
                .unwrap_or(0)
        };
        let mut progress = false;
        let mut chunk = len(self).div_ceil(2).max(1);
        loop {
            let mut start = 0;
            while start < len(self) && self.calls_left > 0 {
                let end = (start + chunk).min(len(self));
                let candidate = self.edited(path, |v| {
                    if let Some(items) = v.as_array_mut() {
                        items.drain(start..end);
                    }
                });
                if candidate.is_some_and(|c| self.try_adopt(c)) {
                    progress = true;
                } else {
                    start += chunk;
                }
            }
            if chunk == 1 || self.calls_left == 0 {
                return progress;
            }
            chunk = chunk.div_ceil(2);
        }
    }

    fn remove_fields(&mut self) -> bool {
        let mut progress = false;
        for path in paths(&self.current, |v| v.is_object()) {
            let keys: Vec<String> = match read_at(&self.current, &path) {
                Some(Value::Object(map)) => map
                    .keys()
                    .filter(|key| !KIND_KEYS.contains(&key.as_str()))
                    .cloned()
                    .collect(),
                _ => continue,
            };
            for key in keys {
                let candidate = self.edited(&path, |v| {
                    if let Some(map) = v.as_object_mut() {
                        map.remove(&key);
                    }
                });
                if let Some(candidate) = candidate {
                    progress |= self.try_adopt(candidate);
                }
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
        for path in paths(&self.current, |v| match v {
            Value::String(s) => s.chars().count() > SHORT_STRING,
            Value::Number(n) => n.as_f64() != Some(0.0),
            _ => false,
        }) {
            progress |= self.simplify_scalar(&path);
        }
        progress
    }

    fn simplify_scalar(&mut self, path: &[Step]) -> bool {
        let Some(original) = read_at(&self.current, path).cloned() else {
            return false;
        };
        match original {
            Value::Number(_) => self
                .edited(path, |v| *v = Value::from(0))
                .is_some_and(|c| self.try_adopt(c)),
            Value::String(text) => {
                // Binary search for the shortest prefix that still fails (the empty string first).
                let chars: Vec<char> = text.chars().collect();
                let try_prefix = |run: &mut Self, len: usize| {
                    let prefix: String = chars[..len].iter().collect();
                    run.edited(path, |v| *v = Value::String(prefix))
                        .is_some_and(|c| run.try_adopt(c))
                };
                if try_prefix(self, 0) {
                    return true;
                }
                let (mut passes, mut fails) = (0, chars.len());
                while fails - passes > 1 && self.calls_left > 0 {
                    let middle = (passes + fails) / 2;
                    if try_prefix(self, middle) {
                        fails = middle;
                    } else {
                        passes = middle;
                    }
                }
                fails < chars.len()
            }
            _ => false,
        }
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

/// Paths of every value matching `pick`, shallowest first (messages before their blocks).
fn paths(root: &Value, pick: impl Fn(&Value) -> bool) -> Vec<Path> {
    let mut found = Vec::new();
    let mut level: Vec<(Path, &Value)> = vec![(Vec::new(), root)];
    while !level.is_empty() {
        let mut next = Vec::new();
        for (path, value) in level {
            if pick(value) {
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
mod tests {
    use super::*;
    use serde_json::json;

    /// The failure: some result answers an id that an assistant called, with a `custom` message
    /// somewhere between them.
    fn barrier_between_call_and_result(v: &Value) -> bool {
        let Some(messages) = v.as_array() else {
            return false;
        };
        messages.iter().enumerate().any(|(i, m)| {
            m["role"] == "assistant"
                && m["content"].as_array().is_some_and(|blocks| {
                    blocks.iter().any(|b| {
                        let id = &b["id"];
                        !id.is_null()
                            && messages[i + 1..].iter().any(|r| r["role"] == "custom")
                            && messages[i + 1..]
                                .iter()
                                .skip_while(|r| r["role"] != "custom")
                                .any(|r| r["role"] == "toolResult" && &r["toolCallId"] == id)
                    })
                })
        })
    }

    fn calls(calls: usize) -> Budget {
        Budget {
            calls,
            ..Budget::default()
        }
    }

    #[test]
    fn shrinks_messages_blocks_fields_and_ids() {
        let input = json!([
            {"role": "user", "content": "hello", "timestamp": 1700000000},
            {"role": "assistant", "stopReason": "toolUse", "content": [
                {"type": "text", "text": "let me look at that file for you, it will take a moment"},
                {"type": "toolCall", "id": "toolu_01ABCDEFGHIJ", "name": "read", "arguments": {"path": "/x"}},
                {"type": "toolCall", "id": "toolu_02ZZZ", "name": "ls", "arguments": {}}
            ]},
            {"role": "toolResult", "toolCallId": "toolu_02ZZZ", "content": []},
            {"role": "custom", "customType": "note", "content": "x"},
            {"role": "user", "content": "more"},
            {"role": "toolResult", "toolCallId": "toolu_01ABCDEFGHIJ", "content": [{"type": "text", "text": "body"}]}
        ]);
        assert!(barrier_between_call_and_result(&input));
        let small = minimize(&input, barrier_between_call_and_result, Budget::default());
        assert_eq!(
            small,
            json!([
                {"role": "assistant", "content": [{"type": "toolCall", "id": "a"}]},
                {"role": "custom"},
                {"role": "toolResult", "toolCallId": "a"}
            ])
        );
    }

    #[test]
    fn a_message_keeps_its_role_and_a_block_its_type() {
        let input = json!([{"role": "user", "content": "stop", "timestamp": 1}]);
        assert_eq!(
            minimize(
                &input,
                |v| v.as_array().is_some_and(|m| m.len() == 1),
                calls(1000)
            ),
            json!([{"role": "user"}])
        );
    }

    #[test]
    fn a_passing_input_is_returned_unchanged_when_nothing_smaller_fails() {
        let input = json!([{"role": "custom"}, 17, "a long string that could be shortened"]);
        assert_eq!(minimize(&input, |v| v == &input, calls(1000)), input);
    }

    #[test]
    fn long_strings_and_numbers_shrink_while_the_failure_holds() {
        let input = json!({"body": "abcdefghijklmnopqrstuvwxyz", "size": 99, "keep": true});
        let small = minimize(
            &input,
            |v| v["body"].as_str().is_some_and(|s| s.contains('c')) && v["keep"] == true,
            calls(1000),
        );
        assert_eq!(small, json!({"body": "abc", "keep": true}));
    }

    #[test]
    fn the_budget_bounds_predicate_calls() {
        let count = std::cell::Cell::new(0);
        let input = json!((0..100).collect::<Vec<_>>());
        minimize(
            &input,
            |_| {
                count.set(count.get() + 1);
                false
            },
            calls(25),
        );
        assert_eq!(count.get(), 25);
    }
}
