//! Session ids: `20261002T054407Z-1968c13a`, the start time and 8 random hex digits. The hex
//! digits are the *short id* that names a session's worktree folder and branch; every command
//! accepts either form.

use std::fmt;

use crate::Error;
use crate::clock::Timestamp;

/// A session's full id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionId(String);

impl SessionId {
    /// A new id for a session starting at `now`, with fresh random digits.
    pub fn generate(now: Timestamp) -> Result<Self, Error> {
        let mut bytes = [0u8; 4];
        getrandom::fill(&mut bytes).map_err(|e| Error::Random(e.to_string()))?;
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Ok(Self(format!("{}-{hex}", now.compact())))
    }

    /// Reads a full id, checking its shape.
    pub fn parse(text: &str) -> Option<Self> {
        let (stamp, short) = text.split_once('-')?;
        let stamp_ok = stamp.len() == 16
            && stamp.as_bytes()[8] == b'T'
            && stamp.ends_with('Z')
            && stamp[..8].bytes().all(|b| b.is_ascii_digit())
            && stamp[9..15].bytes().all(|b| b.is_ascii_digit());
        (stamp_ok && is_short_id(short)).then(|| Self(text.to_owned()))
    }

    /// The 8 hex digits.
    pub fn short(&self) -> &str {
        &self.0[self.0.len() - 8..]
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl serde::Serialize for SessionId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `text` is a short id: exactly 8 lowercase hex digits.
pub(crate) fn is_short_id(text: &str) -> bool {
    text.len() == 8 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_ids_parse_back_and_differ() {
        let now = Timestamp::from_unix_millis(1_790_919_847_000);
        let a = SessionId::generate(now).unwrap();
        let b = SessionId::generate(now).unwrap();
        assert!(a.as_str().starts_with("20261002T054407Z-"));
        assert_eq!(SessionId::parse(a.as_str()), Some(a.clone()));
        assert!(is_short_id(a.short()));
        assert_ne!(
            a, b,
            "two ids in the same second differ by their random digits"
        );
    }

    #[test]
    fn rejects_malformed_ids() {
        for bad in [
            "",
            "1968c13a",
            "20261002T054407Z-1968C13A",
            "20261002T054407Z-1968c13",
            "2026100xT054407Z-1968c13a",
            "../../etc/passwd-1968c13a",
        ] {
            assert_eq!(SessionId::parse(bad), None, "{bad}");
        }
    }
}
