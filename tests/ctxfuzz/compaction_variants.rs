//! Each historical variant of the compaction is caught by the fuzzer from a fixed seed, and the
//! invariant that catches it is the one that describes the defect; the default is clean.

use arbitrary::Unstructured;
use ctxfuzz::generators::seeded_bytes;
use ctxfuzz::harness::{Profile, targets};
use ctxfuzz_oracles::invariants::Judgement;

const BYTES: usize = 4096;

/// The first seed whose case breaks `invariant` under `variant`, within `budget` seeds.
fn first_catch(variant: &str, invariant: &str, budget: u64) -> Option<u64> {
    let target = targets::build("compaction", Some(variant), &Profile::default()).unwrap();
    (0..budget).find(|&seed| {
        let bytes = seeded_bytes(seed, BYTES);
        let input = target.generate(&mut Unstructured::new(&bytes)).unwrap();
        target
            .judge(&input)
            .verdict()
            .iter()
            .any(|id| id == invariant)
    })
}

#[test]
fn every_historical_variant_is_caught_by_its_invariant() {
    let expected = [
        ("midpoint", "boundary-valid"),
        ("midpoint", "compaction-no-new-orphans"),
        ("floor-0", "boundary-valid"),
        ("compose-after-reset", "reset-implies-delivered"),
        ("old-clip-key", "clip-bounded"),
        ("no-preserve", "user-turns-preserved"),
        ("no-state", "state-retained"),
        ("autobot", "compaction-no-new-orphans"),
        ("autobot", "user-turns-preserved-across-rounds"),
    ];
    let mut report = Vec::new();
    for (variant, invariant) in expected {
        let seed = first_catch(variant, invariant, 2_000);
        report.push(format!("{variant:20} {invariant:36} {seed:?}"));
        assert!(
            seed.is_some(),
            "{variant} survived 2000 seeds:\n{}",
            report.join("\n")
        );
    }
    println!("{}", report.join("\n"));
}

#[test]
fn the_default_has_no_findings_on_fixed_seeds() {
    let target = targets::build("compaction", None, &Profile::default()).unwrap();
    for seed in 0..3_000 {
        let bytes = seeded_bytes(seed, BYTES);
        let input = target.generate(&mut Unstructured::new(&bytes)).unwrap();
        if let Judgement::Fail(violations) = target.judge(&input) {
            panic!("seed {seed}: {violations:#?}\ninput: {input}");
        }
    }
}
