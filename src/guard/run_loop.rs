//! A deterministic model of one pi 0.81.1 session (docs/guard.md#the-model): logical runs
//! (`AgentSession._runAgentPrompt`) made of low-level runs (`Agent.prompt` / `Agent.continue`, one
//! `runLoop` each), the steering and follow-up queues, `_handlePostAgentRun` with auto-retry and
//! compaction boundaries, ESC, fatal session errors, and extensions as handlers in load order.
//!
//! Everything that pi does not decide itself (model responses, supervision health, ESC, what the
//! user and other extensions queue) comes from the [`Schedule`]; everything pi does is recorded in
//! the [`Trace`].

use std::collections::VecDeque;

use super::schedule::{
    Deliver, Esc, Health, Hook, QueueMode, Response, ResponseKind, Schedule, USER,
};
use super::trace::{Did, Event, Handled, Trace};
use super::turnend::{GuardWiring, Host, TurnEndGuard};

/// Model requests per session before the trace is cut (`truncated`): pi has no ceiling of its own,
/// so a schedule whose extensions keep queueing would otherwise never settle.
pub const MAX_REQUESTS: u32 = 96;

/// Runs `schedule` through a pi session with the guard wired as `variant`.
pub fn run(variant: GuardWiring, schedule: &Schedule) -> Trace {
    let mut session = Session::new(variant, schedule);
    session.run_all();
    Trace {
        events: session.core.trace,
    }
}

/// An extension: the guard, or one whose handlers send what the schedule says.
enum Extension {
    Guard(TurnEndGuard),
    Scripted(String),
}

struct Session<'s> {
    extensions: Vec<Extension>,
    core: Core<'s>,
}

/// The assistant message `_handlePostAgentRun` looks at.
#[derive(Clone, Copy)]
struct LastAssistant {
    kind: ResponseKind,
    over_threshold: bool,
}

/// pi's session and agent state (everything but the extensions).
struct Core<'s> {
    schedule: &'s Schedule,
    trace: Vec<Event>,
    healthy: bool,
    /// `isStreaming`: inside a logical run.
    streaming: bool,
    run: u32,
    low: u32,
    requests: u32,
    truncated: bool,
    /// Senders of the queued messages.
    steering: VecDeque<String>,
    follow_up: VecDeque<String>,
    /// Senders of user messages appended since the last request (they reach the model with it).
    fresh: Vec<String>,
    /// Senders of messages sent while idle: each starts a logical run once the current event's
    /// handlers finished (the send is fire-and-forget).
    idle_starts: VecDeque<String>,
    last_assistant: Option<LastAssistant>,
    /// The transcript ends with an assistant message (decides how `Agent.continue` proceeds).
    ends_with_assistant: bool,
    retry_attempt: u8,
    overflow_recovery_attempted: bool,
    /// ESC or a fatal error scripted for the next post-run boundary.
    esc_at_boundary: bool,
    fatal_at_boundary: bool,
    /// How often each hook fired so far (queue actions name the nth occurrence).
    turn_ends: u32,
    agent_ends: u32,
    settles: u32,
}

impl Host for Core<'_> {
    fn predicate(&self) -> u8 {
        if self.healthy { 0 } else { 2 }
    }

    fn send_user_message(&mut self, from: &str, deliver: Deliver) {
        let from = from.to_string();
        match (self.streaming, deliver) {
            (false, _) => self.idle_starts.push_back(from),
            (true, Deliver::Steer) => self.steering.push_back(from),
            (true, Deliver::FollowUp) => self.follow_up.push_back(from),
        }
    }
}

