//! Wall-clock times in the two forms nodwyn writes: RFC 3339 UTC for log records
//! (`2026-10-02T05:44:07.123Z`) and the compact stamp that starts a session id
//! (`20261002T054407Z`).

use std::time::{SystemTime, UNIX_EPOCH};

/// A moment, in UTC, to the millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp {
    millis: i64,
}

impl Timestamp {
    /// The current time.
    pub fn now() -> Self {
        let millis = match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(since) => since.as_millis() as i64,
            Err(before) => -(before.duration().as_millis() as i64),
        };
        Self { millis }
    }

    /// A time given as milliseconds since 1970-01-01T00:00:00Z.
    pub fn from_unix_millis(millis: i64) -> Self {
        Self { millis }
    }

    /// RFC 3339 in UTC with milliseconds: `2026-10-02T05:44:07.123Z`.
    pub fn rfc3339(self) -> String {
        let (date, (h, m, s), ms) = self.parts();
        format!(
            "{:04}-{:02}-{:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z",
            date.0, date.1, date.2
        )
    }

    /// The compact form that starts a session id: `20261002T054407Z`.
    pub fn compact(self) -> String {
        let (date, (h, m, s), _) = self.parts();
        format!(
            "{:04}{:02}{:02}T{h:02}{m:02}{s:02}Z",
            date.0, date.1, date.2
        )
    }

    fn parts(self) -> ((i64, u32, u32), (i64, i64, i64), i64) {
        let ms = self.millis.rem_euclid(1000);
        let seconds = self.millis.div_euclid(1000);
        let days = seconds.div_euclid(86_400);
        let of_day = seconds.rem_euclid(86_400);
        (
            civil_from_days(days),
            (of_day / 3600, of_day % 3600 / 60, of_day % 60),
            ms,
        )
    }
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_moments() {
        let t = Timestamp::from_unix_millis(0);
        assert_eq!(t.rfc3339(), "1970-01-01T00:00:00.000Z");
        // 2026-10-02T05:44:07.123Z, computed independently with `date -u -d @1790919847`.
        let t = Timestamp::from_unix_millis(1_790_919_847_123);
        assert_eq!(t.rfc3339(), "2026-10-02T05:44:07.123Z");
        assert_eq!(t.compact(), "20261002T054407Z");
        // A leap day.
        let t = Timestamp::from_unix_millis(951_782_400_000);
        assert_eq!(t.rfc3339(), "2000-02-29T00:00:00.000Z");
    }
}
