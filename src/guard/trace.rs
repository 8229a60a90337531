//! The trace of one session: every event pi emits and every extension handler's outcome, in order.
//!
//! It serialises to JSON (what the oracle judges, from the trace alone), prints one line per event
//! in the notation of the reference's traces (`E#1 guard: predicate→2, latch=true, follow-up
//! queued`), and projects to seed 004's measured event order (`LLM_REQUEST GUARD AGENT_END ...`).

use serde::{Deserialize, Serialize};

use super::schedule::{Deliver, ResponseKind};

/// One event. `run` is the logical run (1-based), `low` the low-level run within it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// Supervision health, at the start and at every change.
    Supervision {
        healthy: bool,
    },
    /// A logical run starts (`_runAgentPrompt`), triggered by the user or an extension while idle.
    RunStart {
        run: u32,
        trigger: String,
    },
    /// A logical run died before its first low-level run (print mode: the process is exiting).
    RunFailed {
        run: u32,
        reason: String,
    },
    AgentStart {
        run: u32,
        low: u32,
    },
    TurnStart {
        run: u32,
    },
    /// One request to the model; `delivered` names who wrote each user message that reaches the
    /// model for the first time in this request (`user`, `guard`, an extension).
    LlmRequest {
        run: u32,
        request: u32,
        delivered: Vec<String>,
    },
    Response {
        run: u32,
        request: u32,
        kind: ResponseKind,
        stop_reason: String,
    },
    /// ESC: the queued messages of these senders moved back to the editor, the stream aborted.
    Esc {
        run: u32,
        moved: Vec<String>,
    },
    TurnEnd {
        run: u32,
        handlers: Vec<Handled>,
    },
    AgentEnd {
        run: u32,
        low: u32,
        handlers: Vec<Handled>,
    },
    AutoRetryStart {
        run: u32,
        attempt: u8,
    },
    AutoRetryEnd {
        run: u32,
        success: bool,
    },
    Compaction {
        run: u32,
        reason: String,
    },
    /// `_handlePostAgentRun`'s answer: `retry`, `compaction`, `queued` (continue), `stop`,
    /// `esc` (stopped by ESC while it awaited).
    PostRun {
        run: u32,
        decision: String,
    },
    /// An exception escaped the logical run (it settles from the `finally`).
    SessionError {
        run: u32,
        reason: String,
    },
    AgentSettled {
        run: u32,
        handlers: Vec<Handled>,
    },
    /// The model's request budget ran out (a schedule that never lets pi settle).
    Truncated {
        requests: u32,
    },
}

/// What one extension handler did with one event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handled {
    pub ext: String,
    pub did: Did,
    /// The guard's latch after the handler (the guard only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latch: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Did {
    /// The predicate ran and allowed the turn end.
    Allowed { predicate: u8 },
    /// The predicate blocked; the recovery follow-up was sent (queued, or a new run if idle).
    Blocked { predicate: u8, deliver: Deliver },
    /// The predicate blocked; `sendUserMessage` threw, nothing was sent.
    DeliveryFailed { predicate: u8 },
    /// The latch was set: consumed without running the predicate.
    Consumed,
    /// The settle release.
    Released { was: bool },
    /// A scripted extension sent a message.
    Sent { deliver: Deliver, idle: bool },
}

/// A whole session's trace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Trace {
    pub events: Vec<Event>,
}

impl Trace {
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a trace always serialises")
    }

    /// One line per event, in the reference's notation.
    pub fn lines(&self) -> Vec<String> {
        self.events.iter().map(line).collect()
    }

    /// The lines as one text, for diffs.
    pub fn text(&self) -> String {
        self.lines().into_iter().map(|line| line + "\n").collect()
    }

    /// The order seed 004 measured with probe extensions loaded after the guard: `LLM_REQUEST` per
    /// request, `GUARD` per predicate run, then `AGENT_END` / `SETTLED` once the event's handlers
    /// ran.
    pub fn probe_order(&self) -> String {
        let mut order = Vec::new();
        for event in &self.events {
            let (handlers, word) = match event {
                Event::LlmRequest { .. } => {
                    order.push("LLM_REQUEST");
                    continue;
                }
                Event::AgentEnd { handlers, .. } => (handlers, "AGENT_END"),
                Event::AgentSettled { handlers, .. } => (handlers, "SETTLED"),
                _ => continue,
            };
            order.extend(
                handlers
                    .iter()
                    .filter(|handled| handled.did.ran_predicate())
                    .map(|_| "GUARD"),
            );
            order.push(word);
        }
        order.join(" ")
    }
}

