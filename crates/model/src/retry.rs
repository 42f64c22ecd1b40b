//! When a failed model call is tried again, and how long to wait: connection errors, 429 (after
//! the server's `retry-after`), 500 to 529 and an overloaded answer, each only while nothing of
//! the answer has reached the caller; exponential backoff with jitter, a bounded number of tries.

use std::time::Duration;

/// How failed calls are tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// How many tries in all (at least 1).
    pub tries: u32,
    /// The wait after the first failure; each later wait doubles it.
    pub first_wait: Duration,
    /// The longest wait, whatever the backoff or the server says.
    pub longest_wait: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Self {
            tries: 4,
            first_wait: Duration::from_millis(500),
            longest_wait: Duration::from_secs(30),
        }
    }
}

impl Retry {
    /// The wait before try `next` (2 for the first retry), or the server's own `retry-after`.
    pub fn wait(&self, next: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(asked) = retry_after {
            return asked.min(self.longest_wait);
        }
        let doubled = self
            .first_wait
            .saturating_mul(1 << next.saturating_sub(2).min(16));
        let base = doubled.min(self.longest_wait);
        // Up to a quarter more, so that many clients do not come back at the same instant.
        let mut byte = [0u8; 1];
        let jitter = if getrandom::fill(&mut byte).is_ok() {
            base / 4 * u32::from(byte[0]) / 255
        } else {
            Duration::ZERO
        };
        (base + jitter).min(self.longest_wait)
    }
}

/// The wait a `retry-after` header asks for (seconds; an HTTP date is not honoured).
pub fn retry_after(value: Option<&str>) -> Option<Duration> {
    let seconds: f64 = value?.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// Whether an HTTP status is worth another try.
pub fn retryable_status(status: u16) -> bool {
    status == 429 || (500..=529).contains(&status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_within_bounds_and_honour_the_server() {
        let retry = Retry {
            tries: 5,
            first_wait: Duration::from_millis(100),
            longest_wait: Duration::from_secs(1),
        };
        let second = retry.wait(2, None);
        assert!(second >= Duration::from_millis(100) && second <= Duration::from_millis(125));
        let third = retry.wait(3, None);
        assert!(third >= Duration::from_millis(200) && third <= Duration::from_millis(250));
        assert_eq!(retry.wait(30, None), Duration::from_secs(1));
        assert_eq!(
            retry.wait(2, Some(Duration::from_secs(7))),
            Duration::from_secs(1)
        );
        assert_eq!(retry_after(Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert!(retryable_status(429) && retryable_status(529) && !retryable_status(400));
    }
}
