//! pi transcripts (`AgentMessage` arrays) from fuzz bytes.
//!
//! Mostly realistic turns (`user → assistant(calls) → results`, then maybe a closing text-only
//! assistant) with damage applied to some of them: results dropped, duplicated, swapped, moved
//! after a later assistant or before their call, a foreign message spliced between a call and its
//! results; rarer message forms (error/aborted/length/pending/deferred assistants, other-model
//! assistants with ids pi's sanitising collapses or truncates, non-ASCII ids, null/missing/string
//! content, images, huge bodies, non-object entries, 10k+ message transcripts). What real
//! programs write is here too: empty and whitespace-only texts, a thinking block without its
//! optional signature, and a leading system message (the bridges write it where the format has
//! one; docs/contracts.md#shapes-the-generators-write counts each shape per format).
//!
//! Every choice is a weighted pick where the byte value 0 selects the most ordinary option, so an
//! exhausted input ends the transcript with ordinary turns and shrinking the bytes (proptest,
//! libFuzzer's minimiser) moves toward ordinary transcripts.

use std::borrow::Cow;

use arbitrary::{Result, Unstructured};
use ctxfuzz_oracles::js_value::JsValue;
use proptest::collection::vec;
use proptest::prelude::*;

use crate::transcript::build::Build;
use crate::transcript::shapes::{BarrierKind, HUGE_BODY, LONG_TRANSCRIPT, Model, TARGET_MODEL};

mod call_ids;

use call_ids::{
    COLLAPSING_IDS, CallId, IdPrefix, IdStyle, LONG_IDS, OTHER_MODEL_IDS, SAME_MODEL_IDS, id_value,
};

/// The model of "cross-model" assistants.
pub const OTHER_MODEL: Model = Model {
    api: "openai-responses",
    provider: "openai",
    model: "gpt-5",
};

/// One transcript from `u`, as `Value`s or as the oracle's `JsValue`s ([`Build`]). Never fails for
/// lack of bytes: an exhausted input yields ordinary turns.
pub fn transcript<B: Build>(u: &mut Unstructured<'_>) -> Result<Vec<B>> {
    let mut written = Written::default();
    let mut g = Generator { u, w: &mut written };
    let paid_for = g.u.len() >= LONG_INPUT_BYTES;
    let long = g.rare(LONG_PER_65536)? && paid_for;
    if g.coin(LEADING_SYSTEM_PER_1000)? {
        let system = g.system_prompt()?;
        g.w.out.push(system);
    }
    let turns = g.u.int_in_range(1..=7)?;
    for _ in 0..turns {
        g.turn()?;
    }
    if long {
        while g.w.out.len() < LONG_TRANSCRIPT {
            g.turn()?;
        }
    }
    Ok(written.finish())
}

/// One transcript with each turn decoded from its own bytes: the same turns as [`transcript`],
/// framed so that dropping a chunk drops a turn (what makes the proptest face shrink well).
pub fn from_turns<B: Build>(turns: &[Vec<u8>]) -> Vec<B> {
    let mut written = Written::default();
    for bytes in turns {
        let mut g = Generator {
            u: &mut Unstructured::new(bytes),
            w: &mut written,
        };
        g.turn().expect("the decoder never fails");
    }
    written.finish()
}

/// The proptest face: up to seven turns of up to [`TURN_BYTES`] bytes each. Shrinking removes
/// whole turns, then moves each turn's bytes toward 0, that is toward an ordinary turn.
pub fn strategy() -> impl Strategy<Value = Vec<JsValue<'static>>> {
    vec(vec(any::<u8>(), 0..=TURN_BYTES), 1..=7).prop_map(|turns| from_turns(&turns))
}

/// More bytes than the most elaborate turn consumes.
pub const TURN_BYTES: usize = 96;

/// The transcript of one seed: `transcript` over [`super::seeded_bytes`]`(seed, SEED_BYTES)`.
pub fn from_seed<B: Build>(seed: u64) -> Vec<B> {
    let bytes = super::seeded_bytes(seed, SEED_BYTES);
    transcript(&mut Unstructured::new(&bytes)).expect("the decoder never fails")
}