impl<'s> Session<'s> {
    fn new(variant: GuardWiring, schedule: &'s Schedule) -> Session<'s> {
        let extensions = schedule
            .extensions()
            .into_iter()
            .map(|name| match name.as_str() {
                super::schedule::GUARD => Extension::Guard(TurnEndGuard::new(
                    variant,
                    schedule.delivery_failures.clone(),
                )),
                _ => Extension::Scripted(name),
            })
            .collect();
        Session {
            extensions,
            core: Core {
                schedule,
                trace: Vec::new(),
                healthy: !schedule.unhealthy,
                streaming: false,
                run: 0,
                low: 0,
                requests: 0,
                truncated: false,
                steering: VecDeque::new(),
                follow_up: VecDeque::new(),
                fresh: Vec::new(),
                idle_starts: VecDeque::new(),
                last_assistant: None,
                ends_with_assistant: false,
                retry_attempt: 0,
                overflow_recovery_attempted: false,
                esc_at_boundary: false,
                fatal_at_boundary: false,
                turn_ends: 0,
                agent_ends: 0,
                settles: 0,
            },
        }
    }

    /// The user's prompts, each sent once pi is idle, and every run extensions start while idle.
    fn run_all(&mut self) {
        let healthy = self.core.healthy;
        self.core.trace.push(Event::Supervision { healthy });
        let prompts = self.core.schedule.prompts.max(1);
        for prompt in 1..=prompts {
            self.logical_run(USER.to_string(), false);
            let process_exiting = self.core.schedule.settings.print_mode && prompt == prompts;
            while let Some(from) = self.core.idle_starts.pop_front() {
                if self.core.truncated {
                    return;
                }
                self.logical_run(from, process_exiting);
            }
            if self.core.truncated {
                return;
            }
        }
    }

    /// `_runAgentPrompt`: the first low-level run, then one more per post-run boundary that says
    /// so, then `agent_settled` from the `finally`.
    fn logical_run(&mut self, trigger: String, process_exiting: bool) {
        self.core.run += 1;
        self.core.low = 0;
        let run = self.core.run;
        self.core.trace.push(Event::RunStart {
            run,
            trigger: trigger.clone(),
        });
        if process_exiting {
            self.core.trace.push(Event::RunFailed {
                run,
                reason: "the process is exiting (print mode)".to_string(),
            });
        } else {
            self.core.streaming = true;
            self.low_level_run(vec![trigger], false);
            while !self.core.truncated && self.post_run() {
                self.continue_run();
            }
            self.core.streaming = false;
            if self.core.truncated {
                return;
            }
        }
        let handlers = self.dispatch(Hook::AgentSettled);
        self.core.trace.push(Event::AgentSettled { run, handlers });
    }

    /// `Agent.continue()`: with an assistant last, the queued steering (else follow-up) messages
    /// become the prompt and the initial steering poll is skipped; otherwise a plain continuation.
    fn continue_run(&mut self) {
        if self.core.ends_with_assistant {
            let prompt = match self.core.steering.is_empty() {
                false => self.core.drain(Deliver::Steer),
                true => self.core.drain(Deliver::FollowUp),
            };
            self.low_level_run(prompt, true);
        } else {
            self.low_level_run(Vec::new(), false);
        }
    }

    /// pi-agent-core's `runLoop` (docs/guard.md#the-model).
    fn low_level_run(&mut self, prompt: Vec<String>, skip_initial_steering: bool) {
        self.core.low += 1;
        let (run, low) = (self.core.run, self.core.low);
        self.core.trace.push(Event::AgentStart { run, low });
        self.core.trace.push(Event::TurnStart { run });
        self.core.inject(prompt);
        let mut pending = match skip_initial_steering {
            true => Vec::new(),
            false => self.core.drain(Deliver::Steer),
        };
        let mut first_turn = true;
        loop {
            let mut more = true;
            while more || !pending.is_empty() {
                if !first_turn {
                    self.core.trace.push(Event::TurnStart { run });
                }
                first_turn = false;
                self.core.inject(std::mem::take(&mut pending));
                let Some(kind) = self.core.request() else {
                    return;
                };
                self.turn_end();
                if kind.ends_run_abruptly() {
                    self.agent_end();
                    return;
                }
                more = kind == ResponseKind::ToolUse;
                pending = self.core.drain(Deliver::Steer);
            }
            pending = self.core.drain(Deliver::FollowUp);
            if pending.is_empty() {
                break;
            }
        }
        self.agent_end();
    }

    fn turn_end(&mut self) {
        let run = self.core.run;
        let handlers = self.dispatch(Hook::TurnEnd);
        self.core.trace.push(Event::TurnEnd { run, handlers });
    }

    fn agent_end(&mut self) {
        let (run, low) = (self.core.run, self.core.low);
        let handlers = self.dispatch(Hook::AgentEnd);
        self.core.trace.push(Event::AgentEnd { run, low, handlers });
    }

    /// Emits `hook` to every extension in load order (each awaited in turn), then applies what the
    /// scripted user does at that moment.
    fn dispatch(&mut self, hook: Hook) -> Vec<Handled> {
        let nth = self.core.count(hook);
        let mut handled = Vec::new();
        for extension in &mut self.extensions {
            match extension {
                Extension::Guard(guard) => {
                    if let Some(did) = guard.on(hook, &mut self.core) {
                        handled.push(Handled {
                            ext: super::schedule::GUARD.to_string(),
                            did,
                            latch: Some(guard.latch()),
                        });
                    }
                }
                Extension::Scripted(name) => handled.extend(self.core.scripted(name, hook, nth)),
            }
        }
        handled.extend(self.core.scripted(USER, hook, nth));
        handled
    }

    /// `_handlePostAgentRun` (docs/guard.md#the-model): true when pi continues the logical run.
    fn post_run(&mut self) -> bool {
        let core = &mut self.core;
        let run = core.run;
        if std::mem::take(&mut core.esc_at_boundary) {
            core.esc();
            core.end_retry(false);
            return core.decide("esc", false);
        }
        if std::mem::take(&mut core.fatal_at_boundary) {
            core.trace.push(Event::SessionError {
                run,
                reason: "fatal session error".to_string(),
            });
            return false;
        }
        let Some(message) = core.last_assistant.take() else {
            return core.decide("stop", false);
        };
        if message.kind == ResponseKind::TransientError && core.prepare_retry() {
            return core.decide("retry", true);
        }
        if message.kind.stop_reason() == "error" {
            core.end_retry(false);
        }
        if core.check_compaction(message) {
            return core.decide("compaction", true);
        }
        let queued = core.has_queued();
        core.decide(if queued { "queued" } else { "stop" }, queued)
    }
}

impl Core<'_> {
    fn count(&mut self, hook: Hook) -> u32 {
        let counter = match hook {
            Hook::TurnEnd => &mut self.turn_ends,
            Hook::AgentEnd => &mut self.agent_ends,
            Hook::AgentSettled => &mut self.settles,
        };
        *counter += 1;
        *counter
    }

