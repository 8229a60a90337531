use arbitrary::Unstructured;
use ctxfuzz::generators::{pi as pi_gen, seeded_bytes, session as session_gen};
use ctxfuzz_oracles::pi::session::{self, SessionRules};
use serde_json::{Value, json};
use std::io::Write;

#[test]
fn tmp_session() {
    let mut lines = String::new();
    let mut inputs = Vec::new();
    for (ver, rules) in [("0.79.0", SessionRules::Legacy), ("0.81.1", SessionRules::Split), ("0.87.1", SessionRules::Canonical), ("1.6.0", SessionRules::Canonical)] {
        for seed in 0..400u64 {
            let bytes = seeded_bytes(seed, 2 * pi_gen::SEED_BYTES);
            let input = session_gen::session_input(&mut Unstructured::new(&bytes)).unwrap();
            lines += &json!({"pi": ver, "input": input}).to_string();
            lines.push('\n');
            inputs.push((ver, rules, seed, input));
        }
    }
    let mut child = std::process::Command::new("node").arg("oracles/conformance/bridge.mjs")
        .stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || { stdin.write_all(lines.as_bytes()).unwrap(); });
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut bad = 0;
    let mut errors = 0;
    for ((ver, rules, seed, input), line) in inputs.iter().zip(text.lines()) {
        let real: Value = serde_json::from_str(line).unwrap();
        let mut entries = match input.get("jsonl").and_then(Value::as_str) {
            Some(t) => session::parse(t).entries,
            None => input["entries"].as_array().cloned().unwrap(),
        };
        let model = match session::migrate(&mut entries).and_then(|_| session::build_context(&entries, input.get("leafId"), *rules)) {
            Ok(c) => json!({"session": c.to_json()}),
            Err(e) => json!({"error": e.to_string(), "stage": "buildSessionContext"}),
        };
        if real.get("error").is_some() { errors += 1; }
        let real_cut = if real.get("stage") == Some(&json!("buildSessionContext")) { json!({"error": real["error"], "stage": real["stage"]}) } else { json!({"session": real["session"]}) };
        if real_cut != model {
            bad += 1;
            if bad < 4 { eprintln!("MISMATCH {ver} seed {seed}\ninput {}\nreal {}\nmodel {}", input, real_cut, model); }
        }
    }
    eprintln!("bad {bad} errors {errors} of {}", inputs.len());
    assert_eq!(bad, 0);
}