/// Bytes per seeded case: more than a seven-turn transcript consumes.
pub const SEED_BYTES: usize = 512;

/// About 1 in 3,300 transcripts is long (10k+ messages).
const LONG_PER_65536: u16 = 20;
/// A transcript is long only when its input has at least this many bytes. A coverage-guided
/// fuzzer starts from inputs of a few bytes and solves the 1-in-3,300 draw within seconds (its
/// compare tracing hands it the constant): without this bound most of libFuzzer's time went to
/// 10k-message cases from 2-byte inputs, each costing as much as hundreds of ordinary ones. Tied to
/// the input's length, the cost grows as libFuzzer lets inputs grow; seeded cases
/// ([`SEED_BYTES`]) and most of the in-process loop's (up to 2,048 bytes) are long enough.
const LONG_INPUT_BYTES: usize = 256;
/// About 1 in 10 transcripts opens with a system message (as chat transcripts do; Anthropic and
/// Gemini keep the system prompt outside the messages, so there the case is skipped and counted).
const LEADING_SYSTEM_PER_1000: u16 = 100;
/// About 1 in 800 tool results carries a huge body.
const HUGE_PER_65536: u16 = 80;
/// Where the draws of [`Generator::rare`] that say yes start: the middle of the range, away from
/// the bytes 0x00 and 0xFF and from small integers, which libFuzzer's mutations write far more
/// often than uniform bytes have them. With the band at the top of the range, libFuzzer drew the
/// 1-in-800 huge body once every six sweep cases and the 1-in-3,300 long transcript once in 600
/// (docs/figures.md#outsized-inputs).
const RARE_BAND: u16 = 0x5A60;

/// What the turns decoded so far leave for the next one.
struct Written<B> {
    out: Vec<B>,
    /// Results held back to be emitted after the next assistant's results ("late").
    late: Vec<B>,
    /// Call ids used so far (for ids reused across turns).
    called: Vec<CallId>,
    next_id: u32,
    clock: u64,
}

impl<B> Default for Written<B> {
    fn default() -> Self {
        Written {
            out: Vec::with_capacity(24),
            late: Vec::new(),
            called: Vec::new(),
            next_id: 0,
            clock: 1_000,
        }
    }
}

impl<B> Written<B> {
    /// The transcript, with the results still held back at the end.
    fn finish(mut self) -> Vec<B> {
        self.out.append(&mut self.late);
        self.out
    }
}

struct Generator<'w, 'u, 'd, B> {
    u: &'u mut Unstructured<'d>,
    w: &'w mut Written<B>,
}

/// What happens to one turn's results.
#[derive(Clone, Copy)]
enum Damage {
    None,
    Drop,
    Duplicate,
    Swap,
    Barrier,
    Late,
    Early,
}

const DAMAGE: [(Damage, u16); 7] = [
    (Damage::None, 620),
    (Damage::Barrier, 150),
    (Damage::Drop, 60),
    (Damage::Duplicate, 50),
    (Damage::Swap, 40),
    (Damage::Late, 40),
    (Damage::Early, 40),
];

const STOPS: [(&str, u16); 8] = [
    ("toolUse", 800),
    ("stop", 50),
    ("error", 35),
    ("aborted", 35),
    ("length", 25),
    ("pending", 20),
    ("deferred", 20),
    ("refusal", 15),
];

const BARRIERS: [(BarrierKind, u16); 9] = [
    (BarrierKind::User, 200),
    (BarrierKind::Custom, 200),
    (BarrierKind::BranchSummary, 100),
    (BarrierKind::CompactionSummary, 100),
    (BarrierKind::BashExecution, 100),
    (BarrierKind::BashExecutionExcluded, 100),
    (BarrierKind::System, 80),
    (BarrierKind::UnknownRole, 80),
    (BarrierKind::NoRole, 25),
];

/// How a `content` field is written: the usual array, or one of the malformed forms.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    Array,
    Null,
    Missing,
    Text,
}

const FORMS: [(Form, u16); 4] = [
    (Form::Array, 985),
    (Form::Null, 5),
    (Form::Missing, 5),
    (Form::Text, 5),
];

