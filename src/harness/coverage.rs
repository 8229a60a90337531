//! The shape-coverage count of one contract format: how many of the transcripts the contract
//! target hands a program in that format (the pi generator over each case's bytes, written by the
//! format's bridge) contain each shape real programs write ([`FormatShape::listed`]), and how many
//! the format could not express. `ctxfuzz shapes` prints it; docs/contracts.md#shapes-the-generators-write
//! has the figures.

use std::collections::BTreeMap;
use std::fmt;

use arbitrary::Unstructured;
use ctxfuzz_oracles::formats::Format;
use ctxfuzz_oracles::js_value::JsValue;

use super::bytes;
use crate::generators::pi as pi_generator;
use crate::transcript::format_shapes::{FormatShape, format_shapes};

#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    pub format: Format,
    pub cases: u64,
    /// Cases the format cannot express, by reason (the contract target skips them too).
    pub skipped: BTreeMap<String, u64>,
    /// Transcripts that contain each shape (every listed shape, even when none does).
    pub shapes: BTreeMap<FormatShape, u64>,
}

impl Coverage {
    /// The listed shapes no generated transcript contained.
    pub fn missing(&self) -> Vec<FormatShape> {
        FormatShape::listed(self.format)
            .into_iter()
            .filter(|shape| self.shapes.get(shape).is_none_or(|&n| n == 0))
            .collect()
    }
}

/// Counts the shapes of cases `0..cases` of the run seeded with `seed`.
pub fn count(format: Format, seed: u64, cases: u64) -> Coverage {
    let mut coverage = Coverage {
        format,
        cases,
        skipped: BTreeMap::new(),
        shapes: FormatShape::listed(format)
            .into_iter()
            .map(|shape| (shape, 0))
            .collect(),
    };
    let mut buffer = Vec::new();
    for index in 0..cases {
        bytes::fill(seed, index, &mut buffer);
        let pi: Vec<JsValue> = pi_generator::transcript(&mut Unstructured::new(&buffer))
            .expect("the generator never fails for lack of bytes");
        match format.from_pi(&pi) {
            Ok(messages) => {
                for shape in format_shapes(format, &messages) {
                    *coverage.shapes.entry(shape).or_default() += 1;
                }
            }
            Err(reason) => *coverage.skipped.entry(reason.key()).or_default() += 1,
        }
    }
    coverage
}

impl fmt::Display for Coverage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let percent = |n: u64| n as f64 * 100.0 / self.cases.max(1) as f64;
        writeln!(f, "{}: {} generated transcripts", self.format, self.cases)?;
        for (shape, &n) in &self.shapes {
            writeln!(f, "{n:>8} {:>7.2}%  {shape}", percent(n))?;
        }
        for (reason, &n) in &self.skipped {
            writeln!(f, "{n:>8} {:>7.2}%  skipped: {reason}", percent(n))?;
        }
        Ok(())
    }
}
