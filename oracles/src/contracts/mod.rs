//! Contracts for external programs: what any implementation of a kind of transcript rewriter must
//! never do, judged in the program's own format through [`crate::formats::Entry`] views.
//!
//! - [`repair`]: may drop tool results, add synthetic ones and move results next to their calls.
//! - [`cut`]: returns the first kept index of a compaction.
//! - [`prune`]: removes calls, results, reasoning and the messages left empty, adds nothing but
//!   one marked notice, repairs nothing.
//! - [`trim`]: a window: as a prune, and whole messages of any role may go too.
//!
//! (The sweep contract, removal only, is `crate::invariants::sweep`.) Every check returns
//! `Vec<Violation>` (empty = holds); the ids are stable and listed in each module's `INVARIANTS`,
//! and [`ALL`] names them for `ctxfuzz explain`.

pub mod cut;
pub mod prune;
pub mod repair;
pub mod trim;

use serde::Serialize;

use crate::error::{Named, UnknownName, unknown};
use crate::invariants::Group;
use crate::js::Json;
use crate::js_value::JsValue;
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

/// Whether `value` carries `marker`, the text a package puts in what it adds (a repair's synthetic
/// result, a pruner's notice): looked for in the value's JSON text.
fn carries_marker(value: &impl Serialize, marker: &str) -> bool {
    serde_json::to_string(value).is_ok_and(|text| text.contains(marker))
}

/// The invariants of each contract, and the page that explains them. (The cut contract judges
/// the compaction's `compaction-no-new-orphans` too.)
pub const ALL: &[Group] = &[
    Group {
        name: "the repair contract",
        page: "docs/contracts.md#the-repair-contract-oraclessrccontractsrepairrs",
        invariants: repair::INVARIANTS,
    },
    Group {
        name: "the prune contract",
        page: "docs/contracts.md#the-prune-contract-oraclessrccontractspruners",
        invariants: prune::INVARIANTS,
    },
    Group {
        name: "the trim contract",
        page: "docs/contracts.md#the-trim-contract-oraclessrccontractstrimrs",
        invariants: trim::INVARIANTS,
    },
    Group {
        name: "the cut contract",
        page: "docs/contracts.md#the-cut-contract-oraclessrccontractscutrs",
        invariants: cut::INVARIANTS,
    },
];

/// A contract, by the name `--contract` takes.
#[derive(Display, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "lowercase", parse_err_ty = UnknownName, parse_err_fn = unknown::<Self>)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContractKind {
    Sweep,
    Repair,
    Cut,
    Prune,
    Trim,
}

impl Named for ContractKind {
    const KIND: &'static str = "contract";
}

/// A message of the input or of the output, with its index there.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MessageAt {
    Input {
        input_message: usize,
        value: JsValue<'static>,
    },
    Output {
        output_message: usize,
        value: JsValue<'static>,
    },
}

impl MessageAt {
    fn input<J: Json>(input_message: usize, value: &J) -> Self {
        let value = value.to_js().owned_copy();
        MessageAt::Input {
            input_message,
            value,
        }
    }

    fn output<J: Json>(output_message: usize, value: &J) -> Self {
        let value = value.to_js().owned_copy();
        MessageAt::Output {
            output_message,
            value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contract_reads_back_from_its_name_and_an_unknown_one_lists_them() {
        for &contract in ContractKind::all() {
            assert_eq!(contract.to_string().parse(), Ok(contract));
        }
        assert_eq!(
            "window".parse::<ContractKind>().unwrap_err().to_string(),
            "unknown contract `window` (known: sweep, repair, cut, prune, trim)"
        );
    }
}
