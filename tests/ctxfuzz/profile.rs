//! `Profile`: every field has a `ctxfuzz fuzz` flag, the flags a finding prints rebuild the same
//! profile, and a case file's `profile` reads and writes back as the same JSON.

use clap::Parser;
use ctxfuzz::harness::Profile;
use ctxfuzz::harness::profile::SweepAfter;
use ctxfuzz::sweep::BarrierRule;
use ctxfuzz_oracles::contracts::ContractKind;
use ctxfuzz_oracles::formats::Format;
use ctxfuzz_oracles::pi::Provider;
use serde_json::json;

use crate::common::ctxfuzz_in;

/// `ctxfuzz fuzz`'s profile flags, parsed as the command line parses them.
#[derive(Parser)]
struct Flags {
    #[command(flatten)]
    profile: Profile,
}

/// Every field set (a new field must be added here, and so gets its flag checked).
fn every_field() -> Profile {
    Profile {
        pi: Some("0.87.1".parse().unwrap()),
        provider: Some(Provider::Groq),
        against: Some(BarrierRule::Allowlist),
        sweep: Some(SweepAfter::Off),
        sut: Some("python3 tests/sut/sweep.py".into()),
        sut_timeout_ms: Some(900),
        sut_startup_ms: Some(50),
        contract: Some(ContractKind::Repair),
        format: Some(Format::OpenAi),
        marker: Some("[synthetic]".into()),
        peer: Some("example".into()),
        package: Some("example@1.0.0".into()),
    }
}

#[test]
fn every_profile_field_has_a_fuzz_flag_that_rebuilds_it() {
    let profile = every_field();
    let mut argv = vec!["fuzz".to_string()];
    for (flag, value) in profile.flags() {
        argv.push(flag.to_string());
        argv.push(value);
    }
    let parsed = Flags::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert_eq!(parsed.profile, profile);
    let on_disk = profile.to_value();
    let keys = on_disk.as_object().unwrap();
    assert_eq!(keys.len(), profile.flags().len(), "{on_disk}");
    for key in keys.keys() {
        let flag = format!("--{}", key.replace('_', "-"));
        assert!(profile.flags().iter().any(|(f, _)| *f == flag), "{flag}");
    }
}

#[test]
fn a_case_files_profile_reads_and_writes_back_unchanged() {
    for recorded in [
        json!({}),
        json!({"pi": "1.6.0"}),
        json!({"pi": "1.6.0", "sweep": "off"}),
        json!({"pi": "1.6.0", "provider": "google"}),
        json!({"pi": "v0.87.1", "against": "all-other-roles", "sweep": "allowlist"}),
        json!({"contract": "cut", "format": "ai-sdk", "sut": "python3 x.py"}),
        json!({"sut": "python3 x.py", "sut_startup_ms": 5000, "sut_timeout_ms": 2000}),
    ] {
        let profile = Profile::from_value(&recorded).unwrap();
        assert_eq!(profile.to_value(), recorded);
    }
    assert_eq!(
        Profile::from_value(&json!(null)).unwrap(),
        Profile::default()
    );
    // Keys no target knows are ignored, so newer case files still replay.
    assert_eq!(
        Profile::from_value(&json!({"pi": "1.6.0", "later": true})).unwrap(),
        Profile::from_value(&json!({"pi": "1.6.0"})).unwrap()
    );
    let wrong = Profile::from_value(&json!({"pi": 5}))
        .unwrap_err()
        .to_string();
    assert!(
        wrong.contains("not a profile") && wrong.contains("string"),
        "{wrong}"
    );
}

/// A field with a finite set of values is parsed where the case file is read: a name it does not
/// know is refused there, with the names it knows.
#[test]
fn a_case_files_unknown_name_is_refused_with_the_known_ones() {
    for (recorded, expected) in [
        (
            json!({"format": "xml"}),
            "not a profile: unknown format `xml` (known: pi, openai",
        ),
        (
            json!({"against": "loose"}),
            "not a profile: unknown barrier rule `loose` (known: none, allowlist",
        ),
        (
            json!({"sweep": "sideways"}),
            "not a profile: unknown barrier rule `sideways`",
        ),
        (
            json!({"contract": "window"}),
            "not a profile: unknown contract `window` (known: sweep, repair, cut, prune, trim)",
        ),
        (
            json!({"provider": "bedrock"}),
            "not a profile: unknown provider `bedrock` (known: anthropic, openai",
        ),
        (
            json!({"pi": "latest"}),
            "not a profile: invalid pi version \"latest\"",
        ),
    ] {
        let wrong = Profile::from_value(&recorded).unwrap_err().to_string();
        assert!(wrong.starts_with(expected), "{wrong}");
    }
}

/// The `pipeline` target's sweep rule has a flag, and a finding's regenerate line carries it.
#[test]
fn the_pipeline_sweep_is_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    let run = ctxfuzz_in(
        dir.path(),
        &[
            "fuzz", "--target", "pipeline", "--sweep", "off", "--runs", "20", "--seed", "1",
            "--json",
        ],
    );
    let out = String::from_utf8_lossy(&run.stdout);
    let summary: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(summary["targets"][0]["target"], "pipeline", "{out}");
    let bad = ctxfuzz_in(
        dir.path(),
        &[
            "fuzz", "--target", "pipeline", "--sweep", "sideways", "--runs", "1",
        ],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("sideways"));
}
