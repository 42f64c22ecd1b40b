//! Where a repository's worktrees go, and the checks that keep them there.
//!
//! By default a session's worktree is `<repository>/.nodwyn/worktrees/<short id>`: a backup of
//! the repository's folder then holds its sessions' work in progress too, and the folder ignores
//! itself with a `*` `.gitignore`. With `worktrees.location = "data"` it is
//! `$NODWYN_HOME/worktrees/<project id>/<short id>` instead. Either way the folder is nodwyn's:
//! nothing outside these two places is ever removed.

use std::path::{Path, PathBuf};

use nodwyn_git::repo::committed_links;

use crate::Error;
use crate::id::is_short_id;
use crate::store::Store;

pub use nodwyn_protocol::settings::WorktreeLocation;

/// The folders, relative to the repository, that must not be symbolic links.
const ON_THE_WAY: [&str; 2] = [".nodwyn", ".nodwyn/worktrees"];

/// The folder new worktrees of `repository` go in.
pub(crate) fn worktrees_root(
    store: &Store,
    repository: &Path,
    location: WorktreeLocation,
) -> PathBuf {
    match location {
        WorktreeLocation::Repository => repository.join(".nodwyn").join("worktrees"),
        WorktreeLocation::Data => store.worktrees_dir(repository),
    }
}

/// Makes sure the worktrees folder exists as a real folder and returns it (canonical).
///
/// Inside the repository, `.nodwyn` and `.nodwyn/worktrees` must be real folders on disk and must
/// not be committed as links in any of `commits` (a checkout would make them point elsewhere).
/// Several nodwyn processes may run this at once: an existing folder is accepted.
pub(crate) fn prepare_root(
    store: &Store,
    repository: &Path,
    location: WorktreeLocation,
    commits: &[&str],
) -> Result<PathBuf, Error> {
    let root = worktrees_root(store, repository, location);
    if location == WorktreeLocation::Data {
        std::fs::create_dir_all(&root).map_err(Error::io(&root))?;
        return std::fs::canonicalize(&root).map_err(Error::io(&root));
    }
    refuse_links(repository, commits)?;
    for relative in ON_THE_WAY {
        let folder = repository.join(relative);
        match std::fs::create_dir(&folder) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::io(&folder)(e)),
        }
        match std::fs::symlink_metadata(&folder) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Error::LinkOnDisk { path: folder });
            }
            Ok(meta) if meta.is_dir() => {}
            _ => return Err(Error::NotAFolder(folder)),
        }
    }
    write_ignore_file(&root)?;
    std::fs::canonicalize(&root).map_err(Error::io(&root))
}

/// Refuses when `.nodwyn` or `.nodwyn/worktrees` is a link, on disk or in one of `commits`.
pub(crate) fn refuse_links(repository: &Path, commits: &[&str]) -> Result<(), Error> {
    for relative in ON_THE_WAY {
        let path = repository.join(relative);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::LinkOnDisk { path });
        }
    }
    for commit in commits {
        if let Some(path) = committed_links(repository, commit, &ON_THE_WAY)?
            .into_iter()
            .next()
        {
            return Err(Error::LinkCommitted {
                path,
                commit: commit.chars().take(12).collect(),
            });
        }
    }
    Ok(())
}

/// Whether `path` is a worktree folder nodwyn would have made for `repository`: a short id
/// directly inside one of its two worktrees folders.
pub(crate) fn is_nodwyn_path(store: &Store, repository: &Path, path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let parent = path.parent();
    is_short_id(name)
        && [WorktreeLocation::Repository, WorktreeLocation::Data]
            .into_iter()
            .any(|location| parent == Some(worktrees_root(store, repository, location).as_path()))
}

/// `.nodwyn/worktrees/.gitignore` holding `*`, so the repository's `git status` stays clean.
/// Written with `create_new`: if it exists (another `new` wrote it a moment ago) it is left be.
fn write_ignore_file(root: &Path) -> Result<(), Error> {
    use std::io::Write;
    let path = root.join(".gitignore");
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(mut file) => file.write_all(b"*\n").map_err(Error::io(&path)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Error::io(&path)(e)),
    }
}

/// The checkout at a session's worktree `path`, as git finds it, refused when it is not a
/// worktree of `repository` (its `.git` names another repository, or none nodwyn can trust): no
/// state of the worktree is read, and no git runs there, from what its content chose.
pub(crate) fn checkout_of(path: &Path, repository: &Path) -> Result<nodwyn_git::Checkout, Error> {
    // Without its own `.git`, git would find the checkout around it (the person's, where
    // nodwyn's worktrees live) and answer for that one.
    if std::fs::symlink_metadata(path.join(".git")).is_err() {
        return Err(Error::Git(nodwyn_git::Error::Redirected {
            dir: path.to_path_buf(),
            why: "its .git is gone, as a removal cut short leaves it".to_owned(),
        }));
    }
    let checkout = nodwyn_git::discover(path)?;
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    if real(&checkout.toplevel) != real(path) || real(&checkout.repository) != real(repository) {
        return Err(Error::Git(nodwyn_git::Error::Redirected {
            dir: path.to_path_buf(),
            why: "its .git points at another repository".to_owned(),
        }));
    }
    Ok(checkout)
}
