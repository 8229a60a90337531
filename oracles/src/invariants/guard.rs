//! Turn-end guard invariants, judged from a session trace alone (the JSON the `ctxfuzz::guard`
//! model records), never by running the model.
//!
//! The trace is a JSON array of events tagged by `event`: `supervision {healthy}`,
//! `run_start {run, trigger}`, `run_failed`, `llm_request {delivered: [sender]}`, `esc` (an ESC
//! excuses its run, whatever it moved back to the editor), `turn_end`/`agent_end`/`agent_settled
//! {handlers: [{ext, did: {action}, latch}]}`, `session_error`, `truncated`, and others this
//! module does not need. The guard extension is
//! named `guard`; its recovery follow-up is a user message whose sender is `guard`.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use super::{Cause, Invariant, Judgement, Violation};

pub const ONE_IDLE_SIGNAL_PER_PROMPT: Invariant = Invariant {
    id: "one-idle-signal-per-prompt",
    statement: "a prompt (a run the user or another extension starts) leads to exactly one agent_settled; \
         runs the guard itself starts while idle are extra idle signals",
};
pub const NO_BLIND_TURN_END: Invariant = Invariant {
    id: "no-blind-turn-end",
    statement: "a run never settles while supervision is unhealthy unless the recovery instruction \
         reached the model in that run (ESC exempts the run: the user is there and has the text)",
};
pub const LATCH_RELEASED: Invariant = Invariant {
    id: "latch-released",
    statement: "the guard's latch is clear once every agent_settled's handlers have run",
};
pub const BOUNDED_FOLLOW_UPS: Invariant = Invariant {
    id: "bounded-follow-ups",
    statement: "a run's guard follow-ups are at most max(1, ceil(A/2)) for its A agent_end events: the \
         latch makes the guard block at most every other boundary",
};
pub const RECOVERY_LANDS_IN_RUN: Invariant = Invariant {
    id: "recovery-lands-in-run",
    statement: "every recovery follow-up the guard sends reaches the model before the run it was sent \
         in settles, even when it was sent at a retry or compaction boundary",
};

/// Every guard invariant.
pub const INVARIANTS: &[Invariant] = &[
    ONE_IDLE_SIGNAL_PER_PROMPT,
    NO_BLIND_TURN_END,
    LATCH_RELEASED,
    BOUNDED_FOLLOW_UPS,
    RECOVERY_LANDS_IN_RUN,
];

const GUARD: &str = "guard";

/// The fields of a trace event the invariants read (every other field is ignored).
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow)]
    event: Cow<'a, str>,
    #[serde(default)]
    healthy: Option<bool>,
    #[serde(default)]
    run: Option<u64>,
    #[serde(default, borrow)]
    trigger: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reason: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    delivered: Vec<Cow<'a, str>>,
    #[serde(default, borrow)]
    handlers: Vec<Handled<'a>>,
}

#[derive(Deserialize)]
struct Handled<'a> {
    #[serde(borrow)]
    ext: Cow<'a, str>,
    #[serde(borrow)]
    did: Did<'a>,
    #[serde(default)]
    latch: Option<bool>,
}

#[derive(Deserialize)]
struct Did<'a> {
    #[serde(borrow)]
    action: Cow<'a, str>,
}

/// One logical run as the trace shows it.
#[derive(Default)]
struct Run {
    run: Option<u64>,
    trigger: String,
    agent_ends: u64,
    follow_ups: u64,
    /// Recovery follow-ups sent in this run that have not reached the model yet.
    undelivered: u64,
    recovery_reached_model: bool,
    esc: bool,
    delivery_failed: bool,
    /// Why the run died, if it did (a session error, or failing before its first request).
    died: Option<String>,
}

/// Judges one guard trace read by `trace`, such as a JSON value (`&serde_json::Value`).
pub fn judge<'de, D: Deserializer<'de>>(trace: D) -> Judgement {
    judge_parsed(Vec::<Event>::deserialize(trace))
}