/// pi throws on an assistant or a tool result with string content, so such cases cannot be
/// judged: keep them rare.
const RARELY_TEXT_FORMS: [(Form, u16); 4] = [
    (Form::Array, 989),
    (Form::Null, 5),
    (Form::Missing, 5),
    (Form::Text, 1),
];

const TOOLS: [&str; 4] = ["bash", "read", "edit", "write"];

const TEXTS: [&str; 4] = ["ok", "done", "fn main() {}", "error: not found"];

/// A tool's output: mostly ordinary; empty (a command that printed nothing) and whitespace-only
/// bodies are what real tools return too.
const RESULT_TEXTS: [(&str, u16); 6] = [
    ("ok", 240),
    ("done", 240),
    ("fn main() {}", 240),
    ("error: not found", 240),
    ("", 25),
    ("\n", 15),
];

/// A user's message: sometimes empty or only whitespace (a client that sends what was typed).
const USER_TEXTS: [(&str, u16); 5] = [
    ("go on", 320),
    ("fix the build", 320),
    ("¿qué pasa?", 320),
    ("", 20),
    ("  \n", 20),
];

/// An assistant's text beside its calls: sometimes an empty text block, as providers stream one.
const ASSISTANT_TEXTS: [(&str, u16); 3] = [("working on it", 940), ("", 40), (" ", 20)];

const SYSTEM_PROMPTS: [(&str, u16); 3] = [("You are a coding agent.", 900), ("", 50), ("\n\n", 50)];