    /// What `by` sends at the `nth` `hook`, as the schedule says.
    fn scripted(&mut self, by: &str, hook: Hook, nth: u32) -> Vec<Handled> {
        let schedule = self.schedule;
        let mut handled = Vec::new();
        for action in &schedule.queues {
            if action.by == by && action.at == hook && action.nth == nth {
                let idle = !self.streaming;
                self.send_user_message(by, action.deliver);
                handled.push(Handled {
                    ext: by.to_string(),
                    did: Did::Sent {
                        deliver: action.deliver,
                        idle,
                    },
                    latch: None,
                });
            }
        }
        handled
    }

    fn decide(&mut self, decision: &str, continues: bool) -> bool {
        self.trace.push(Event::PostRun {
            run: self.run,
            decision: decision.to_string(),
        });
        continues
    }

    fn has_queued(&self) -> bool {
        !self.steering.is_empty() || !self.follow_up.is_empty()
    }

    /// One drain of a queue, in the configured mode.
    fn drain(&mut self, which: Deliver) -> Vec<String> {
        let mode = self.schedule.settings.queue_mode;
        let queue = match which {
            Deliver::Steer => &mut self.steering,
            Deliver::FollowUp => &mut self.follow_up,
        };
        let take = match mode {
            QueueMode::OneAtATime => queue.len().min(1),
            QueueMode::All => queue.len(),
        };
        queue.drain(..take).collect()
    }

