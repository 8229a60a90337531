//! Schedules: everything that happens to one pi session that the session itself does not decide.
//!
//! A schedule says what each model response does, when supervision turns unhealthy or healthy,
//! when ESC or a fatal session error strikes, what the user and other extensions queue and when,
//! when the context crosses the compaction threshold, and which guard deliveries fail. It is plain
//! JSON (the fuzz target's input), so one minimiser, one case-file format and one replay serve it.
//!
//! Every field has a default, so a hand-written schedule names only what matters:
//! `{"unhealthy": true}` is reference trace 2 (one prompt, the model stops, supervision is off).

use serde::{Deserialize, Serialize};

/// Upper bounds shared by the `arbitrary` and the proptest faces of the schedule generator, so
/// both explore the same space.
pub mod bounds {
    /// Idle user prompts (logical runs started by the user), one after another.
    pub const MAX_PROMPTS: u8 = 3;
    /// Scripted model responses; after them the model answers `stop`.
    pub const MAX_RESPONSES: usize = 10;
    /// Scripted queue actions of the user and of other extensions.
    pub const MAX_QUEUES: usize = 6;
    /// Hook ordinals a queue action may name (higher ones never fire in a short schedule).
    pub const MAX_NTH: u32 = 8;
    /// Guard deliveries that may be scripted to fail.
    pub const MAX_DELIVERY_FAILURES: usize = 2;
    /// Other extensions (besides the guard) that a schedule may load.
    pub const MAX_OTHER_EXTENSIONS: usize = 2;
}

/// The name of the guard extension in `load_order`, in traces and in queue actions' `by`.
pub const GUARD: &str = "guard";
/// The name of the user in queue actions' `by` (typing while the agent streams).
pub const USER: &str = "user";

/// One pi session's schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Schedule {
    /// User prompts sent while idle, each starting a logical run after the previous one settled
    /// (at least one is always sent).
    pub prompts: u8,
    /// Supervision is unhealthy from the start (the guard's predicate exits 2).
    #[serde(skip_serializing_if = "is_false")]
    pub unhealthy: bool,
    /// The model's responses, in request order; requests beyond the list get `stop`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub responses: Vec<Response>,
    /// What the user and other extensions queue, and when.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<QueueAction>,
    /// Extension load order (handlers run in this order). `guard` is added first when missing;
    /// extensions named only in `queues` load after everything listed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub load_order: Vec<String>,
    /// The guard's deliveries (1-based count of follow-ups it tries to send) whose
    /// `sendUserMessage` throws: the latch is reset and nothing is queued.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub delivery_failures: Vec<u32>,
    #[serde(skip_serializing_if = "Settings::is_default")]
    pub settings: Settings,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            prompts: 1,
            unhealthy: false,
            responses: Vec::new(),
            queues: Vec::new(),
            load_order: Vec::new(),
            delivery_failures: Vec::new(),
            settings: Settings::default(),
        }
    }
}

/// pi settings that change the run loop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// `retry.enabled`: transient provider errors are retried automatically.
    pub retry: bool,
    /// `retry.maxRetries`.
    pub max_retries: u8,
    /// `compaction.enabled`: overflow and threshold compaction.
    pub compaction: bool,
    /// `steeringMode` and `followUpMode`.
    pub queue_mode: QueueMode,
    /// `pi -p` (print mode, as in seed 004's measurement): the process exits once the last user
    /// prompt settles, so a logical run an extension starts after that dies before its first
    /// request (it only settles).
    pub print_mode: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            retry: true,
            max_retries: 3,
            compaction: true,
            queue_mode: QueueMode::OneAtATime,
            print_mode: false,
        }
    }
}

impl Settings {
    fn is_default(&self) -> bool {
        *self == Settings::default()
    }
}

/// How many queued messages one drain takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueMode {
    /// pi's default: one message per drain.
    OneAtATime,
    /// Everything queued at once.
    All,
}

/// What one model response does, and what happens while it streams.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Response {
    pub kind: ResponseKind,
    /// The context estimate is over the compaction threshold when this response ends.
    #[serde(skip_serializing_if = "is_false")]
    pub over_threshold: bool,
    /// Supervision changes while this response streams (seen by every later predicate run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supervision: Option<Health>,
    /// The user presses ESC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub esc: Option<Esc>,
    /// A fatal session error is thrown at the first post-run boundary at or after this response
    /// (after that low-level run's `agent_end` handlers ran): the logical run dies and settles.
    #[serde(skip_serializing_if = "is_false")]
    pub fatal: bool,
}