impl<B: Build> Generator<'_, '_, '_, B> {
    /// A weighted choice; the byte value 0 (and an exhausted input) picks the first option.
    fn pick<T: Clone>(&mut self, options: &[(T, u16)]) -> Result<T> {
        let total: u16 = options.iter().map(|(_, w)| w).sum();
        let mut draw = self.u.int_in_range(0..=total - 1)?;
        for (option, weight) in options {
            if draw < *weight {
                return Ok(option.clone());
            }
            draw -= weight;
        }
        unreachable!("draw < total")
    }

    /// True about `per_65536` times in 65,536 on uniform bytes; false on an exhausted input.
    fn rare(&mut self, per_65536: u16) -> Result<bool> {
        let draw: u16 = self.u.arbitrary()?;
        Ok(draw.wrapping_sub(RARE_BAND) < per_65536)
    }

    fn coin(&mut self, per_1000: u16) -> Result<bool> {
        self.pick(&[(false, 1000 - per_1000), (true, per_1000)])
    }

    fn tick(&mut self) -> B {
        self.w.clock += 1;
        B::number(self.w.clock)
    }

    fn turn(&mut self) -> Result<()> {
        if !self.coin(100)? {
            let user = self.user()?;
            self.w.out.push(user);
        }
        let other_model = self.coin(150)?;
        let calls = self.pick(&[(1usize, 450), (2, 250), (3, 100), (4, 50), (0, 150)])?;
        let mut ids = Vec::with_capacity(calls);
        for _ in 0..calls {
            ids.push(self.call_id(other_model)?);
        }
        let mut results = Vec::with_capacity(calls);
        for id in &ids {
            results.push(self.result(id)?);
        }
        let assistant = self.assistant(&ids, other_model)?;
        let mut held_back = std::mem::take(&mut self.w.late);
        let mut before = Vec::new();
        self.damage(&mut before, &mut results)?;
        self.w.out.append(&mut before);
        self.w.out.push(assistant);
        self.w.out.append(&mut results);
        self.w.out.append(&mut held_back);
        if self.coin(250)? {
            let closing = self.assistant(&[], false)?;
            self.w.out.push(closing);
        }
        if self.coin(30)? {
            let barrier = self.barrier()?;
            self.w.out.push(barrier);
        }
        Ok(())
    }

    /// Applies zero to three kinds of damage to one turn's results.
    fn damage(&mut self, before: &mut Vec<B>, results: &mut Vec<B>) -> Result<()> {
        for _ in 0..3 {
            let damage = self.pick(&DAMAGE)?;
            if matches!(damage, Damage::None) {
                break;
            }
            let n = results.len();
            match damage {
                Damage::None => {}
                Damage::Barrier => {
                    let at = self.u.int_in_range(0..=n)?;
                    let barrier = self.barrier()?;
                    results.insert(at, barrier);
                }
                _ if n == 0 => {}
                Damage::Drop => {
                    results.remove(self.u.choose_index(n)?);
                }
                Damage::Duplicate => {
                    let copy = results[self.u.choose_index(n)?].clone();
                    let at = self.u.int_in_range(0..=n)?;
                    results.insert(at, copy);
                }
                Damage::Swap => {
                    let (i, j) = (self.u.choose_index(n)?, self.u.choose_index(n)?);
                    results.swap(i, j);
                }
                Damage::Late => {
                    let moved = results.remove(self.u.choose_index(n)?);
                    self.w.late.push(moved);
                }
                Damage::Early => before.push(results.remove(self.u.choose_index(n)?)),
            }
        }
        Ok(())
    }

    fn call_id(&mut self, other_model: bool) -> Result<CallId> {
        let styles = if other_model {
            &OTHER_MODEL_IDS
        } else {
            &SAME_MODEL_IDS
        };
        let id = match self.pick(styles)? {
            IdStyle::Reused if !self.w.called.is_empty() => {
                let at = self.u.choose_index(self.w.called.len())?;
                return Ok(self.w.called[at].clone());
            }
            IdStyle::Fresh | IdStyle::Reused => self.fresh(IdPrefix::Tool),
            IdStyle::Collapsing => {
                let by_n = self.u.choose(&COLLAPSING_IDS)?;
                let n = self.u.int_in_range(0..=1u8)?;
                Cow::Borrowed(by_n[usize::from(n)])
            }
            IdStyle::Long => {
                let tail = self.u.int_in_range(0..=2u8)?;
                Cow::Borrowed(LONG_IDS[usize::from(tail)].as_str())
            }
            IdStyle::NonAscii => self.fresh(IdPrefix::NonAscii),
            IdStyle::Astral => self.fresh(IdPrefix::Astral),
        };
        self.w.called.push(id.clone());
        Ok(id)
    }

    fn fresh(&mut self, prefix: IdPrefix) -> CallId {
        self.w.next_id += 1;
        prefix.id(self.w.next_id)
    }

    fn content(&mut self, form: Form, blocks: Vec<B>) -> Option<B> {
        match form {
            Form::Array => Some(B::array(blocks)),
            Form::Null => Some(B::null()),
            Form::Missing => None,
            Form::Text => Some(B::text(TEXTS[self.w.out.len() % TEXTS.len()])),
        }
    }

    fn system_prompt(&mut self) -> Result<B> {
        let text = self.pick(&SYSTEM_PROMPTS)?;
        let timestamp = self.tick();
        Ok(message(
            "system",
            Some(B::text(text)),
            [("timestamp", timestamp)],
        ))
    }

    fn user(&mut self) -> Result<B> {
        let text = self.pick(&USER_TEXTS)?;
        let form = self.pick(&FORMS)?;
        let content = match form {
            // A plain string is an ordinary user message in pi.
            Form::Text => Some(B::text(text)),
            _ => self.content(form, vec![text_block(text)]),
        };
        Ok(message("user", content, [("timestamp", self.tick())]))
    }

    fn assistant(&mut self, ids: &[CallId], other_model: bool) -> Result<B> {
        let stop = if ids.is_empty() {
            "stop"
        } else {
            self.pick(&STOPS)?
        };
        let mut blocks = Vec::with_capacity(ids.len() + 2);
        if self.coin(150)? {
            let mut thinking = vec![
                ("type", B::text("thinking")),
                ("thinking", B::text("let me look")),
            ];
            // The signature is optional: a provider that signs nothing leaves it out.
            if !self.coin(100)? {
                thinking.push(("thinkingSignature", B::text("sig")));
            }
            blocks.push(B::object(thinking));
        }
        if ids.is_empty() || self.coin(400)? {
            let text = self.pick(&ASSISTANT_TEXTS)?;
            blocks.push(text_block(text));
        }
        for id in ids {
            let tool = TOOLS[id.len() % TOOLS.len()];
            blocks.push(B::object(vec![
                ("type", B::text("toolCall")),
                ("id", id_value(id)),
                ("name", B::text(tool)),
                ("arguments", B::object(vec![("path", B::text("a.rs"))])),
            ]));
        }
        let form = self.pick(&RARELY_TEXT_FORMS)?;
        let content = self.content(form, blocks);
        let model = if other_model {
            OTHER_MODEL
        } else {
            TARGET_MODEL
        };
        Ok(message(
            "assistant",
            content,
            [
                ("api", B::text(model.api)),
                ("provider", B::text(model.provider)),
                ("model", B::text(model.model)),
                ("stopReason", B::text(stop)),
                ("timestamp", self.tick()),
            ],
        ))
    }

    fn result(&mut self, id: &CallId) -> Result<B> {
        let body = if self.rare(HUGE_PER_65536)? {
            B::object(vec![
                ("type", B::text("text")),
                ("text", B::string("x".repeat(HUGE_BODY + 1))),
            ])
        } else {
            text_block(self.pick(&RESULT_TEXTS)?)
        };
        let mut blocks = vec![body];
        if self.coin(40)? {
            blocks.push(B::object(vec![
                ("type", B::text("image")),
                ("data", B::text("iVBORw0KGgo=")),
                ("mimeType", B::text("image/png")),
            ]));
        }
        let form = self.pick(&RARELY_TEXT_FORMS)?;
        let content = self.content(form, blocks);
        let is_error = self.coin(80)?;
        let tool = TOOLS[id.len() % TOOLS.len()];
        Ok(message(
            "toolResult",
            content,
            [
                ("toolCallId", id_value(id)),
                ("toolName", B::text(tool)),
                ("isError", B::bool(is_error)),
                ("timestamp", self.tick()),
            ],
        ))
    }

    fn barrier(&mut self) -> Result<B> {
        let kind = self.pick(&BARRIERS)?;
        let timestamp = self.tick();
        let bash = |excluded: bool| {
            let mut fields = vec![
                ("role", B::text("bashExecution")),
                ("command", B::text("make")),
                ("output", B::text("ok")),
                ("exitCode", B::number(0)),
                ("cancelled", B::bool(false)),
                ("truncated", B::bool(false)),
            ];
            if excluded {
                fields.push(("excludeFromContext", B::bool(true)));
            }
            fields
        };
        let fields = match kind {
            BarrierKind::User => vec![
                ("role", B::text("user")),
                ("content", B::text("wait, also check tests")),
            ],
            BarrierKind::Custom => vec![
                ("role", B::text("custom")),
                ("customType", B::text("subagent_control_notice")),
                ("content", B::text("steer: hurry up")),
                ("display", B::bool(true)),
            ],
            BarrierKind::BranchSummary => vec![
                ("role", B::text("branchSummary")),
                ("summary", B::text("tried A")),
                ("fromId", B::text("e1")),
            ],
            BarrierKind::CompactionSummary => vec![
                ("role", B::text("compactionSummary")),
                ("summary", B::text("earlier work")),
                ("tokensBefore", B::number(1234)),
            ],
            BarrierKind::BashExecution => bash(false),
            BarrierKind::BashExecutionExcluded => bash(true),
            BarrierKind::System => vec![
                ("role", B::text("system")),
                ("content", B::text("be brief")),
            ],
            BarrierKind::UnknownRole => {
                vec![("role", B::text("future-role")), ("content", B::text("?"))]
            }
            BarrierKind::NoRole => {
                return Ok(match self.u.choose_index(4)? {
                    0 => B::null(),
                    1 => B::number(42),
                    2 => B::text("text"),
                    _ => B::object(vec![("content", B::text("no role"))]),
                });
            }
        };
        let mut fields = fields;
        fields.push(("timestamp", timestamp));
        Ok(B::object(fields))
    }
}

fn text_block<B: Build>(text: &'static str) -> B {
    B::object(vec![("type", B::text("text")), ("text", B::text(text))])
}

/// A message: its role, its content unless missing, then `fields`.
fn message<B: Build, const N: usize>(
    role: &'static str,
    content: Option<B>,
    fields: [(&'static str, B); N],
) -> B {
    let mut object = Vec::with_capacity(N + 2);
    object.push(("role", B::text(role)));
    if let Some(content) = content {
        object.push(("content", content));
    }
    object.extend(fields);
    B::object(object)
}
