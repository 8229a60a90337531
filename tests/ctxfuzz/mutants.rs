//! The known-defect catalog: every entry must be caught within the default budget. Adding an
//! entry that nothing catches turns this red.

use ctxfuzz::mutants::{self, CATALOG, CatalogBudget};

#[test]
fn every_known_defect_is_caught() {
    let out = tempfile::tempdir().expect("a temporary directory");
    let verdicts =
        mutants::run_catalog(CatalogBudget::default(), out.path()).expect("the catalog runs");
    assert_eq!(verdicts.len(), CATALOG.len());
    let survivors: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.caught_by.is_none())
        .map(|v| v.defect)
        .collect();
    assert!(
        survivors.is_empty(),
        "defects nothing catches: {survivors:?}\n{}",
        mutants::table(&verdicts)
    );
    for verdict in verdicts.iter().filter(|v| v.case_file.is_some()) {
        let path = verdict.case_file.as_ref().unwrap();
        ctxfuzz::transcript::case::CaseFile::read(path)
            .expect("each catch is written as a case file");
    }
}

#[test]
fn the_correct_oracle_reproduces_every_golden_vector() {
    // The oracle faults are judged by the golden vectors: without a fault none may differ, or a
    // fault's "catch" would prove nothing.
    for line in include_str!("../../oracles/tests/data/vectors.expected.jsonl").lines() {
        let vector: serde_json::Value = serde_json::from_str(line).unwrap();
        if vector["input"].get("messages").is_none() {
            continue;
        }
        let pi_version =
            ctxfuzz_oracles::pi::PiVersion::of_vector(vector["variant"].as_str().unwrap()).unwrap();
        assert_eq!(
            ctxfuzz_oracles::pi::run_vector_input_with_fault(&vector["input"], pi_version, None),
            vector["output"],
            "{}",
            vector["name"]
        );
    }
}

#[test]
fn the_table_has_a_row_per_verdict_and_marks_survivors() {
    let verdicts = vec![mutants::Verdict {
        defect: "example",
        caught_by: None,
        runs: 7,
        seconds: 0.5,
        case: None,
        case_file: None,
    }];
    let table = mutants::table(&verdicts);
    assert_eq!(table.lines().count(), 3, "{table}");
    assert!(table.contains("SURVIVED"), "{table}");
}

#[test]
fn each_seeded_oracle_fault_is_caught_by_a_golden_vector() {
    let out = tempfile::tempdir().expect("a temporary directory");
    for defect in CATALOG
        .iter()
        .filter(|d| matches!(d.probe, mutants::Probe::Oracle(_)))
    {
        let verdict = mutants::probe(defect, CatalogBudget::default(), out.path()).unwrap();
        let caught_by = verdict.caught_by.unwrap_or_default();
        assert!(
            caught_by.starts_with("golden vector V"),
            "{}: {caught_by:?}",
            defect.name
        );
    }
}
