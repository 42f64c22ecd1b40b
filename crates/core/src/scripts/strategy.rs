//! Reading the Scheme files nodwyn loads, and whether the person approved a repository's
//! strategy (`.nodwyn/init.scm` with its `.nodwyn/prompts.scm`).
//!
//! A cloned repository must not run code unasked, so the file runs only once a person approved
//! its exact content, remembered by SHA-256 per repository in the data directory
//! (`$NODWYN_HOME/approvals/<project id>/init.scm`, one hash a line). A changed file is asked about
//! again. The file is read only when it is a plain file (a link could point at a secret, which
//! would then be shown and compiled) of at most `MAX_SIZE` (256 KiB).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::Error;
use crate::Store;
use crate::approvals::Approving;

/// The largest Scheme file nodwyn reads.
pub(crate) const MAX_SIZE: u64 = 256 * 1024;

/// A Scheme file of the repository's, read.
#[derive(Debug, Clone)]
pub struct SchemeFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its name in the repository (`.nodwyn/init.scm`).
    pub name: &'static str,
    /// Its content.
    pub text: String,
}

/// A repository's strategy: its `.nodwyn/init.scm`, and its `.nodwyn/prompts.scm` if it has one,
/// since init.scm's procedures run with what prompts.scm redefined. A person approves both
/// together; the hash covers each file's name and content, not where the checkout is, so an
/// approval holds in every worktree of the repository with the same content.
#[derive(Debug, Clone)]
pub struct Strategy {
    /// init.scm first, then prompts.scm.
    pub files: Vec<SchemeFile>,
    /// The SHA-256 over the files, in hex.
    pub sha256: String,
}

/// The repository's strategy under `root`, if it has an init.scm; `prompts` is its prompts.scm
/// as already read. A sentence when init.scm is there but cannot be used.
pub fn read_strategy(
    root: &Path,
    prompts: Option<&SchemeFile>,
) -> Result<Option<Strategy>, String> {
    let path = root.join(".nodwyn").join("init.scm");
    let Some(text) = read_plain(&path)? else {
        return Ok(None);
    };
    Ok(Some(strategy_of(path, text, prompts)))
}

/// The strategy whose init.scm at `path` reads `text`, with `prompts`, its prompts.scm.
pub(crate) fn strategy_of(path: PathBuf, text: String, prompts: Option<&SchemeFile>) -> Strategy {
    let mut files = vec![SchemeFile {
        path,
        name: ".nodwyn/init.scm",
        text,
    }];
    files.extend(prompts.cloned());
    let mut hasher = Sha256::new();
    for file in &files {
        hasher.update(format!("{}\0{}\0", file.name, file.text.len()).as_bytes());
        hasher.update(file.text.as_bytes());
    }
    let sha256 = hex(&hasher.finalize());
    Strategy { files, sha256 }
}

/// The repository's `.nodwyn/prompts.scm` under `root`, if it has one.
pub(crate) fn read_prompts(root: &Path) -> Result<Option<SchemeFile>, String> {
    let path = root.join(".nodwyn").join("prompts.scm");
    Ok(read_plain(&path)?.map(|text| SchemeFile {
        path,
        name: ".nodwyn/prompts.scm",
        text,
    }))
}

/// The text of the person's own Scheme file, if it is there: links are followed (dotfiles are
/// often links), and it must be UTF-8 of at most [`MAX_SIZE`].
pub(crate) fn read_own(path: &Path) -> Result<Option<String>, String> {
    let file = match std::fs::File::open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("could not read {}: {e}", path.display())),
        Ok(file) => file,
    };
    read_capped(path, &file).map(Some)
}

/// The text of a repository's Scheme file, if it is there: only a plain UTF-8 file of at most
/// [`MAX_SIZE`], never through a link; a sentence when it is there but cannot be used.
pub(crate) fn read_plain(path: &Path) -> Result<Option<String>, String> {
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
    read_capped(path, &std::fs::File::from(fd)).map(Some)
}

/// The text of an open `file` (`path` for the messages): a plain file of at most [`MAX_SIZE`],
/// UTF-8.
fn read_capped(path: &Path, file: &std::fs::File) -> Result<String, String> {
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
    std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_SIZE + 1), &mut bytes)
        .map_err(|e| format!("could not read {}: {e}", path.display()))?;
    String::from_utf8(bytes)
        .map_err(|_| format!("{} is not UTF-8 text, so it was not read", path.display()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether a person approved strategy content `sha256` for `repository`.
pub(crate) fn is_approved(store: &Store, repository: &Path, sha256: &str) -> Result<bool, Error> {
    crate::approvals::is_approved(store, repository, Approving::Strategy, sha256)
}

/// Remembers that a person approved strategy content `sha256` for `repository`.
pub fn approve(store: &Store, repository: &Path, sha256: &str) -> Result<(), Error> {
    crate::approvals::approve(store, repository, Approving::Strategy, sha256)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_is_by_the_content_of_both_files() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("home"));
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
        assert!(read_strategy(&repo, None).unwrap().is_none());
        std::fs::write(repo.join(".nodwyn/init.scm"), "(define x 1)").unwrap();
        let first = read_strategy(&repo, None).unwrap().unwrap();
        assert!(!is_approved(&store, &repo, &first.sha256).unwrap());
        approve(&store, &repo, &first.sha256).unwrap();
        assert!(is_approved(&store, &repo, &first.sha256).unwrap());
        // The same content elsewhere (another worktree) has the same hash.
        let other = dir.path().join("other");
        std::fs::create_dir_all(other.join(".nodwyn")).unwrap();
        std::fs::write(other.join(".nodwyn/init.scm"), "(define x 1)").unwrap();
        assert_eq!(
            read_strategy(&other, None).unwrap().unwrap().sha256,
            first.sha256
        );
        // A prompts.scm beside it is part of what is approved.
        std::fs::write(repo.join(".nodwyn/prompts.scm"), "(define (field a k) #f)").unwrap();
        let prompts = read_prompts(&repo).unwrap();
        let with_prompts = read_strategy(&repo, prompts.as_ref()).unwrap().unwrap();
        assert_ne!(with_prompts.sha256, first.sha256);
        assert!(!is_approved(&store, &repo, &with_prompts.sha256).unwrap());
        std::fs::write(repo.join(".nodwyn/init.scm"), "(define x 2)").unwrap();
        let changed = read_strategy(&repo, None).unwrap().unwrap();
        assert_ne!(changed.sha256, first.sha256);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "(define key \"hunter2\")").unwrap();
        std::fs::create_dir_all(dir.path().join(".nodwyn")).unwrap();
        std::os::unix::fs::symlink(&secret, dir.path().join(".nodwyn/init.scm")).unwrap();
        let error = read_strategy(dir.path(), None).unwrap_err();
        assert!(error.contains("is a link"), "{error}");
    }
}
