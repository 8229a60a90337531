//! `new Date(value).getTime()` for the values a session entry's `timestamp` holds.
//!
//! pi turns an entry's ISO timestamp into the message's epoch milliseconds this way. `NaN` (an
//! unparseable date) is `None`; `JSON.stringify` writes it as `null`.
//!
//! Strings follow the ECMAScript date-time format that V8 accepts first: `YYYY[-MM[-DD]]`,
//! optionally `THH:mm[:ss[.fraction]]` and `Z` or `±HH:mm`, extended years `±YYYYYY`. A date-time
//! without an offset is read as UTC (the bridge pins `TZ=UTC`, pi's own files always carry `Z`).
//! V8's legacy fallback parser is not modelled beyond whitespace around a date without a `T`:
//! free-form dates (`"Jan 1 2026"`), offsets without a colon (`+0200`), one-digit months, bare
//! signed years (`+2026`) and `Z` after a date alone give `None` here where V8 gives a time.
//! Arrays and objects (stringified by JavaScript first) give `None`.

use crate::js_value::JsValue;

/// The largest magnitude a JavaScript date can hold (ECMAScript TimeClip).
const MAX_TIME: f64 = 8.64e15;

/// `new Date(value).getTime()`; `value` `None` is JavaScript `undefined`.
pub fn epoch_millis(value: Option<&JsValue>) -> Option<f64> {
    match value? {
        JsValue::Null => Some(0.0),
        JsValue::Bool(b) => Some(f64::from(u8::from(*b))),
        JsValue::Number(n) => time_clip(n.as_f64()?),
        // V8 falls back to its legacy parser when the ISO one fails; of that parser only its
        // tolerance of whitespace around a date without a `T` is modelled.
        JsValue::String(s) => parse_iso(s).or_else(|| {
            if s.contains(['T', 't']) {
                None
            } else {
                parse_iso(s.trim())
            }
        }),
        JsValue::Array(_) | JsValue::Object(_) => None,
    }
}

/// The JSON value JavaScript writes for a time: the number, or `null` for `NaN`. A time is whole
/// and within ±8.64e15 (TimeClip), so it is exact as an `i64`, which prints as JavaScript prints
/// it: without a fraction.
pub fn to_json(millis: Option<f64>) -> JsValue<'static> {
    millis.map_or(JsValue::Null, |t| JsValue::Number((t as i64).into()))
}

