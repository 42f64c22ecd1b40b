//! The repository is the project: sessions, logs and the session list key on the main worktree,
//! found from the git common directory, never on the folder a command ran in.

use std::path::{Path, PathBuf};

use crate::Error;

/// The repository (main worktree) that the checkout containing `dir` belongs to. Works from the
/// repository, from any of its worktrees (nodwyn's or a person's), and from folders below them.
pub fn repository_of(dir: &Path) -> Result<PathBuf, Error> {
    Ok(nodwyn_git::discover(dir)?.repository)
}

/// What the sessions opened in `dir` are kept under: its repository, or, outside git, the
/// folder itself (canonical).
pub fn sessions_folder_of(dir: &Path) -> Result<PathBuf, Error> {
    let dir = std::fs::canonicalize(dir).map_err(Error::io(dir))?;
    Ok(match nodwyn_git::discover(&dir) {
        Ok(checkout) => checkout.repository,
        Err(_) => dir,
    })
}

/// The session whose worktree holds `dir` (or a folder below it), if one does: inside a
/// session's worktree, that session is the one a command means when it names none.
pub fn session_at(store: &crate::Store, dir: &Path) -> Result<Option<crate::SessionId>, Error> {
    let dir = std::fs::canonicalize(dir).map_err(Error::io(dir))?;
    let Ok(repository) = repository_of(&dir) else {
        return Ok(None);
    };
    let (sessions, _) = crate::sessions_of(store, &repository)?;
    Ok(sessions
        .into_iter()
        .filter(|session| {
            session
                .active_worktree()
                .is_some_and(|facts| dir.starts_with(&facts.path))
        })
        .map(|session| session.id)
        .next())
}
