//! Reading answers: lines assembled from the bytes a program prints however the pipe splits them,
//! refused when too large (counted as they arrive) or not UTF-8, and the one JSON object a line
//! must hold.

use ctxfuzz_oracles::json_text;
use serde_json::{Map, Value};

use crate::error::Error;

/// The JSON object an answer line holds, or why it holds none.
pub fn read_object(line: &str) -> Result<Map<String, Value>, Error> {
    match serde_json::from_str(line) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(Error::AnswerNotAnObject(json_text::type_name(&other))),
        Err(error) => Err(Error::AnswerNotJson(error)),
    }
}

/// Why an answer line was refused before its meaning is looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Malformed {
    /// More than the limit (a line of `bytes` bytes, or that many bytes without a newline yet).
    TooLarge { bytes: usize },
    /// The line is not UTF-8 from byte `valid_up_to` on.
    NotUtf8 { valid_up_to: usize },
}

/// Assembles answer lines from the bytes a program prints, however the pipe splits them.
#[derive(Debug)]
pub struct AnswerReader {
    buffer: Vec<u8>,
    /// Bytes of `buffer` known to hold no newline.
    scanned: usize,
    limit: usize,
}

impl AnswerReader {
    /// A reader refusing lines of more than `limit` bytes.
    pub fn new(limit: usize) -> AnswerReader {
        AnswerReader {
            buffer: Vec::new(),
            scanned: 0,
            limit,
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// The next complete line (without its newline), a refusal, or `None` while incomplete.
    pub fn next_answer(&mut self) -> Option<Result<String, Malformed>> {
        let Some(end) = self.find_newline() else {
            return self.is_over_limit().then_some(Err(Malformed::TooLarge {
                bytes: self.buffer.len(),
            }));
        };
        let line: Vec<u8> = self.buffer.drain(..=end).take(end).collect();
        self.scanned = 0;
        if line.len() > self.limit {
            return Some(Err(Malformed::TooLarge { bytes: line.len() }));
        }
        Some(String::from_utf8(line).map_err(|e| Malformed::NotUtf8 {
            valid_up_to: e.utf8_error().valid_up_to(),
        }))
    }

    /// Whether a complete line is waiting.
    pub fn has_line(&mut self) -> bool {
        self.find_newline().is_some()
    }

    /// Bytes received and not yet returned as a line.
    pub fn pending(&self) -> &[u8] {
        &self.buffer
    }

    /// Whether the pending bytes already hold more than a line may (reading more is pointless).
    pub fn is_over_limit(&mut self) -> bool {
        self.buffer.len() > self.limit && self.find_newline().is_none_or(|end| end > self.limit)
    }

    fn find_newline(&mut self) -> Option<usize> {
        let found = self.buffer[self.scanned..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|i| self.scanned + i);
        if found.is_none() {
            self.scanned = self.buffer.len();
        }
        found
    }
}