impl Default for Response {
    fn default() -> Self {
        Response {
            kind: ResponseKind::Stop,
            over_threshold: false,
            supervision: None,
            esc: None,
            fatal: false,
        }
    }
}

/// The assistant message a request produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResponseKind {
    /// `stopReason: "stop"`, no tool calls: the agent would stop.
    Stop,
    /// `stopReason: "toolUse"`: tools run, the turn goes on.
    ToolUse,
    /// `stopReason: "error"` with a transient provider message ("overloaded"): retryable.
    TransientError,
    /// `stopReason: "error"` that is not retryable (a provider's fatal error).
    Error,
    /// `stopReason: "error"`, context overflow: compaction with retry, once per recovery.
    Overflow,
    /// `stopReason: "aborted"` (the provider or the signal aborted the stream).
    Aborted,
}

impl ResponseKind {
    /// The assistant message's `stopReason`.
    pub fn stop_reason(self) -> &'static str {
        match self {
            ResponseKind::Stop => "stop",
            ResponseKind::ToolUse => "toolUse",
            ResponseKind::TransientError | ResponseKind::Error | ResponseKind::Overflow => "error",
            ResponseKind::Aborted => "aborted",
        }
    }

    /// The low-level run ends at once (`turn_end`, `agent_end`, queues not drained).
    pub fn ends_run_abruptly(self) -> bool {
        self.stop_reason() == "error" || self.stop_reason() == "aborted"
    }
}

/// Supervision health: the guard's predicate exits 2 exactly when it is unhealthy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Health {
    Healthy,
    Unhealthy,
}

/// When ESC strikes relative to the response it is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Esc {
    /// While the response streams: queued texts move to the editor and the response is aborted.
    Streaming,
    /// At the first post-run boundary at or after the response, while `_handlePostAgentRun` is
    /// awaiting (a retry backoff, a compaction): queued texts move to the editor and the run stops.
    Boundary,
}

/// A message the user or another extension queues while the agent streams (or sends while idle,
/// from an `agent_settled` handler, which starts a new logical run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueAction {
    /// `user`, or the name of another extension (never `guard`).
    pub by: String,
    /// The event at which it happens.
    pub at: Hook,
    /// Which occurrence of that event in the whole session (1-based).
    pub nth: u32,
    pub deliver: Deliver,
}

/// Events extensions (and the scripted user) act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hook {
    TurnEnd,
    AgentEnd,
    AgentSettled,
}

/// `deliverAs` of `sendUserMessage` while streaming.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Deliver {
    Steer,
    FollowUp,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl Schedule {
    /// Reads a schedule from JSON; the error says which field is wrong.
    pub fn from_value(value: &serde_json::Value) -> Result<Schedule, serde_json::Error> {
        Schedule::deserialize(value)
    }

    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a schedule always serialises")
    }

    /// The kinds of boundary and interference this schedule exercises (`retry+esc+queues`), so
    /// findings that break one invariant through different mechanisms are kept apart.
    pub fn shape(&self) -> String {
        let has = |kind: ResponseKind| self.responses.iter().any(|r| r.kind == kind);
        let features = [
            ("prompts", self.prompts > 1),
            ("retry", has(ResponseKind::TransientError)),
            ("overflow", has(ResponseKind::Overflow)),
            ("threshold", self.responses.iter().any(|r| r.over_threshold)),
            ("esc", self.responses.iter().any(|r| r.esc.is_some())),
            ("fatal", self.responses.iter().any(|r| r.fatal)),
            ("delivery-failure", !self.delivery_failures.is_empty()),
            ("queues", !self.queues.is_empty()),
            ("print", self.settings.print_mode),
        ];
        let present: Vec<&str> = features
            .into_iter()
            .filter(|(_, present)| *present)
            .map(|(name, _)| name)
            .collect();
        match present.is_empty() {
            true => "plain".to_string(),
            false => present.join("+"),
        }
    }

    /// Extensions in load order, the guard included exactly once.
    pub fn extensions(&self) -> Vec<String> {
        let mut order: Vec<String> = Vec::new();
        if !self.load_order.iter().any(|name| name == GUARD) {
            order.push(GUARD.to_string());
        }
        let named = self.load_order.iter().chain(
            self.queues
                .iter()
                .map(|action| &action.by)
                .filter(|by| *by != USER),
        );
        for name in named {
            if !order.contains(name) {
                order.push(name.clone());
            }
        }
        order
    }
}
