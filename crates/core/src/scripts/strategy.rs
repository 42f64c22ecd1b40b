//! Reading the Scheme files nodwyn loads, and whether the person approved a repository's
//! `.nodwyn/init.scm`.
//!
//! A cloned repository must not run code unasked, so the file runs only once a person approved
//! its exact content, remembered by SHA-256 per repository in the data directory
//! (`$NODWYN_HOME/approvals/<project id>/init.scm`, one hash a line). A changed file is asked about
//! again. The file is read only when it is a plain file (a link could point at a secret, which
//! would then be shown and compiled) of at most [`MAX_SIZE`].

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::Error;
use crate::Store;

/// The largest Scheme file nodwyn reads.
pub const MAX_SIZE: u64 = 256 * 1024;

/// A repository's strategy file, read.
#[derive(Debug, Clone)]
pub struct InitFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its content.
    pub text: String,
    /// The SHA-256 of its content, in hex.
    pub sha256: String,
}

/// `<root>/.nodwyn/init.scm` if there is one; a sentence when it is there but cannot be used.
pub fn read_init(root: &Path) -> Result<Option<InitFile>, String> {
    let path = root.join(".nodwyn").join("init.scm");
    let Some(text) = read_plain(&path)? else {
        return Ok(None);
    };
    let sha256 = hex(&Sha256::digest(text.as_bytes()));
    Ok(Some(InitFile { path, text, sha256 }))
}

/// The text of a Scheme file nodwyn loads, if it is there: only a plain UTF-8 file of at most
/// [`MAX_SIZE`]; a sentence when it is there but cannot be used.
pub fn read_plain(path: &Path) -> Result<Option<String>, String> {
    use rustix::fs::{Mode, OFlags};
    // Opened without following a link, then checked on the open file: no swap in between.
    let fd = match rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
        Mode::empty(),
    ) {
        Err(rustix::io::Errno::NOENT) => return Ok(None),
        Err(rustix::io::Errno::LOOP) => {
            return Err(format!(
                "{} is a link, so it was not read (nodwyn loads only a plain file there)",
                path.display()
            ));
        }
        Err(e) => return Err(format!("could not read {}: {e}", path.display())),
        Ok(fd) => fd,
    };
    let file = std::fs::File::from(fd);
    let meta = file
        .metadata()
        .map_err(|e| format!("could not read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "{} is not a plain file, so it was not read",
            path.display()
        ));
    }
    if meta.len() > MAX_SIZE {
        return Err(format!(
            "{} is larger than {} KiB, so it was not read",
            path.display(),
            MAX_SIZE / 1024
        ));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(&file, MAX_SIZE + 1), &mut bytes)
        .map_err(|e| format!("could not read {}: {e}", path.display()))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("{} is not UTF-8 text, so it was not read", path.display()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn approvals_file(store: &Store, repository: &Path) -> PathBuf {
    store
        .home()
        .join("approvals")
        .join(Store::project_id(repository))
        .join("init.scm")
}

/// Whether a person approved init.scm content `sha256` for `repository`.
pub fn is_approved(store: &Store, repository: &Path, sha256: &str) -> Result<bool, Error> {
    let file = approvals_file(store, repository);
    match std::fs::read_to_string(&file) {
        Ok(text) => Ok(text.lines().any(|line| line.trim() == sha256)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(&file)(e)),
    }
}

/// Remembers that a person approved init.scm content `sha256` for `repository`.
pub fn approve(store: &Store, repository: &Path, sha256: &str) -> Result<(), Error> {
    let file = approvals_file(store, repository);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .map_err(Error::io(&file))?;
    writeln!(out, "{sha256}").map_err(Error::io(&file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_is_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("home"));
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
        assert!(read_init(&repo).unwrap().is_none());
        std::fs::write(repo.join(".nodwyn/init.scm"), "(define x 1)").unwrap();
        let first = read_init(&repo).unwrap().unwrap();
        assert!(!is_approved(&store, &repo, &first.sha256).unwrap());
        approve(&store, &repo, &first.sha256).unwrap();
        assert!(is_approved(&store, &repo, &first.sha256).unwrap());
        std::fs::write(repo.join(".nodwyn/init.scm"), "(define x 2)").unwrap();
        let changed = read_init(&repo).unwrap().unwrap();
        assert_ne!(changed.sha256, first.sha256);
        assert!(!is_approved(&store, &repo, &changed.sha256).unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "(define key \"hunter2\")").unwrap();
        std::fs::create_dir_all(dir.path().join(".nodwyn")).unwrap();
        std::os::unix::fs::symlink(&secret, dir.path().join(".nodwyn/init.scm")).unwrap();
        let error = read_init(dir.path()).unwrap_err();
        assert!(error.contains("is a link"), "{error}");
    }
}