/// Judges one guard trace given as JSON text (what the fuzz target hands over: serialising a trace
/// to text and reading only these fields is several times cheaper than building a `Value`).
pub fn judge_text(trace: &str) -> Judgement {
    judge_parsed(serde_json::from_str(trace))
}

fn judge_parsed<E: fmt::Display>(events: Result<Vec<Event<'_>>, E>) -> Judgement {
    let events = match events {
        Ok(events) => events,
        Err(error) => return Judgement::CannotJudge(format!("not a guard trace: {error}")),
    };
    let mut judge = Judge::default();
    for (index, event) in events.iter().enumerate() {
        judge.event(index, event);
    }
    if let Some(run) = judge.run.take() {
        judge.check_bounded(&run, events.len());
    }
    Judgement::from_violations(judge.violations)
}

#[derive(Default)]
struct Judge {
    violations: Vec<Violation>,
    unhealthy: bool,
    latch: bool,
    run: Option<Run>,
    /// The run that started the current prompt, and the runs that settled for it.
    prompt: Option<u64>,
    settled_for_prompt: Vec<Option<u64>>,
}

impl Judge {
    fn event(&mut self, index: usize, event: &Event<'_>) {
        let kind = event.event.as_ref();
        if kind == "supervision" {
            self.unhealthy = event.healthy == Some(false);
            return;
        }
        if kind == "run_start" {
            self.start_run(event);
            return;
        }
        let Some(run) = self.run.as_mut() else {
            return;
        };
        match kind {
            "llm_request" => {
                let recoveries = event.delivered.iter().filter(|s| *s == GUARD).count();
                if recoveries > 0 {
                    run.recovery_reached_model = true;
                    run.undelivered = run.undelivered.saturating_sub(recoveries as u64);
                }
            }
            "esc" => run.esc = true,
            "run_failed" | "session_error" => {
                run.died = Some(event.reason.as_deref().unwrap_or(kind).to_string());
            }
            "agent_end" => {
                run.agent_ends += 1;
                self.handlers(event);
            }
            "turn_end" => self.handlers(event),
            "agent_settled" => {
                self.handlers(event);
                self.settle(index);
            }
            _ => {}
        }
    }

    fn start_run(&mut self, event: &Event<'_>) {
        let trigger = event.trigger.as_deref().unwrap_or_default().to_string();
        if trigger != GUARD {
            self.prompt = event.run;
            self.settled_for_prompt.clear();
        }
        self.run = Some(Run {
            run: event.run,
            trigger,
            ..Run::default()
        });
    }

    /// The guard's handler outcomes: its latch, its follow-ups, its failed deliveries.
    fn handlers(&mut self, event: &Event<'_>) {
        let run = self.run.as_mut().expect("handlers only inside a run");
        for handled in event.handlers.iter().filter(|handled| handled.ext == GUARD) {
            if let Some(latch) = handled.latch {
                self.latch = latch;
            }
            match handled.did.action.as_ref() {
                "blocked" => {
                    run.follow_ups += 1;
                    run.undelivered += 1;
                }
                "delivery-failed" => run.delivery_failed = true,
                _ => {}
            }
        }
    }

    fn violation(
        &mut self,
        invariant: Invariant,
        cause: Cause,
        summary: String,
        evidence: GuardEvidence,
    ) {
        self.violations
            .push(Violation::new(invariant, cause, summary, evidence));
    }

