//! Taking turns on a repository: a lock file in the git common directory that nodwyn's processes
//! hold while doing what two of them must not do at once (adding or removing worktrees, landing).
//! The lock is the kernel's (`flock`), so a process that dies lets go of it, and the holder writes
//! who it is into the file so a process that waits can say what it waits for.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::Error;

/// The lock worktree additions and removals take turns on.
pub const WORKTREES: &str = "nodwyn-worktrees.lock";
/// The lock landings take turns on: from reading the newest base to moving it.
pub const LANDING: &str = "nodwyn-land.lock";

/// How often a waiting process tries the lock again and looks at its cancel flag.
const POLL: Duration = Duration::from_millis(50);

/// A turn on a repository's lock, held until dropped.
#[derive(Debug)]
pub struct Turn {
    _file: File,
}

/// Waits for, then holds, the repository's lock `name` (see [`WORKTREES`], [`LANDING`]).
pub fn take(repository: &Path, name: &str) -> Result<Turn, Error> {
    let (file, path) = open(repository, name)?;
    file.lock().map_err(io(&path))?;
    Ok(Turn { _file: file })
}

/// Takes the repository's lock `name`, saying it is held by `holder` (a few words: whose turn it
/// is). When another process holds it, `waiting` is told once what that holder wrote, then the
/// lock is tried again until it is free or `cancel` is raised (then `None`).
pub fn take_waiting(
    repository: &Path,
    name: &str,
    holder: &str,
    cancel: &AtomicBool,
    waiting: impl FnOnce(&str),
) -> Result<Option<Turn>, Error> {
    let (mut file, path) = open(repository, name)?;
    let mut waiting = Some(waiting);
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) => {
                if let Some(tell) = waiting.take() {
                    tell(&held_by(&mut file));
                }
                if cancel.load(Ordering::SeqCst) {
                    return Ok(None);
                }
                std::thread::sleep(POLL);
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(&path)(e)),
        }
    }
    // Who holds it, for the next one to wait; a failure to say so is no reason to stop.
    let _ = file.set_len(0).and_then(|()| {
        file.rewind()?;
        file.write_all(holder.as_bytes())
    });
    Ok(Some(Turn { _file: file }))
}

/// What the lock's holder wrote of itself (at most a line of 200 bytes), or `""`.
fn held_by(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file
        .rewind()
        .and_then(|()| file.take(200).read_to_string(&mut text));
    text.lines().next().unwrap_or_default().trim().to_owned()
}

fn open(repository: &Path, name: &str) -> Result<(File, PathBuf), Error> {
    let path = crate::repo::common_dir(repository)?.join(name);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(io(&path))?;
    Ok((file, path))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repository() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let made = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(made.success());
        dir
    }

    #[test]
    fn a_second_taker_waits_is_told_who_holds_it_and_gets_it_once_free() {
        let repo = repository();
        let first = take_waiting(
            repo.path(),
            LANDING,
            "session aaaa1111",
            &AtomicBool::new(false),
            |_| panic!("nobody held it"),
        )
        .unwrap()
        .unwrap();
        let told = std::sync::Mutex::new(None);
        let path = repo.path().to_path_buf();
        let released = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(first);
        });
        let second = take_waiting(
            &path,
            LANDING,
            "session bbbb2222",
            &AtomicBool::new(false),
            |who| {
                *told.lock().unwrap() = Some(who.to_owned());
            },
        )
        .unwrap();
        released.join().unwrap();
        assert!(second.is_some());
        assert_eq!(
            told.into_inner().unwrap().as_deref(),
            Some("session aaaa1111")
        );
        let written = std::fs::read_to_string(repo.path().join(".git").join(LANDING)).unwrap();
        assert_eq!(written, "session bbbb2222");
    }

    #[test]
    fn a_raised_cancel_stops_the_wait() {
        let repo = repository();
        let _held = take(repo.path(), LANDING).unwrap();
        let cancel = AtomicBool::new(true);
        let taken = take_waiting(repo.path(), LANDING, "me", &cancel, |_| {}).unwrap();
        assert!(taken.is_none());
    }
}
