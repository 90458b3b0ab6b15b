//! Time zones for the `current_time` tool.
//!
//! Only `UTC` and fixed offsets (`+08:00`, `-05:30`) are accepted: the demo carries no tz
//! database, and a named zone we cannot resolve must be a clear tool error rather than a
//! silent fallback to UTC that a model would then report as the local time.

use chrono::{DateTime, FixedOffset, SecondsFormat, Utc};

/// The JSON Schema `pattern` advertised for the `timezone` argument; [`parse_time_zone`] is the
/// authority, this only lets clients validate before calling.
pub const TIME_ZONE_PATTERN: &str = r"^(UTC|[+-][0-9]{2}:[0-9]{2})$";

/// Real-world offsets span UTC−12:00 to UTC+14:00.
const MAX_OFFSET_HOURS: i32 = 14;

/// Why a `timezone` argument was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimeZoneError {
    /// Neither `UTC` nor `±HH:MM`.
    #[error("unsupported timezone {0:?}: use \"UTC\" or a fixed offset such as \"+08:00\" or \"-05:30\"")]
    Unsupported(String),
    /// Shaped like an offset but outside −14:00..=+14:00 or with minutes ≥ 60.
    #[error("timezone offset {0:?} is out of range: hours must be 00..=14 and minutes 00..=59")]
    OutOfRange(String),
}

/// Parses `UTC` (any case) or `±HH:MM` into a fixed offset.
pub fn parse_time_zone(spec: &str) -> Result<FixedOffset, TimeZoneError> {
    let spec = spec.trim();
    if spec.eq_ignore_ascii_case("utc") {
        return FixedOffset::east_opt(0).ok_or_else(|| TimeZoneError::OutOfRange(spec.to_owned()));
    }
    let unsupported = || TimeZoneError::Unsupported(spec.to_owned());
    let bytes = spec.as_bytes();
    let sign = match bytes.first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return Err(unsupported()),
    };
    let shaped = bytes.len() == 6
        && bytes[3] == b':'
        && [1, 2, 4, 5].iter().all(|&i| bytes[i].is_ascii_digit());
    if !shaped {
        return Err(unsupported());
    }
    let digits = |i: usize| i32::from(bytes[i] - b'0') * 10 + i32::from(bytes[i + 1] - b'0');
    let (hours, minutes) = (digits(1), digits(4));
    if minutes >= 60 || hours > MAX_OFFSET_HOURS || (hours == MAX_OFFSET_HOURS && minutes > 0) {
        return Err(TimeZoneError::OutOfRange(spec.to_owned()));
    }
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60))
        .ok_or_else(|| TimeZoneError::OutOfRange(spec.to_owned()))
}

/// `now` in `offset`, as RFC 3339 (a profile of ISO 8601) with whole seconds; UTC is written `Z`.
pub fn format_in(now: DateTime<Utc>, offset: FixedOffset) -> String {
    now.with_timezone(&offset)
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `now` as RFC 3339 in UTC with whole seconds, e.g. `2026-11-03T06:05:09Z`.
pub fn format_utc(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_utc_and_fixed_offsets_and_rejects_the_rest() {
        let now = DateTime::parse_from_rfc3339("2026-11-03T06:05:09Z")
            .map(|t| t.with_timezone(&Utc))
            .expect("valid fixture time");
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("UTC", Ok("2026-11-03T06:05:09Z")),
            ("utc", Ok("2026-11-03T06:05:09Z")),
            ("+00:00", Ok("2026-11-03T06:05:09Z")),
            ("+08:00", Ok("2026-11-03T14:05:09+08:00")),
            ("-05:30", Ok("2026-11-03T00:35:09-05:30")),
            ("+14:00", Ok("2026-11-03T20:05:09+14:00")),
            ("-12:00", Ok("2026-11-02T18:05:09-12:00")),
            ("+14:30", Err("out of range")),
            ("+15:00", Err("out of range")),
            ("+08:60", Err("out of range")),
            ("+8:00", Err("unsupported")),
            ("+0800", Err("unsupported")),
            ("Asia/Shanghai", Err("unsupported")),
            ("", Err("unsupported")),
            ("+08:0a", Err("unsupported")),
        ];
        for (spec, expected) in cases {
            let got = parse_time_zone(spec).map(|offset| format_in(now, offset));
            match (expected, &got) {
                (Ok(want), Ok(have)) => assert_eq!(have, want, "{spec}"),
                (Err(kind), Err(err)) => {
                    assert!(err.to_string().contains(kind), "{spec}: {err}")
                }
                _ => panic!("{spec}: expected {expected:?}, got {got:?}"),
            }
        }
    }
}
