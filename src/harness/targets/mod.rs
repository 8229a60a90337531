//! The target registry: every target `ctxfuzz fuzz --target`, `ctxfuzz replay` and the cargo-fuzz
//! package can run, built by name. One file per target; one line per target in [`REGISTRY`].

use anyhow::{Result, bail};
use ctxfuzz_oracles::error::Named;
use ctxfuzz_oracles::pi::Provider;

use super::profile::Profile;
use super::target::{DynTarget, Target};
use crate::transcript::case::CaseFile;

mod compaction;
pub mod contract;
pub mod differential;
mod guard;
pub mod oracle_json;
mod pi_transcript;
mod pipeline;
mod sweep;

/// For tests that judge a compaction by hand.
pub use compaction::observed_tracker_calls;

/// Builds a target from the name of a variant of its system under test (`None`: the target's
/// default), read into the target's own type ([`Target::Variant`]), and a profile.
pub type TargetBuilder = fn(variant: Option<&str>, profile: &Profile) -> Result<Box<dyn DynTarget>>;

/// Every registered target, in the order `ctxfuzz fuzz` with no arguments runs them.
const REGISTRY: &[(&str, TargetBuilder)] = &[
    ("sweep", built::<sweep::SweepTarget>),
    ("oracle-json", built::<oracle_json::OracleJson>),
    ("differential", built::<differential::Differential>),
    ("compaction", built::<compaction::CompactionTarget>),
    ("pipeline", built::<pipeline::PipelineTarget>),
    ("guard", built::<guard::GuardTarget>),
    ("contract", built::<contract::ContractTarget>),
];

/// The [`TargetBuilder`] of `T`: the variant's name is read here, the one place it is parsed.
fn built<T: Target + 'static>(
    variant: Option<&str>,
    profile: &Profile,
) -> Result<Box<dyn DynTarget>> {
    let variant = variant.map(str::parse).transpose().map_err(Into::into)?;
    Ok(Box::new(T::build(variant, profile)?))
}

/// Targets that fuzz an external program and so need one (`--sut`): not run by default.
const NEED_A_PROGRAM: &[&str] = &["contract"];

/// The names of every registered target.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|(name, _)| *name).collect()
}

/// The targets `ctxfuzz fuzz` runs when none is named: every one that needs no external program.
pub fn default_names() -> Vec<&'static str> {
    names()
        .into_iter()
        .filter(|name| !NEED_A_PROGRAM.contains(name))
        .collect()
}

/// Targets that judge the request body pi builds for a provider (`--provider`); every other
/// target judges no provider's body and refuses the flag.
const JUDGE_A_PROVIDER: &[&str] = &["sweep", "oracle-json", "differential", "pipeline"];

/// Whether the target called `name` judges a provider's request body (`--provider`).
pub fn judges_a_provider(name: &str) -> bool {
    JUDGE_A_PROVIDER.contains(&name.replace('_', "-").as_str())
}

/// Builds the target called `name` (`oracle_json`, the cargo-fuzz spelling, is accepted for
/// `oracle-json`).
pub fn build(name: &str, variant: Option<&str>, profile: &Profile) -> Result<Box<dyn DynTarget>> {
    let wanted = name.replace('_', "-");
    let Some((_, builder)) = REGISTRY.iter().find(|(known, _)| *known == wanted) else {
        bail!(
            "unknown target `{name}` (known targets: {})",
            names().join(", ")
        )
    };
    if let Some(provider) = profile.provider
        && !judges_a_provider(name)
    {
        bail!(
            "target `{wanted}` judges no provider's request body, so not `{provider}`'s: \
             --provider is for {}",
            JUDGE_A_PROVIDER.join(", ")
        );
    }
    builder(variant, profile)
}

/// The targets a fuzz run of `name` judges its cases with: the one [`build`] gives when
/// `--provider` names a provider or the target judges none; else one per modelled provider, in
/// [`Provider::all()`]'s order, each case judged by the one its bytes pick
/// ([`super::bytes::pick`], docs/decisions.md).
pub fn rotation(
    name: &str,
    variant: Option<&str>,
    profile: &Profile,
) -> Result<Vec<Box<dyn DynTarget>>> {
    if profile.provider.is_some() || !judges_a_provider(name) {
        return Ok(vec![build(name, variant, profile)?]);
    }
    Provider::all()
        .iter()
        .map(|&provider| {
            let profile = Profile {
                provider: Some(provider),
                ..profile.clone()
            };
            build(name, variant, &profile)
        })
        .collect()
}

/// Builds the target a case file names, with the profile it records, for `variant`.
pub fn for_case(case: &CaseFile, variant: Option<&str>) -> Result<Box<dyn DynTarget>> {
    let profile = Profile::from_value(&case.profile)?;
    build(&case.target, variant, &profile)
}