/// TimeClip. Its `-0` to `+0` step is left out: a time only leaves the model as JSON, where
/// JavaScript writes both as `0`.
fn time_clip(t: f64) -> Option<f64> {
    (t.is_finite() && t.abs() <= MAX_TIME).then(|| t.trunc())
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
            let magnitude = oh * 60 + om;
            offset_minutes = if sign == b'-' { -magnitude } else { magnitude };
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
        let rest = &self.s[self.at..];
        let run = &rest[..rest.iter().take_while(|b| b.is_ascii_digit()).count()];
        if run.is_empty() {
            return None;
        }
        self.at += run.len();
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
    use serde_json::{Value, json};

    fn millis(value: Value) -> Option<f64> {
        epoch_millis(Some(&JsValue::from(&value)))
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
            ("2026-01-01 00:00:01Z", Some(1767225601000.0)),
            ("2026-01-01T00:00:01-02:30", Some(1767234601000.0)),
            ("2026-01-01T00:00:01+24:00", None),
            ("2026-01-01T00:00:01+23:60", None),
            ("2026-01-01T00:00:01+23:59", Some(1767139261000.0)),
            ("2026-01-01T00:00", Some(1767225600000.0)),
            ("2026-01-01T0:00", None),
            ("2026-01-01T00", None),
            ("2026-01-01T00:00:01.", None),
            ("2026-00-01", None),
            ("2026-12-31", Some(1798675200000.0)),
            ("2026-01-00", None),
            ("2026-01-31", Some(1769817600000.0)),
            ("2026-01-32", None),
            ("2026-03-01", Some(1772323200000.0)),
            ("2024-02-29", Some(1709164800000.0)),
            ("2000-03-01", Some(951868800000.0)),
            ("1900-03-01", Some(-2203891200000.0)),
            ("1600-02-29", Some(-11670998400000.0)),
            ("1969-12-31T23:59:59.999Z", Some(-1.0)),
            ("-000000-01-01T00:00:00Z", None),
            ("-271821-04-20T00:00:00Z", Some(-8640000000000000.0)),
            ("-271821-04-19T23:59:59.999Z", None),
            ("+275760-09-13T00:00:00Z", Some(8640000000000000.0)),
            ("+275760-09-13T00:00:00.001Z", None),
            ("2026-01-01T23:59:59Z", Some(1767311999000.0)),
            ("2026-01-01T23:60:00Z", None),
            ("2026-01-01T25:00:00Z", None),
            ("2026-01-01T24:00:00.000Z", Some(1767312000000.0)),
            ("2026-01-01T24:00:00.001Z", None),
            ("2026-01-01T24:01Z", None),
            ("2026-01-01T24:00Z", Some(1767312000000.0)),
            ("2026-01-01T24:00:00+01:00", Some(1767308400000.0)),
            ("2026-01-01T00:00:01.999999Z", Some(1767225601999.0)),
            ("2026-01-01T00:00:01.05Z", Some(1767225601050.0)),
            ("2026-01-01T12:34:56.789-11:59", Some(1767314036789.0)),
            ("2026-01-01T00:00:01+00:00", Some(1767225601000.0)),
            ("2026-01-01T00:00:01-00:00", Some(1767225601000.0)),
            ("20260101", None),
            ("2026-01-01T00:00:01ZZ", None),
            ("2026-01-01X", None),
            ("-000400-03-01T00:00:00Z", Some(-74784816000000.0)),
            ("-000401-02-28T00:00:00Z", Some(-74816524800000.0)),
            ("0000-01-01T00:00:00Z", Some(-62167219200000.0)),
            ("0001-03-01", Some(-62130499200000.0)),
            ("2026-02-28", Some(1772236800000.0)),
            ("2026-02-01", Some(1769904000000.0)),
            ("2026-12-01", Some(1796083200000.0)),
            ("2026-11-30", Some(1795996800000.0)),
            ("9999-12-31T23:59:59.999Z", Some(253402300799999.0)),
            ("2026-01-01T00:00:01.1234z", Some(1767225601123.0)),
            ("2026-01-01T10:20:30+05:45", Some(1767242130000.0)),
            ("2026-06-15T12:00:00-07:00", Some(1781550000000.0)),
            ("\t2026-01-01\n", Some(1767225600000.0)),
            ("2026-01-01T00:00:00:00", None),
            ("2026-01-01T00:00:00+01", None),
            ("2026-01-01T00:00:00+01:", None),
            ("2026-01-01T00:00:0", None),
            ("2026-01-0", None),
            ("2026-0", None),
            ("2026-01-01T00:00:01 ", None),
            (" 2026-01-01T00:00:01Z", None),
            (" 2026-01-01t00:00:01z", None),
            ("2026-01-01 ", Some(1767225600000.0)),
            (" 2026-01-01 00:00:01.123Z", Some(1767225601123.0)),
            ("2026-01-01 00:00:01+01:00 ", Some(1767222001000.0)),
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
        assert_eq!(millis(json!(-8.64e15)), Some(-8.64e15));
        assert_eq!(millis(json!(-8.640000000000001e15)), None);
        assert_eq!(millis(json!(1e300)), None);
        assert_eq!(millis(json!(2.5)), Some(2.0));
        assert_eq!(millis(json!(-2.5)), Some(-2.0));
        assert_eq!(to_json(millis(json!(-0.5))).to_value(), json!(0));
        assert_eq!(millis(json!([])), None);
        assert_eq!(millis(json!({})), None);
    }

    #[test]
    fn nan_is_written_as_null() {
        assert_eq!(to_json(None).to_value(), Value::Null);
        assert_eq!(to_json(Some(1.0)).to_value(), json!(1));
        assert_eq!(
            to_json(Some(-8.64e15)).to_value(),
            json!(-8_640_000_000_000_000_i64)
        );
    }
}
