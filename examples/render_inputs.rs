//! Writes `render --batch` input lines, one generated pi transcript each (seeds 0 to N - 1) asking
//! for the Anthropic request body, for measuring `render --batch` against the real pi end to end
//! (`ci/render-figure.sh`, docs/figures.md#oracle-against-the-real-pi):
//!
//!     cargo run --release --example render_inputs -- N > FILE
use std::io::{BufWriter, Write};
use std::process::ExitCode;

use ctxfuzz::generators::pi;
use ctxfuzz_oracles::js_value::JsValue;

fn main() -> ExitCode {
    let Some(count) = std::env::args().nth(1).and_then(|a| a.parse::<u64>().ok()) else {
        eprintln!("usage: render_inputs N > FILE");
        return ExitCode::from(2);
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let written = (0..count).try_for_each(|seed| {
        let messages: Vec<JsValue> = pi::from_seed(seed);
        out.write_all(br#"{"anthropic":true,"messages":"#)?;
        serde_json::to_writer(&mut out, &messages)?;
        out.write_all(b"}\n")
    });
    match written.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("render_inputs: cannot write: {e}");
            ExitCode::FAILURE
        }
    }
}