    /// All checks that fall due when a run has settled (its settle handlers have run).
    fn settle(&mut self, index: usize) {
        let run = self.run.take().expect("a settle belongs to a run");
        let evidence = |detail| GuardEvidence::Run {
            event_index: index,
            run: run.run,
            trigger: run.trigger.clone(),
            detail,
        };

        self.settled_for_prompt.push(run.run);
        if self.settled_for_prompt.len() == 2 {
            let summary = format!(
                "the prompt of run {} settled twice (runs {} and {}): two idle signals",
                display(self.prompt),
                display(self.settled_for_prompt[0]),
                display(self.settled_for_prompt[1])
            );
            let detail = RunDetail::SettledTwice {
                prompt_run: self.prompt,
                settled_runs: self.settled_for_prompt.clone(),
            };
            self.violation(
                ONE_IDLE_SIGNAL_PER_PROMPT,
                Cause::SystemUnderTest,
                summary,
                evidence(detail),
            );
        }

        if self.unhealthy && !run.recovery_reached_model && !run.esc {
            let cause = match (&run.died, run.delivery_failed) {
                (Some(_), _) => {
                    Cause::Unpreventable("the run died before its turn end could be blocked")
                }
                (None, true) => {
                    Cause::Unpreventable("the recovery follow-up could not be delivered")
                }
                (None, false) => Cause::SystemUnderTest,
            };
            let summary = format!(
                "run {} settled with supervision unhealthy and the recovery instruction never reached the model",
                display(run.run)
            );
            let detail = RunDetail::Unrecovered {
                died: run.died.clone(),
                delivery_failed: run.delivery_failed,
            };
            self.violation(NO_BLIND_TURN_END, cause, summary, evidence(detail));
        }

        if self.latch {
            let summary = format!(
                "the guard's latch is still set after run {} settled",
                display(run.run)
            );
            self.violation(
                LATCH_RELEASED,
                Cause::SystemUnderTest,
                summary,
                evidence(RunDetail::LatchSet),
            );
        }

        if run.undelivered > 0 && !run.esc {
            let cause = match run.died {
                Some(_) => {
                    Cause::Unpreventable("the run died with the recovery follow-up still queued")
                }
                None => Cause::SystemUnderTest,
            };
            let summary = format!(
                "{} recovery follow-up(s) sent in run {} never reached the model before it settled",
                run.undelivered,
                display(run.run)
            );
            let detail = RunDetail::Undelivered {
                undelivered: run.undelivered,
                died: run.died.clone(),
            };
            self.violation(RECOVERY_LANDS_IN_RUN, cause, summary, evidence(detail));
        }

        self.check_bounded(&run, index);
    }

    fn check_bounded(&mut self, run: &Run, index: usize) {
        let bound = run.agent_ends.div_ceil(2).max(1);
        if run.follow_ups > bound {
            let summary = format!(
                "run {} got {} guard follow-ups for {} agent_end events (bound {bound})",
                display(run.run),
                run.follow_ups,
                run.agent_ends
            );
            let evidence = GuardEvidence::FollowUps {
                event_index: index,
                run: run.run,
                follow_ups: run.follow_ups,
                agent_ends: run.agent_ends,
                bound,
            };
            self.violation(
                BOUNDED_FOLLOW_UPS,
                Cause::SystemUnderTest,
                summary,
                evidence,
            );
        }
    }
}

/// What a violation of the guard's invariants shows: the event of the trace where it was found,
/// and the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum GuardEvidence {
    /// A run that settled wrong: its trigger, and what of it.
    Run {
        event_index: usize,
        run: Option<u64>,
        trigger: String,
        detail: RunDetail,
    },
    /// More follow-ups than the bound its agent_end events allow.
    FollowUps {
        event_index: usize,
        run: Option<u64>,
        follow_ups: u64,
        agent_ends: u64,
        bound: u64,
    },
}

/// What of a settled run breaks an invariant.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RunDetail {
    /// The prompt settled twice: two idle signals.
    SettledTwice {
        prompt_run: Option<u64>,
        settled_runs: Vec<Option<u64>>,
    },
    /// Supervision unhealthy and no recovery reached the model.
    Unrecovered {
        died: Option<String>,
        delivery_failed: bool,
    },
    /// The latch is still set (shown as `null`: the summary says it all).
    LatchSet,
    /// Recovery follow-ups that never reached the model.
    Undelivered {
        undelivered: u64,
        died: Option<String>,
    },
}

/// A run number for a summary (`?` when the trace did not say).
fn display(run: Option<u64>) -> String {
    run.map_or_else(|| "?".to_string(), |run| run.to_string())
}

#[cfg(test)]
mod tests;
