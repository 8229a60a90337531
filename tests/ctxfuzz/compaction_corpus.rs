//! The compaction's regression corpus (`corpus/compaction`, `corpus/pipeline`): every case gives
//! each variant of its `verdicts` exactly that verdict, and its pinned output, if any.

use std::path::Path;

use ctxfuzz::harness::targets;
use ctxfuzz::transcript::case::CaseFile;

#[test]
fn every_compaction_case_replays_with_its_verdicts_and_output() {
    let mut checked = 0;
    for dir in ["corpus/compaction", "corpus/pipeline"] {
        let mut paths: Vec<_> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for path in paths {
            let case = CaseFile::read(&path).unwrap();
            for (variant, expected) in &case.verdicts {
                let target = targets::for_case(&case, Some(variant)).unwrap();
                let verdict = target.judge(&case.input).verdict();
                assert_eq!(&verdict, expected, "{} [{variant}]", path.display());
                if let Some(pinned) = &case.output {
                    assert_eq!(
                        &target.output(&case.input),
                        pinned,
                        "{} [{variant}] output",
                        path.display()
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "only {checked} verdicts checked");
}
