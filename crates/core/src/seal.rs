//! Seals on the records that carry a person's authority: "Don't ask" turned on, a strategy
//! approved, a change of the repository's git configuration accepted.
//!
//! These records live in nodwyn's data directory, which an agent's command cannot read or write
//! when it runs confined. With the sandbox off, or for any other program of the person's, a line
//! appended to a log or an approvals file would otherwise grant authority. So each such record
//! carries an HMAC-SHA256 made with a key only nodwyn reads (`<data>/seal.key`, 32 random bytes,
//! mode 0600), over what it grants, the session it belongs to and its place in the log; a record
//! whose seal is missing or wrong grants nothing. Binding the place stops a sealed record from
//! being copied to a later place (turning Don't ask on again after the person turned it off).

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::Error;

/// The installation's sealing key.
#[derive(Clone)]
pub struct Seal {
    key: [u8; 32],
}

impl Seal {
    /// The key of the data directory `home`, made on first use.
    pub fn of(home: &Path) -> Result<Self, Error> {
        let path = key_path(home);
        match std::fs::read(&path) {
            Ok(bytes) if bytes.len() == 32 => {
                let mut key = [0u8; 32];
                key.copy_from_slice(&bytes);
                return Ok(Self { key });
            }
            Ok(_) => {
                return Err(Error::declined(
                    "bad_sealing_key",
                    format!(
                        "{} is not a sealing key nodwyn made (it must be 32 bytes); remove it and nodwyn makes a new one (what it sealed is then asked again)",
                        path.display()
                    ),
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&path)(e)),
        }
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| {
            Error::declined(
                "no_random_bytes",
                format!("no random bytes for the sealing key: {e}"),
            )
        })?;
        std::fs::create_dir_all(home).map_err(Error::io(home))?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        match options.open(&path) {
            Ok(mut file) => {
                file.write_all(&key).map_err(Error::io(&path))?;
                Ok(Self { key })
            }
            // Another nodwyn made it meanwhile: use that one.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Self::of(home),
            Err(e) => Err(Error::io(&path)(e)),
        }
    }

    /// The seal of `what` (hex).
    pub fn sign(&self, what: &str) -> String {
        hmac(&self.key, what.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether `seal` is the seal of `what`.
    pub(crate) fn verifies(&self, what: &str, seal: Option<&str>) -> bool {
        let Some(seal) = seal else {
            return false;
        };
        let expected = self.sign(what);
        // Compared in full, whatever differs first.
        expected.len() == seal.len()
            && expected
                .bytes()
                .zip(seal.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// What the seal of a `session.dont_ask` record covers: the session, the record's place in the
/// log, and what it says.
pub(crate) fn dont_ask_sealed(session: &str, place: usize, on: bool, by: &str) -> String {
    format!("session.dont_ask|{session}|{place}|{on}|{by}")
}

/// What the seal of a `session.handed` record covers.
pub(crate) fn handed_sealed(session: &str, place: usize, to: &str, by: &str) -> String {
    format!("session.handed|{session}|{place}|{to}|{by}")
}

/// What the seal of a `session.allow_always` record covers: the session, the record's place,
/// and the standing answer it gives.
pub(crate) fn always_sealed(
    session: &str,
    place: usize,
    command: Option<&[String]>,
    write: Option<&str>,
    allows: &str,
    by: &str,
) -> String {
    let command = serde_json::to_string(&command).unwrap_or_default();
    let write = serde_json::to_string(&write).unwrap_or_default();
    format!("session.allow_always|{session}|{place}|{command}|{write}|{allows}|{by}")
}

/// What the seal of a `session.config` record covers.
pub(crate) fn config_sealed(
    session: &str,
    place: usize,
    fingerprint: &std::collections::BTreeMap<String, String>,
    accepted_by: Option<&str>,
) -> String {
    let fingerprint = serde_json::to_string(fingerprint).unwrap_or_default();
    format!(
        "session.config|{session}|{place}|{fingerprint}|{}",
        accepted_by.unwrap_or("")
    )
}

/// What the seal of a strategy approval covers: the project and the content's hash.
pub(crate) fn approval_sealed(project: &str, sha256: &str) -> String {
    format!("strategy.approve|{project}|{sha256}")
}

fn key_path(home: &Path) -> PathBuf {
    home.join("seal.key")
}

fn hmac(key: &[u8; 32], message: &[u8]) -> [u8; 32] {
    let mut inner_pad = [0x36u8; 64];
    let mut outer_pad = [0x5cu8; 64];
    for (i, byte) in key.iter().enumerate() {
        inner_pad[i] ^= byte;
        outer_pad[i] ^= byte;
    }
    let inner = Sha256::new()
        .chain_update(inner_pad)
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(outer_pad)
        .chain_update(inner)
        .finalize()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_the_rfc_4231_vector() {
        // RFC 4231 test case 2 uses a 4-byte key; padded with zeros it is the same HMAC.
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        let mac: String = hmac(&key, b"what do ya want for nothing?")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            mac,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_seal_verifies_only_what_it_sealed_with_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let seal = Seal::of(dir.path()).unwrap();
        let signed = seal.sign("dont_ask|s1|3|on|ann");
        assert!(seal.verifies("dont_ask|s1|3|on|ann", Some(&signed)));
        assert!(!seal.verifies("dont_ask|s1|4|on|ann", Some(&signed)));
        assert!(!seal.verifies("dont_ask|s1|3|on|ann", None));
        let again = Seal::of(dir.path()).unwrap();
        assert!(again.verifies("dont_ask|s1|3|on|ann", Some(&signed)));
        let other = tempfile::tempdir().unwrap();
        assert!(
            !Seal::of(other.path())
                .unwrap()
                .verifies("dont_ask|s1|3|on|ann", Some(&signed))
        );
    }
}
