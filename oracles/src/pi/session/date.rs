//! `new Date(value).getTime()` for the values a session entry's `timestamp` holds.
//!
//! pi turns an entry's ISO timestamp into the message's epoch milliseconds this way. `NaN` (an
//! unparseable date) is `None`; `JSON.stringify` writes it as `null`.
//!
//! Strings follow the ECMAScript date-time format that V8 accepts first: `YYYY[-MM[-DD]]`,
//! optionally `THH:mm[:ss[.fraction]]` and `Z` or `±HH:mm`, extended years `±YYYYYY`. A date-time
//! without an offset is read as UTC (the bridge pins `TZ=UTC`, pi's own files always carry `Z`).
//! V8's legacy fallback parser (free-form dates such as `"Jan 1 2026"`) is not modelled: such
//! strings give `None` here. Arrays and objects (stringified by JavaScript first) give `None`.

use serde_json::Value;

/// The largest magnitude a JavaScript date can hold (ECMAScript TimeClip).
const MAX_TIME: f64 = 8.64e15;

/// `new Date(value).getTime()`; `value` `None` is JavaScript `undefined`.
pub fn epoch_millis(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Null => Some(0.0),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => time_clip(n.as_f64()?),
        Value::String(s) => parse_iso(s.trim()),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// The JSON value JavaScript writes for a time: the number, or `null` for `NaN`.
pub fn to_json(millis: Option<f64>) -> Value {
    millis.map_or(Value::Null, crate::pi::session::number)
}

fn time_clip(t: f64) -> Option<f64> {
    (t.is_finite() && t.abs() <= MAX_TIME).then(|| t.trunc() + 0.0)
}

fn parse_iso(s: &str) -> Option<f64> {
    let mut p = Cursor {
        s: s.as_bytes(),
        at: 0,
    };
    let year = match p.peek() {
        Some(sign @ (b'+' | b'-')) => {
            p.at += 1;
            let y = p.digits(6)?;
            if sign == b'-' && y == 0 {
                return None; // -000000 is not a year
            }
            if sign == b'-' { -y } else { y }
        }
        _ => p.digits(4)?,
    };
    let mut month = 1;
    let mut day = 1;
    if p.eat(b'-') {
        month = p.digits(2)?;
        if p.eat(b'-') {
            day = p.digits(2)?;
        }
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (mut hour, mut minute, mut second, mut millis) = (0, 0, 0, 0.0);
    let mut offset_minutes = 0;
    if p.eat(b'T') || p.eat(b't') || p.eat(b' ') {
        hour = p.digits(2)?;
        if !p.eat(b':') {
            return None;
        }
        minute = p.digits(2)?;
        if p.eat(b':') {
            second = p.digits(2)?;
            if p.eat(b'.') {
                millis = p.fraction_millis()?;
            }
        }
        if p.eat(b'Z') || p.eat(b'z') {
        } else if let Some(sign @ (b'+' | b'-')) = p.peek() {
            p.at += 1;
            let oh = p.digits(2)?;
            if !p.eat(b':') {
                return None;
            }
            let om = p.digits(2)?;
            if oh > 23 || om > 59 {
                return None;
            }
            offset_minutes = (oh * 60 + om) * if sign == b'-' { -1 } else { 1 };
        }
        let midnight_next = hour == 24 && minute == 0 && second == 0 && millis == 0.0;
        if (hour > 23 && !midnight_next) || minute > 59 || second > 59 {
            return None;
        }
    }
    if p.at != p.s.len() {
        return None;
    }
    let days = days_from_civil(year, month, 1) + (day - 1);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    time_clip(seconds as f64 * 1000.0 + millis)
}

struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        self.at += usize::from(hit);
        hit
    }

    /// Exactly `n` ASCII digits.
    fn digits(&mut self, n: usize) -> Option<i64> {
        let run = self.s.get(self.at..self.at + n)?;
        if !run.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.at += n;
        Some(run.iter().fold(0, |acc, d| acc * 10 + i64::from(d - b'0')))
    }

    /// One or more digits of a fraction of a second, truncated to whole milliseconds.
    fn fraction_millis(&mut self) -> Option<f64> {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        let run = &self.s[start..self.at];
        if run.is_empty() {
            return None;
        }
        let millis = run.iter().chain([b'0', b'0'].iter()).take(3);
        Some(millis.fold(0.0, |acc, d| acc * 10.0 + f64::from(d - b'0')))
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn millis(value: Value) -> Option<f64> {
        epoch_millis(Some(&value))
    }

    // Every expectation below was printed by Node 20 (`new Date(x).getTime()`, TZ=UTC).
    #[test]
    fn iso_strings_match_v8() {
        let cases = [
            ("2026-01-01T00:00:01.000Z", Some(1767225601000.0)),
            ("2026-01-01T00:00:01Z", Some(1767225601000.0)),
            ("2026-01-01T00:00Z", Some(1767225600000.0)),
            ("2026-01-01", Some(1767225600000.0)),
            ("2026-01", Some(1767225600000.0)),
            ("2026", Some(1767225600000.0)),
            ("2026-01-01T00:00:01.1234Z", Some(1767225601123.0)),
            ("2026-01-01T00:00:01.1Z", Some(1767225601100.0)),
            ("2026-02-30T00:00:00Z", Some(1772409600000.0)),
            ("2026-01-01T24:00:00Z", Some(1767312000000.0)),
            ("2026-01-01T24:00:01Z", None),
            ("2026-01-01T00:00:01+02:00", Some(1767218401000.0)),
            ("2026-01-01T00:00:01", Some(1767225601000.0)),
            ("+002026-01-01T00:00:00Z", Some(1767225600000.0)),
            ("-000001-01-01T00:00:00Z", Some(-62198755200000.0)),
            ("2026-01-01t00:00:01z", Some(1767225601000.0)),
            ("  2026-01-01", Some(1767225600000.0)),
            ("2026-13-01", None),
            ("2026-01-01T00:00:60Z", None),
            ("not a date", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(millis(json!(text)), expected, "{text}");
        }
    }

    #[test]
    fn other_values_match_v8() {
        assert_eq!(epoch_millis(None), None);
        assert_eq!(millis(json!(null)), Some(0.0));
        assert_eq!(millis(json!(true)), Some(1.0));
        assert_eq!(millis(json!(1.7)), Some(1.0));
        assert_eq!(millis(json!(-1.7)), Some(-1.0));
        assert_eq!(millis(json!(8.64e15)), Some(8.64e15));
        assert_eq!(millis(json!(8.640000000000001e15)), None);
        assert_eq!(millis(json!([])), None);
        assert_eq!(millis(json!({})), None);
    }

    #[test]
    fn nan_is_written_as_null() {
        assert_eq!(to_json(None), Value::Null);
        assert_eq!(to_json(Some(1.0)), json!(1));
    }
}
