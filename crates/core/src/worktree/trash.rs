//! Taking a worktree's folder away at once: it is renamed into a trash folder beside the
//! worktrees (`.trash/`, on the same file system), git's registration of it is cleared, and the
//! trash is emptied by a process in the background, so removing a worktree of a large build
//! returns at once. Every removal empties what earlier ones left in the trash (one killed before
//! its emptying ended, or a machine that went down).
//!
//! git removes the folder itself instead when the rename cannot be done (another file system) or
//! when the worktree has submodules (git refuses to remove those, and nodwyn does not override it).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::Error;
use crate::clock::Timestamp;

/// The trash folder's name, beside the worktrees.
const TRASH: &str = ".trash";

/// Takes the worktree at `path` of `repository` away: into the trash, or removed by git (`force`
/// as `git worktree remove --force`). [`empty_beside`] then empties the trash.
pub(crate) fn take_away(repository: &Path, path: &Path, force: bool) -> Result<(), Error> {
    let keeps_submodules = path.join(".gitmodules").exists();
    if let Some(trash) = trash_beside(path).filter(|_| !keeps_submodules) {
        move_into(&trash, path);
    }
    // A folder moved away leaves git's record of it, which this clears and nothing else.
    nodwyn_git::worktree::remove(repository, path, force)?;
    nodwyn_prim::fault::point("trashed-unemptied");
    Ok(())
}

/// Empties, in the background, the trash beside the worktree folder `path`: what this removal put
/// there and what earlier ones left.
pub(crate) fn empty_beside(path: &Path) {
    if let Some(trash) = trash_beside(path) {
        empty_in_background(&trash);
    }
}

/// The trash of the worktrees folder `path` is in.
fn trash_beside(path: &Path) -> Option<PathBuf> {
    Some(path.parent()?.join(TRASH))
}

/// Renames `path` into `trash` under a name of its own; `None` when it cannot be renamed there,
/// or when the trash is anything but a real folder: a link there (committed into the checkout,
/// say) would have everything it points at emptied with the trash.
fn move_into(trash: &Path, path: &Path) -> Option<PathBuf> {
    match std::fs::symlink_metadata(trash) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            tracing::warn!(trash = %trash.display(), "the trash is not a folder; git removes the worktree");
            return None;
        }
        Err(_) => std::fs::create_dir(trash).ok()?,
    }
    let name = format!(
        "{}-{}",
        path.file_name()?.to_string_lossy(),
        Timestamp::now().compact()
    );
    let into = trash.join(name);
    match std::fs::rename(path, &into) {
        Ok(()) => Some(into),
        Err(error) => {
            tracing::info!(%error, from = %path.display(), "not moved into the trash; git removes it");
            None
        }
    }
}

/// Deletes everything in `trash` from a process of its own, which outlives this command.
fn empty_in_background(trash: &Path) {
    if !std::fs::symlink_metadata(trash).is_ok_and(|meta| meta.is_dir()) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(trash) else {
        return;
    };
    let mut argv: Vec<OsString> = vec!["rm".into(), "-rf".into(), "--".into()];
    argv.extend(entries.flatten().map(|entry| entry.path().into_os_string()));
    if argv.len() == 3 {
        return;
    }
    // It works from beside the trash, so no process is left inside anything it deletes.
    let beside = trash.parent().unwrap_or(trash);
    if let Err(error) = nodwyn_proc::detached(&argv, beside) {
        tracing::warn!(%error, trash = %trash.display(), "the trash was not emptied; the next removal empties it");
    }
}
