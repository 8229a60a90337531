//! Schedules from fuzz bytes (`arbitrary`, for libFuzzer and `ctxfuzz fuzz`) and as proptest
//! strategies (for shrinking). Both faces draw from the same weighted tables and bounds below, so
//! they explore the same space with the same emphasis.

use arbitrary::Unstructured;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Union};

use super::schedule::{
    Deliver, Esc, Health, Hook, QueueAction, QueueMode, Response, ResponseKind, Schedule, Settings,
    USER, bounds,
};

/// Response kinds and their weights: mostly ordinary turns, with every boundary pi has
/// (retryable errors, overflow, fatal errors, aborts) reached often.
const KINDS: [(u32, ResponseKind); 6] = [
    (6, ResponseKind::Stop),
    (5, ResponseKind::ToolUse),
    (4, ResponseKind::TransientError),
    (2, ResponseKind::Error),
    (2, ResponseKind::Overflow),
    (1, ResponseKind::Aborted),
];

/// Supervision changes attached to a response (`None`: unchanged).
const HEALTH: [(u32, Option<Health>); 3] = [
    (6, None),
    (2, Some(Health::Unhealthy)),
    (1, Some(Health::Healthy)),
];

/// ESC attached to a response.
const ESC: [(u32, Option<Esc>); 3] = [
    (12, None),
    (1, Some(Esc::Streaming)),
    (1, Some(Esc::Boundary)),
];

const HOOKS: [(u32, Hook); 3] = [
    (3, Hook::AgentEnd),
    (2, Hook::TurnEnd),
    (1, Hook::AgentSettled),
];

const DELIVERS: [(u32, Deliver); 2] = [(2, Deliver::FollowUp), (1, Deliver::Steer)];

/// Who queues: the user or one of the other extensions (`ext1`, `ext2`).
fn queuer(index: usize) -> String {
    match index {
        0 => USER.to_string(),
        n => format!("ext{n}"),
    }
}

/// Where the guard sits among the other extensions: `load_order` lists `ext1..extN` with the
/// guard inserted at `guard_at` (empty, the default order, when there are none).
fn load_order(others: usize, guard_at: usize) -> Vec<String> {
    if others == 0 {
        return Vec::new();
    }
    let mut order: Vec<String> = (1..=others).map(queuer).collect();
    order.insert(guard_at.min(others), super::schedule::GUARD.to_string());
    order
}

fn pick<T: Copy>(u: &mut Unstructured<'_>, table: &[(u32, T)]) -> arbitrary::Result<T> {
    let total: u32 = table.iter().map(|(weight, _)| weight).sum();
    let mut roll = u.int_in_range(0..=total - 1)?;
    for &(weight, value) in table {
        if roll < weight {
            return Ok(value);
        }
        roll -= weight;
    }
    unreachable!("the roll is below the total weight")
}

fn weighted<T: Clone + std::fmt::Debug + 'static>(table: &[(u32, T)]) -> BoxedStrategy<T> {
    Union::new_weighted(
        table
            .iter()
            .map(|(weight, value)| (*weight, Just(value.clone()).boxed()))
            .collect(),
    )
    .boxed()
}

