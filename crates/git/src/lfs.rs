//! Git LFS pointers, read without running git-lfs.
//!
//! nodwyn's reads run git with no `.gitattributes` (see [`crate::GitCommand::read_only`]), so
//! git compares an LFS file on disk (the object) with what the index holds (the pointer) byte for
//! byte and calls it changed whenever it has to look at the content. The pointer names the
//! object by its SHA-256 and size, so whether the file on disk is that object can be answered
//! here exactly, without starting the filter a repository's attributes could point anywhere.

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::Error;

/// The first line of every pointer (the specification's only version).
const VERSION_LINE: &str = "version https://git-lfs.github.com/spec/v1";

/// Pointers are small; a blob larger than this is content, not a pointer.
const MAX_POINTER_BYTES: usize = 1024;

/// What a pointer names: the object's SHA-256 (64 lowercase hex digits) and its size in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    /// The object's SHA-256, as lowercase hex.
    pub oid: String,
    /// The object's size in bytes.
    pub size: u64,
}

impl Pointer {
    /// Reads `blob` as a pointer file: the version line first, then `key value` lines with an
    /// `oid sha256:...` and a `size`. Anything else is not a pointer.
    pub fn parse(blob: &[u8]) -> Option<Self> {
        if blob.len() > MAX_POINTER_BYTES {
            return None;
        }
        let text = std::str::from_utf8(blob).ok()?;
        let mut lines = text.lines();
        if lines.next()? != VERSION_LINE {
            return None;
        }
        let (mut oid, mut size) = (None, None);
        for line in lines {
            let (key, value) = line.split_once(' ')?;
            match key {
                "oid" => {
                    let hex = value.strip_prefix("sha256:")?;
                    let valid = hex.len() == 64
                        && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
                    oid = valid.then(|| hex.to_owned());
                }
                "size" => size = value.parse().ok(),
                _ => {}
            }
        }
        Some(Self {
            oid: oid?,
            size: size?,
        })
    }

    /// The pointer the blob `oid` of the repository at `dir` holds, if it is one.
    pub fn in_blob(dir: &Path, oid: &str) -> Option<Self> {
        let repo = crate::repo::open(dir).ok()?;
        let oid = git2::Oid::from_str(oid).ok()?;
        let header = repo.odb().ok()?.read_header(oid).ok()?;
        if header.0 > MAX_POINTER_BYTES || header.1 != git2::ObjectType::Blob {
            return None;
        }
        Self::parse(repo.find_blob(oid).ok()?.content())
    }

    /// Where the local LFS store of the repository at `dir` keeps this pointer's object
    /// (`<git common dir>/lfs/objects/ab/cd/abcd...`), which a push uploads from there.
    pub fn local_object(&self, dir: &Path) -> Option<std::path::PathBuf> {
        let repo = crate::repo::open(dir).ok()?;
        Some(
            repo.commondir()
                .join("lfs")
                .join("objects")
                .join(&self.oid[..2])
                .join(&self.oid[2..4])
                .join(&self.oid),
        )
    }

    /// Whether the file at `path` is the object this pointer names (its size, then its hash).
    pub fn is_content_of(&self, path: &Path) -> bool {
        let Ok(metadata) = std::fs::symlink_metadata(path) else {
            return false;
        };
        if !metadata.is_file() || metadata.len() != self.size {
            return false;
        }
        let Ok(mut file) = std::fs::File::open(path) else {
            return false;
        };
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match file.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => hasher.update(&buffer[..n]),
                Err(_) => return false,
            }
        }
        let digest = hasher.finalize();
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        hex == self.oid
    }
}

/// The LFS endpoints a checkout's `.lfsconfig` (repository content) names, as `(key, url)`:
/// `lfs.url`, `lfs.pushurl`, `remote.NAME.lfsurl`, `remote.NAME.lfspushurl`. git-lfs sends a
/// push's objects there unless the person's git configuration sets the key itself.
pub fn lfsconfig_endpoints(dir: &Path) -> Result<Vec<(String, String)>, Error> {
    let file = dir.join(".lfsconfig");
    if !file.is_file() {
        return Ok(Vec::new());
    }
    let (output, _) = crate::GitCommand::new(dir)
        .read_only()
        .args(["config", "--no-includes", "--file"])
        .arg(&file)
        .args([
            "--get-regexp",
            r"^(lfs\.(url|pushurl)|remote\..*\.lfs(push)?url)$",
        ])
        .output_checked()?;
    // Exit 1: no such key.
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(key, url)| (key.to_owned(), url.trim().to_owned()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::Pointer;

    const HELLO_OID: &str = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";

    fn pointer_text(oid: &str, size: u64) -> String {
        format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n")
    }

    #[test]
    fn a_pointer_is_read_and_matched_against_the_file_it_names() {
        let pointer = Pointer::parse(pointer_text(HELLO_OID, 6).as_bytes()).unwrap();
        assert_eq!(pointer.size, 6);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big.bin");
        std::fs::write(&file, "hello\n").unwrap();
        assert!(pointer.is_content_of(&file));
        std::fs::write(&file, "hellO\n").unwrap();
        assert!(!pointer.is_content_of(&file), "same size, other bytes");
        std::fs::write(&file, "hello\n\n").unwrap();
        assert!(!pointer.is_content_of(&file), "other size");
        assert!(!pointer.is_content_of(&dir.path().join("absent")));
    }

    #[test]
    fn what_is_not_a_pointer_is_not_read_as_one() {
        for text in [
            "hello\n".to_owned(),
            pointer_text(&HELLO_OID[..63], 6),
            pointer_text(&HELLO_OID.to_uppercase(), 6),
            format!("version https://git-lfs.github.com/spec/v1\noid sha256:{HELLO_OID}\n"),
            format!("version https://example.com/v9\noid sha256:{HELLO_OID}\nsize 6\n"),
            format!("{}{}", pointer_text(HELLO_OID, 6), "x".repeat(2000)),
        ] {
            assert_eq!(Pointer::parse(text.as_bytes()), None, "{text}");
        }
    }
}
