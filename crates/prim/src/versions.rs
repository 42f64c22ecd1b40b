//! Kept versions: before a primitive replaces or edits a file, the file's previous content is kept
//! in the repository's `.nodwyn/versions/<session id>/`, numbered from 1.
//!
//! The store is the repository's, not the worktree's: a kept copy never counts as work left in a
//! worktree (so it never keeps one alive on close), and it outlives the worktree. Each version is
//! two files, `N.json` (what and when) and `N.bytes` (the content). The folder ignores itself for
//! git. A link anywhere on the way to it is refused, so repository content cannot send the copies
//! elsewhere.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::beneath::Beneath;

/// One kept version of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptVersion {
    /// Its number in the session's store.
    pub version: u64,
    /// The file it was kept from.
    pub path: PathBuf,
    /// When, in milliseconds since the Unix epoch.
    pub kept_at_ms: u64,
    /// How many bytes it holds.
    pub size: u64,
    /// Why: the primitive that was about to replace the file.
    pub before: String,
}

/// The kept versions of one session.
#[derive(Debug, Clone)]
pub struct VersionStore {
    repository: PathBuf,
    session: String,
}

impl VersionStore {
    /// The store of `session` in `repository` (the main worktree).
    pub fn new(repository: &Path, session: &str) -> Self {
        Self {
            repository: repository.to_path_buf(),
            session: session.to_owned(),
        }
    }

    /// The session's folder in the store.
    pub fn folder(&self) -> PathBuf {
        self.repository
            .join(".nodwyn")
            .join("versions")
            .join(&self.session)
    }

    /// Keeps `content`, what `path` held before `before` replaced it, and returns the version's
    /// number.
    pub fn keep(&self, path: &Path, content: &[u8], before: &str) -> Result<u64, Error> {
        let folder = self.prepare()?;
        let mut version = self.list()?.last().map_or(1, |v| v.version + 1);
        let mut file = loop {
            let bytes = folder.join(format!("{version}.bytes"));
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&bytes)
            {
                Ok(file) => break file,
                // Another process took this number meanwhile: take the next.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => version += 1,
                Err(e) => return Err(Error::io(&bytes)(e)),
            }
        };
        let bytes_path = folder.join(format!("{version}.bytes"));
        file.write_all(content).map_err(Error::io(&bytes_path))?;
        let kept = KeptVersion {
            version,
            path: path.to_path_buf(),
            kept_at_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            size: content.len() as u64,
            before: before.to_owned(),
        };
        let meta_path = folder.join(format!("{version}.json"));
        let meta = serde_json::to_vec_pretty(&kept).unwrap_or_default();
        fs::write(&meta_path, meta).map_err(Error::io(&meta_path))?;
        Ok(version)
    }

    /// Keeps the file's current content when it is a regular file (see [`VersionStore::keep`]),
    /// then writes `content` as the file, both through the folder `file` holds open (see
    /// [`Beneath`]). Returns the kept version's number, if anything was kept.
    pub fn replace(
        &self,
        file: &Beneath,
        content: &[u8],
        before: &str,
    ) -> Result<Option<u64>, Error> {
        let kept = match file.read_regular()? {
            Some(previous) => Some(self.keep(&file.path(), &previous, before)?),
            None => None,
        };
        file.write(content)?;
        Ok(kept)
    }

    /// Every kept version of the session, oldest first. A store that does not exist is empty; a
    /// record that cannot be read is left out.
    pub fn list(&self) -> Result<Vec<KeptVersion>, Error> {
        let folder = self.folder();
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(&folder)(e)),
        };
        let mut versions: Vec<KeptVersion> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| serde_json::from_slice(&fs::read(e.path()).ok()?).ok())
            .collect();
        versions.sort_by_key(|v| v.version);
        Ok(versions)
    }

    /// The content of version `version`.
    pub fn content(&self, version: u64) -> Result<(KeptVersion, Vec<u8>), Error> {
        let kept = self
            .list()?
            .into_iter()
            .find(|v| v.version == version)
            .ok_or_else(|| {
                Error::declined("no_such_version", format!(
                    "session {} has no kept version {version}; `nodwyn versions list {}` lists them",
                    self.session, self.session
                ))
            })?;
        let path = self.folder().join(format!("{version}.bytes"));
        let content = fs::read(&path).map_err(Error::io(&path))?;
        Ok((kept, content))
    }

    /// Makes `.nodwyn/versions/<session>/`, refusing a link on the way, with a `.gitignore` that
    /// keeps the store out of `git status`.
    fn prepare(&self) -> Result<PathBuf, Error> {
        let nodwyn = self.repository.join(".nodwyn");
        let versions = nodwyn.join("versions");
        let folder = self.folder();
        for dir in [&nodwyn, &versions, &folder] {
            match fs::symlink_metadata(dir) {
                Ok(meta) if meta.is_dir() => continue,
                Ok(_) => {
                    return Err(Error::declined(
                        "not_a_real_folder",
                        format!(
                            "{} is not a real folder (a link or a file); nodwyn keeps versions only in a real folder of the repository",
                            dir.display()
                        ),
                    ));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(dir)(e)),
            }
            match fs::create_dir(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(Error::io(dir)(e)),
            }
        }
        let ignore = versions.join(".gitignore");
        if fs::symlink_metadata(&ignore).is_err() {
            fs::write(&ignore, "*\n").map_err(Error::io(&ignore))?;
        }
        Ok(folder)
    }
}

/// Writes `content` to `path` through a temporary file in the same folder renamed over it, so a
/// reader never sees half a file, and a link at `path` is replaced rather than written through.
/// The file keeps its permissions when it existed.
pub fn write_file(path: &Path, content: &[u8]) -> Result<(), Error> {
    let parent = path.parent().ok_or_else(|| {
        Error::declined(
            "no_parent_folder",
            format!("{} has no parent folder", path.display()),
        )
    })?;
    fs::create_dir_all(parent).map_err(Error::io(parent))?;
    let mut temporary = tempfile::NamedTempFile::new_in(parent).map_err(Error::io(parent))?;
    temporary.write_all(content).map_err(Error::io(path))?;
    if let Ok(meta) = fs::symlink_metadata(path)
        && meta.is_file()
    {
        fs::set_permissions(temporary.path(), meta.permissions()).map_err(Error::io(path))?;
    }
    temporary
        .persist(path)
        .map_err(|e| Error::io(path)(e.error))?;
    Ok(())
}
