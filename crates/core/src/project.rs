//! The repository is the project: sessions, logs and the session list key on the main worktree,
//! found from the git common directory, never on the folder a command ran in.

use std::path::{Path, PathBuf};

use crate::Error;

/// The repository (main worktree) that the checkout containing `dir` belongs to. Works from the
/// repository, from any of its worktrees (nodwyn's or a person's), and from folders below them.
pub fn repository_of(dir: &Path) -> Result<PathBuf, Error> {
    Ok(nodwyn_git::discover(dir)?.repository)
}
