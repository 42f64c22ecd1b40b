//! `nodwyn run --headless --export PATH`: a session's whole record as one file, to be carried
//! home (a CI artifact) and imported there.
//!
//! The file is one JSON document: the format's number, the nodwyn that wrote it, the session's
//! id, where it ran, its branch with the commit it started from and the commit it ended at, and
//! every record of its log as the log holds them (so redacted as the log is: no credential the
//! guard masked is in it). It is written beside its place and renamed there, so a reader never
//! sees half of one; an existing file is never replaced.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::event::RanOn;
use crate::session::Session;
use crate::store::Store;

/// The export format this nodwyn writes and reads.
pub const FORMAT: u32 = 1;

/// An exported session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Export {
    /// The format's number ([`FORMAT`]).
    pub nodwyn_export: u32,
    /// The version of nodwyn that wrote it.
    pub nodwyn_version: String,
    /// The session's full id.
    pub session: String,
    /// Where it ran (the same as its log's `run.headless` record).
    pub ran_on: RanOn,
    /// Its branch.
    pub branch: String,
    /// The branch it started from (`""` for a detached start).
    pub base: String,
    /// The commit it started from.
    pub base_commit: String,
    /// Its branch's tip when the file was written; `null` when the branch is gone.
    pub head: Option<String>,
    /// Every record of its log, in order, as the log holds them.
    pub records: Vec<serde_json::Value>,
}

/// Writes session `id`'s export to `path`, which must not exist yet.
pub fn export(store: &Store, id: &str, path: &Path) -> Result<Export, Error> {
    let stored = store.find(id)?;
    let session = Session::load(&stored)?;
    let facts = session.worktree.as_ref().ok_or_else(|| {
        Error::declined(
            "no_worktree",
            format!(
                "session {} has no worktree and so no branch to export",
                session.id
            ),
        )
    })?;
    let mut records = Vec::new();
    stored.log.each_value(|value| {
        records.push(value);
        ControlFlow::Continue(())
    })?;
    let ran_on = records
        .iter()
        .rev()
        .find(|record| record["type"] == "run.headless")
        .and_then(|record| serde_json::from_value::<RanOn>(record["ran_on"].clone()).ok())
        .ok_or_else(|| {
            Error::declined(
                "not_headless",
                format!(
                    "session {} never ran headless (`nodwyn run --headless`), so there is no record of where it ran to export",
                    session.id
                ),
            )
        })?;
    let export = Export {
        nodwyn_export: FORMAT,
        nodwyn_version: env!("CARGO_PKG_VERSION").to_owned(),
        session: session.id.to_string(),
        ran_on,
        branch: facts.branch.clone(),
        base: facts.base.clone(),
        base_commit: facts.base_commit.clone(),
        head: nodwyn_git::repo::branch_tip(&facts.repository, &facts.branch)?,
        records,
    };
    write_new(path, &export)?;
    Ok(export)
}

/// Refuses `path` when something is there already: an export never replaces a file.
pub fn refuse_existing(path: &Path) -> Result<(), Error> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(Error::declined(
            "export_exists",
            format!(
                "{} exists already, and an export never replaces a file: name another",
                path.display()
            ),
        ));
    }
    Ok(())
}

/// Writes `export` to a temporary file beside `path`, then links it at `path` (failing if
/// something appeared there meanwhile).
fn write_new(path: &Path, export: &Export) -> Result<(), Error> {
    refuse_existing(path)?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(folder).map_err(Error::io(folder))?;
    let text = serde_json::to_vec_pretty(export)
        .map_err(|e| Error::declined("export_failed", e.to_string()))?;
    file.write_all(&text).map_err(Error::io(path))?;
    file.write_all(b"\n").map_err(Error::io(path))?;
    file.as_file().sync_all().map_err(Error::io(path))?;
    file.persist_noclobber(path)
        .map_err(|e| Error::io(path)(e.error))?;
    Ok(())
}
