//! The Firstmate turn-end guard extension (docs/guard.md), in its three historical wirings.
//!
//! The handler body is the same in all three: a set latch is consumed without running the
//! predicate (the follow-up's own run just ended); otherwise the predicate runs and, when it exits
//! 2, the latch is set and the recovery instruction is sent as a follow-up (a delivery failure
//! resets the latch). The variants differ only in which events run it.

use ctxfuzz_oracles::error::{Named, UnknownName, unknown};
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

use super::schedule::{Deliver, GUARD, Hook};
use super::trace::Did;

/// Which events the guard is wired to.
#[derive(Display, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case", parse_err_ty = UnknownName, parse_err_fn = unknown::<Self>)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GuardWiring {
    /// The original (Firstmate `main`): the body runs on `agent_settled`, after the idle signal.
    Settled,
    /// The body runs on `agent_end`; nothing releases the latch when a run dies after queueing.
    EndNoRelease,
    /// The fix (PR head `20ca39f0`): the body on `agent_end`, and `agent_settled` releases the
    /// latch.
    #[default]
    EndRelease,
}

impl Named for GuardWiring {
    const KIND: &'static str = "guard variant";
}

/// What the guard needs from its surroundings: the predicate (`bin/fm-turnend-guard.sh`, whose
/// result is an input of the model) and `pi.sendUserMessage`.
pub trait Host {
    /// The predicate's exit code: 2 blocks the turn end, anything else allows it.
    fn predicate(&self) -> u8;
    /// `pi.sendUserMessage(content, {deliverAs})`: queued while streaming, a new logical run while
    /// idle.
    fn send_user_message(&mut self, from: &str, deliver: Deliver);
}

/// The guard extension's state: the latch (module-global in the real extension, so it outlives
/// logical runs) and the count of deliveries it attempted.
#[derive(Debug, Clone)]
pub struct TurnEndGuard {
    variant: GuardWiring,
    latch: bool,
    deliveries: u32,
    failing_deliveries: Vec<u32>,
}

impl TurnEndGuard {
    /// `failing_deliveries`: the 1-based delivery attempts whose `sendUserMessage` throws.
    pub fn new(variant: GuardWiring, failing_deliveries: Vec<u32>) -> TurnEndGuard {
        TurnEndGuard {
            variant,
            latch: false,
            deliveries: 0,
            failing_deliveries,
        }
    }

    pub fn latch(&self) -> bool {
        self.latch
    }

    /// Runs the guard's handler for `hook`, if this variant registers one.
    pub fn on(&mut self, hook: Hook, host: &mut dyn Host) -> Option<Did> {
        match (self.variant, hook) {
            (GuardWiring::Settled, Hook::AgentSettled)
            | (GuardWiring::EndNoRelease | GuardWiring::EndRelease, Hook::AgentEnd) => {
                Some(self.body(host))
            }
            (GuardWiring::EndRelease, Hook::AgentSettled) => {
                let was = self.latch;
                self.latch = false;
                Some(Did::Released { was })
            }
            _ => None,
        }
    }

    fn body(&mut self, host: &mut dyn Host) -> Did {
        if self.latch {
            self.latch = false;
            return Did::Consumed;
        }
        let predicate = host.predicate();
        if predicate != 2 {
            return Did::Allowed { predicate };
        }
        self.latch = true;
        self.deliveries += 1;
        if self.failing_deliveries.contains(&self.deliveries) {
            self.latch = false;
            return Did::DeliveryFailed { predicate };
        }
        host.send_user_message(GUARD, Deliver::FollowUp);
        Did::Blocked {
            predicate,
            deliver: Deliver::FollowUp,
        }
    }
}
