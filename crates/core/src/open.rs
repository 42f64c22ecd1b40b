//! Opening an agent's session in a folder: the checkout itself (worktree mode `off`, and `auto`
//! until the first change), or any folder outside git. Refused first, for every front-end, are
//! the folders no agent should be let loose in: `/`, the home folder itself or a folder holding
//! it, and nodwyn's data directory, anything below it or a folder holding it.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::clock::Timestamp;
use crate::event::{Event, Record};
use crate::store::{Store, StoredSession};

/// Refuses `dir` as a session's folder when it is `/`, the person's home folder itself or a
/// folder holding it, or the data directory `data`, below it or a folder holding it (links
/// resolved).
pub fn refuse_task_root(dir: &Path, home: Option<&Path>, data: &Path) -> Result<(), Error> {
    let dir = std::fs::canonicalize(dir).map_err(Error::io(dir))?;
    let resolved = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    let why = if dir.parent().is_none() {
        Some("it is the root of the file system")
    } else if home.is_some_and(|home| resolved(home) == dir) {
        Some("it is your home folder, which holds far more than one project")
    } else if home.is_some_and(|home| resolved(home).starts_with(&dir)) {
        Some("it holds your home folder")
    } else if dir.starts_with(resolved(data)) {
        Some("it is inside nodwyn's data directory, where sessions and their logs live")
    } else if resolved(data).starts_with(&dir) {
        Some("it holds nodwyn's data directory, where sessions and their logs live")
    } else {
        None
    };
    match why {
        Some(why) => Err(Error::TaskRoot {
            dir,
            why: why.to_owned(),
        }),
        None => Ok(()),
    }
}

/// Opens a session of an agent in `dir` without a worktree: in a git checkout the session's
/// folder is the checkout's top and it belongs to the checkout's repository; outside git, to the
/// folder itself.
pub fn open_in_folder(
    store: &Store,
    dir: &Path,
    home: Option<&Path>,
) -> Result<StoredSession, Error> {
    refuse_task_root(dir, home, store.home())?;
    let dir = std::fs::canonicalize(dir).map_err(Error::io(dir))?;
    let (root, repository): (PathBuf, PathBuf) = match nodwyn_git::discover(&dir) {
        Ok(checkout) => (checkout.toplevel, checkout.repository),
        // Kept under the folder itself, as `sessions_folder_of` finds it.
        Err(_) => (dir.clone(), dir),
    };
    refuse_task_root(&root, home, store.home())?;
    store.open_session(
        &repository,
        Timestamp::now(),
        |_| false,
        |_| {
            Record::new(
                Timestamp::now(),
                Event::SessionStart {
                    root: root.clone(),
                    repository: repository.clone(),
                    worktree: None,
                },
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_the_home_folder_and_the_data_directory_are_refused() {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path().join("home");
        let data = home.join(".local/share/nodwyn");
        let project = home.join("src/app");
        std::fs::create_dir_all(data.join("sessions")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        // A folder holding the home folder, or the data directory kept elsewhere.
        let elsewhere = temp.path().join("srv/nodwyn");
        std::fs::create_dir_all(&elsewhere).unwrap();
        refuse_task_root(temp.path(), Some(&home), &data).unwrap_err();
        let error = refuse_task_root(&temp.path().join("srv"), None, &elsewhere).unwrap_err();
        assert!(
            error.to_string().contains("holds nodwyn's data directory"),
            "{error}"
        );
        for refused in [Path::new("/"), &home, &data, &data.join("sessions")] {
            let error = refuse_task_root(refused, Some(&home), &data).unwrap_err();
            assert_eq!(error.code(), "task_root", "{refused:?}");
        }
        refuse_task_root(&project, Some(&home), &data).unwrap();
        refuse_task_root(&home.join("src"), Some(&home), &data).unwrap();
    }
}