/// One schedule from fuzz bytes.
pub fn schedule(u: &mut Unstructured<'_>) -> arbitrary::Result<Schedule> {
    let prompts = u.int_in_range(1..=bounds::MAX_PROMPTS)?;
    let unhealthy = u.ratio(1, 2)?;
    let mut responses = Vec::new();
    for _ in 0..u.int_in_range(0..=bounds::MAX_RESPONSES)? {
        responses.push(Response {
            kind: pick(u, &KINDS)?,
            over_threshold: u.ratio(1, 8)?,
            supervision: pick(u, &HEALTH)?,
            esc: pick(u, &ESC)?,
            fatal: u.ratio(1, 16)?,
        });
    }
    let others = u.int_in_range(0..=bounds::MAX_OTHER_EXTENSIONS)?;
    let mut queues = Vec::new();
    for _ in 0..u.int_in_range(0..=bounds::MAX_QUEUES)? {
        queues.push(QueueAction {
            by: queuer(u.int_in_range(0..=others)?),
            at: pick(u, &HOOKS)?,
            nth: u.int_in_range(1..=bounds::MAX_NTH)?,
            deliver: pick(u, &DELIVERS)?,
        });
    }
    let load_order = load_order(others, u.int_in_range(0..=others)?);
    let mut delivery_failures = Vec::new();
    for _ in 0..u.int_in_range(0..=bounds::MAX_DELIVERY_FAILURES)? {
        if u.ratio(1, 3)? {
            delivery_failures.push(u.int_in_range(1..=3)?);
        }
    }
    let settings = Settings {
        retry: !u.ratio(1, 8)?,
        max_retries: u.int_in_range(0..=4)?,
        compaction: !u.ratio(1, 8)?,
        queue_mode: if u.ratio(1, 4)? {
            QueueMode::All
        } else {
            QueueMode::OneAtATime
        },
        print_mode: u.ratio(1, 8)?,
    };
    Ok(Schedule {
        prompts,
        unhealthy,
        responses,
        queues,
        load_order,
        delivery_failures,
        settings,
    })
}

fn response_strategy() -> impl Strategy<Value = Response> {
    (
        weighted(&KINDS),
        prop::bool::weighted(1.0 / 8.0),
        weighted(&HEALTH),
        weighted(&ESC),
        prop::bool::weighted(1.0 / 16.0),
    )
        .prop_map(|(kind, over_threshold, supervision, esc, fatal)| Response {
            kind,
            over_threshold,
            supervision,
            esc,
            fatal,
        })
}

fn settings_strategy() -> impl Strategy<Value = Settings> {
    // Every flag shrinks towards pi's default (`false` is the default for each of them).
    (
        prop::bool::weighted(1.0 / 8.0),
        0..=4u8,
        prop::bool::weighted(1.0 / 8.0),
        prop::bool::weighted(1.0 / 4.0),
        prop::bool::weighted(1.0 / 8.0),
    )
        .prop_map(
            |(no_retry, max_retries, no_compaction, all, print_mode)| Settings {
                retry: !no_retry,
                max_retries,
                compaction: !no_compaction,
                queue_mode: if all {
                    QueueMode::All
                } else {
                    QueueMode::OneAtATime
                },
                print_mode,
            },
        )
}

/// Schedules as a proptest strategy (shrinks towards fewer prompts, responses and actions).
pub fn schedule_strategy() -> impl Strategy<Value = Schedule> {
    (0..=bounds::MAX_OTHER_EXTENSIONS).prop_flat_map(|others| {
        let queue = (
            0..=others,
            weighted(&HOOKS),
            1..=bounds::MAX_NTH,
            weighted(&DELIVERS),
        )
            .prop_map(|(by, at, nth, deliver)| QueueAction {
                by: queuer(by),
                at,
                nth,
                deliver,
            });
        (
            1..=bounds::MAX_PROMPTS,
            any::<bool>(),
            prop::collection::vec(response_strategy(), 0..=bounds::MAX_RESPONSES),
            prop::collection::vec(queue, 0..=bounds::MAX_QUEUES),
            0..=others,
            prop::collection::vec(1..=3u32, 0..=bounds::MAX_DELIVERY_FAILURES),
            settings_strategy(),
        )
            .prop_map(
                move |(
                    prompts,
                    unhealthy,
                    responses,
                    queues,
                    guard_at,
                    delivery_failures,
                    settings,
                )| Schedule {
                    prompts,
                    unhealthy,
                    responses,
                    queues,
                    load_order: load_order(others, guard_at),
                    delivery_failures,
                    settings,
                },
            )
    })
}
