//! `nodwyn versions`: the kept versions of a session's files (kept by `fs-write` and `fs-edit` in
//! the repository's `.nodwyn/versions/`), and writing one back. A restore first keeps what the
//! file holds now, so it can itself be undone.

use std::path::{Path, PathBuf};

use nodwyn_prim::versions::{KeptVersion, VersionStore};
use serde::Serialize;

use crate::Error;
use crate::call::append;
use crate::event::Event;
use crate::session::Session;
use crate::store::Store;
use crate::worktree::locked_session;

/// The kept versions of one session.
#[derive(Debug, Serialize)]
pub struct SessionVersions {
    /// The session's full id.
    pub session: String,
    /// Its kept versions, oldest first.
    pub versions: Vec<KeptVersion>,
}

/// The kept versions of session `id`.
pub fn list(store: &Store, id: &str) -> Result<SessionVersions, Error> {
    let session = Session::load(&store.find(id)?)?;
    versions_of(&session)
}

/// The kept versions of every session of `repository` that has any.
pub fn list_repository(store: &Store, repository: &Path) -> Result<Vec<SessionVersions>, Error> {
    let (sessions, _unreadable) = crate::session::sessions_of(store, repository)?;
    let mut all = Vec::new();
    for session in &sessions {
        let listed = versions_of(session)?;
        if !listed.versions.is_empty() {
            all.push(listed);
        }
    }
    Ok(all)
}

fn versions_of(session: &Session) -> Result<SessionVersions, Error> {
    let id = session.id.to_string();
    let versions = VersionStore::new(&session.repository, &id).list()?;
    Ok(SessionVersions {
        session: id,
        versions,
    })
}

/// A restore.
#[derive(Debug, Serialize)]
pub struct Restored {
    /// The file written.
    pub path: PathBuf,
    /// The version written back.
    pub version: u64,
    /// The version that keeps what the file held before, if it held anything.
    pub kept: Option<u64>,
}

/// Refuses a kept version whose record names a path the session could not have written without
/// a person: outside the session's folder, under its `.git` or `.nodwyn`, or a credential file.
/// The record lives in the repository's `.nodwyn/versions/`, so it is judged as the guard judges
/// an agent's write, not trusted.
fn refuse_unless_the_sessions_own(
    session: &crate::session::Session,
    path: &Path,
    version: u64,
) -> Result<(), Error> {
    use nodwyn_guard::{Decision, Effect, Guard, StandingAnswers};
    let mut guard = Guard::new(
        &session.root,
        &session.repository,
        StandingAnswers::default(),
    );
    let verdict = guard.decide(&Effect {
        writes: vec![path.to_path_buf()],
        ..Effect::named("versions restore")
    });
    if matches!(
        verdict.decision,
        Decision::Refuse | Decision::Ask(nodwyn_guard::AskKind::Security)
    ) {
        return Err(Error::declined(
            "version_unwritable",
            format!(
                "version {version}'s record names {}, which it cannot write back ({}); give --to PATH to write it where you choose",
                path.display(),
                verdict.why
            ),
        ));
    }
    Ok(())
}

/// Writes version `version` of session `id` back to its file, or to `to` when given.
pub fn restore(
    store: &Store,
    id: &str,
    version: u64,
    to: Option<&Path>,
) -> Result<Restored, Error> {
    let locked = locked_session(store, id)?;
    let session = &locked.session;
    let versions = VersionStore::new(&session.repository, &session.id.to_string());
    let (kept, content) = versions.content(version)?;
    let path = match to {
        Some(to) => std::path::absolute(to).map_err(Error::io(to))?,
        None => {
            refuse_unless_the_sessions_own(session, &kept.path, version)?;
            kept.path.clone()
        }
    };
    let folder = path.parent().unwrap_or(Path::new("/"));
    if !folder.is_dir() {
        return Err(Error::declined(
            "folder_missing",
            match to {
                Some(_) => format!(
                    "the folder {} does not exist; make it first, or give --to a path in a folder that exists",
                    folder.display()
                ),
                None => format!(
                    "{} no longer exists (was the worktree removed?); give --to PATH to write version {version} elsewhere",
                    folder.display()
                ),
            },
        ));
    }
    let file = nodwyn_prim::beneath::Beneath::for_session(&session.root, &path)?;
    let before = versions.replace(&file, &content, "nodwyn versions restore")?;
    append(
        &locked.stored.log,
        Event::VersionRestore {
            path: path.clone(),
            version,
            kept: before,
        },
    )?;
    Ok(Restored {
        path,
        version,
        kept: before,
    })
}