impl Did {
    fn ran_predicate(&self) -> bool {
        matches!(
            self,
            Did::Allowed { .. } | Did::Blocked { .. } | Did::DeliveryFailed { .. }
        )
    }
}

fn handlers_text(handlers: &[Handled]) -> String {
    handlers
        .iter()
        .map(|handled| {
            let latch = match handled.latch {
                Some(latch) => format!(", latch={latch}"),
                None => String::new(),
            };
            format!(" | {}: {}{latch}", handled.ext, did_text(&handled.did))
        })
        .collect()
}

fn did_text(did: &Did) -> String {
    match did {
        Did::Allowed { predicate } => format!("predicate→{predicate}, allowed"),
        Did::Blocked { predicate, deliver } => {
            format!(
                "predicate→{predicate}, recovery sent as {}",
                deliver_text(*deliver)
            )
        }
        Did::DeliveryFailed { predicate } => {
            format!("predicate→{predicate}, delivery failed")
        }
        Did::Consumed => "latch consumed, no predicate".to_string(),
        Did::Released { was } => format!("release (was {was})"),
        Did::Sent { deliver, idle } => match idle {
            true => "sent while idle (new run)".to_string(),
            false => format!("queued {}", deliver_text(*deliver)),
        },
    }
}

fn deliver_text(deliver: Deliver) -> &'static str {
    match deliver {
        Deliver::Steer => "steer",
        Deliver::FollowUp => "follow-up",
    }
}

fn line(event: &Event) -> String {
    match event {
        Event::Supervision { healthy } => {
            format!(
                "supervision {}",
                if *healthy { "healthy" } else { "unhealthy" }
            )
        }
        Event::RunStart { run, trigger } => format!("run {run} ← {trigger}"),
        Event::RunFailed { run, reason } => format!("  run {run} failed: {reason}"),
        Event::AgentStart { low, .. } => format!("  agent_start #{low}"),
        Event::TurnStart { .. } => "    turn_start".to_string(),
        Event::LlmRequest {
            request, delivered, ..
        } => match delivered.is_empty() {
            true => format!("    LLM #{request}"),
            false => format!("    LLM #{request} ← {}", delivered.join(", ")),
        },
        Event::Response { kind, .. } => {
            format!(
                "    → {}",
                serde_json::to_value(kind)
                    .expect("a kind serialises")
                    .as_str()
                    .unwrap_or_default()
            )
        }
        Event::Esc { moved, .. } => format!("  ESC: editor ← [{}]", moved.join(", ")),
        Event::TurnEnd { handlers, .. } => format!("    turn_end{}", handlers_text(handlers)),
        Event::AgentEnd { low, handlers, .. } => format!("  E#{low}{}", handlers_text(handlers)),
        Event::AutoRetryStart { attempt, .. } => format!("  auto_retry_start (attempt {attempt})"),
        Event::AutoRetryEnd { success, .. } => format!("  auto_retry_end (success={success})"),
        Event::Compaction { reason, .. } => format!("  compaction ({reason})"),
        Event::PostRun { decision, .. } => format!("  postRun → {decision}"),
        Event::SessionError { reason, .. } => format!("  session error: {reason}"),
        Event::AgentSettled { run, handlers } => format!("S run {run}{}", handlers_text(handlers)),
        Event::Truncated { requests } => format!("truncated after {requests} requests"),
    }
}