    /// Appends user messages to the transcript (`message_start`/`message_end`). (It leaves
    /// `ends_with_assistant` alone: a request always follows, and sets it before anything reads it.)
    fn inject(&mut self, senders: Vec<String>) {
        self.fresh.extend(senders);
    }

    /// One model request and its response; `None` once the request budget is spent.
    fn request(&mut self) -> Option<ResponseKind> {
        let run = self.run;
        if self.requests >= MAX_REQUESTS {
            self.trace.push(Event::Truncated {
                requests: self.requests,
            });
            self.truncated = true;
            return None;
        }
        self.requests += 1;
        let request = self.requests;
        let scripted = self
            .schedule
            .responses
            .get(request as usize - 1)
            .cloned()
            .unwrap_or_default();
        let delivered = std::mem::take(&mut self.fresh);
        self.trace.push(Event::LlmRequest {
            run,
            request,
            delivered,
        });
        let Response {
            mut kind,
            over_threshold,
            supervision,
            esc,
            fatal,
        } = scripted;
        if let Some(health) = supervision {
            self.healthy = health == Health::Healthy;
            self.trace.push(Event::Supervision {
                healthy: self.healthy,
            });
        }
        match esc {
            Some(Esc::Streaming) => {
                self.esc();
                kind = ResponseKind::Aborted;
            }
            Some(Esc::Boundary) => self.esc_at_boundary = true,
            None => {}
        }
        self.fatal_at_boundary |= fatal;
        self.trace.push(Event::Response {
            run,
            request,
            kind,
            stop_reason: kind.stop_reason().to_string(),
        });
        // Tool results follow a tool-use message; every other response ends the transcript.
        self.ends_with_assistant = kind != ResponseKind::ToolUse;
        if kind.stop_reason() != "error" {
            self.end_retry(true);
            self.overflow_recovery_attempted = false;
        }
        self.last_assistant = Some(LastAssistant {
            kind,
            over_threshold,
        });
        Some(kind)
    }

    /// Interactive ESC: queued texts move back to the editor.
    fn esc(&mut self) {
        let moved = self
            .steering
            .drain(..)
            .chain(self.follow_up.drain(..))
            .collect();
        self.trace.push(Event::Esc {
            run: self.run,
            moved,
        });
    }

    /// `auto_retry_end`, when a retry sequence is in progress.
    fn end_retry(&mut self, success: bool) {
        if self.retry_attempt > 0 {
            self.retry_attempt = 0;
            self.trace.push(Event::AutoRetryEnd {
                run: self.run,
                success,
            });
        }
    }

    /// `_prepareRetry`: within the attempt limit, drop the error message and retry.
    fn prepare_retry(&mut self) -> bool {
        let settings = &self.schedule.settings;
        if !settings.retry || self.retry_attempt >= settings.max_retries {
            return false;
        }
        self.retry_attempt += 1;
        self.ends_with_assistant = false;
        self.trace.push(Event::AutoRetryStart {
            run: self.run,
            attempt: self.retry_attempt,
        });
        true
    }

    /// `_checkCompaction`: overflow recovery (once, with retry) or threshold compaction (continue
    /// only when messages are queued).
    fn check_compaction(&mut self, message: LastAssistant) -> bool {
        if !self.schedule.settings.compaction || message.kind == ResponseKind::Aborted {
            return false;
        }
        let run = self.run;
        if message.kind == ResponseKind::Overflow && !self.overflow_recovery_attempted {
            self.trace.push(Event::Compaction {
                run,
                reason: "overflow".to_string(),
            });
            self.overflow_recovery_attempted = true;
            self.ends_with_assistant = false;
            return true;
        }
        if message.kind.stop_reason() == "error" || !message.over_threshold {
            return false;
        }
        self.trace.push(Event::Compaction {
            run,
            reason: "threshold".to_string(),
        });
        self.has_queued()
    }
}
