//! "Is anything uncommitted here?" answered from memory while nothing it depends on changed.
//!
//! A clean worktree of 20,000 files costs 20,000 `statx` calls to check, every time. A process
//! that lives on (`nodwyn serve`) can do better: when it checks a worktree it first puts an
//! inotify watch on every folder and git file the answer depends on (what
//! `quick_dirty` reads: the checkout's folders that hold tracked files or are not
//! ignored, the git folders, the branch's ref folders, the person's git configuration), and keeps
//! the answer. Asked again, it reads the events the kernel queued since; if none touched what
//! the answer depends on, the answer stands, else the worktree is checked again. In git's shared
//! folders only the names the worktree reads count (its branch's ref, not another session's;
//! the configuration, not the main checkout's index), and a `*.lock` file coming and going in
//! git's folders is no change.
//!
//! It is exact because the kernel queues an event before the write that caused it returns: a
//! change made before the question is in the queue when it is read. A check counts the events
//! of its worktree from before it began; an event that arrives while it runs means its answer is
//! given but not kept, and the watches it added are kept beside those of any check that was
//! (only a kept check replaces a worktree's watches). What cannot be watched is not kept either:
//! a file system that does not report other machines' writes (NFS, SMB, FUSE, 9p, cluster file
//! systems), a worktree past its share or this watcher's share of the person's inotify watches,
//! a tracked file with another hard link, a queue that overflowed (every answer is dropped), a
//! folder that is no longer the one checked (device and inode), and any worktree the quick check
//! leaves to `git status`; such a worktree holds no watches. Writes through a shared memory map,
//! which inotify does not report, and a file system mounted inside a worktree are not seen until
//! something else changes.

use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};

use crate::Error;
use crate::quick_dirty::Reads;

/// What a watch reports: anything that changes a name, a content or a mode.
const CHANGES: WatchFlags = WatchFlags::MODIFY
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::CLOSE_WRITE)
    .union(WatchFlags::CREATE)
    .union(WatchFlags::DELETE)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::MOVED_FROM)
    .union(WatchFlags::MOVED_TO)
    .union(WatchFlags::EXCL_UNLINK);

/// File systems whose writes from elsewhere inotify does not report (`statfs`'s `f_type`): NFS,
/// SMB/CIFS (old and new), FUSE, 9p, Ceph, OpenAFS and kAFS, GPFS, Lustre, OCFS2, GFS2,
/// VirtualBox's shared folders, Coda.
const REMOTE_FILE_SYSTEMS: [u32; 15] = [
    0x6969,
    0x517b,
    0xff53_4d42,
    0xfe53_4d42,
    0x6573_5546,
    0x0102_1997,
    0x00c3_6400,
    0x5346_414f,
    0x6b41_4653,
    0x4750_4653,
    0x0bd0_0bd0,
    0x7461_636f,
    0x0116_1970,
    0x786f_4256,
    0x7375_7245,
];

/// The share of the person's inotify watches (`max_user_watches`) one watcher may take.
const SHARE_OF_WATCHES: usize = 2;

/// The share of the person's inotify watches one worktree may take.
const SHARE_PER_WORKTREE: usize = 16;

/// Worktrees' dirty answers, kept while an inotify watch vouches for them.
pub struct DirtyWatch {
    state: Mutex<State>,
}

struct State {
    inotify: OwnedFd,
    /// Each watch: the worktrees it serves, and whether it is on git's own files.
    serves: HashMap<i32, Serving>,
    /// What is known of each worktree checked.
    worktrees: HashMap<PathBuf, Watched>,
    /// How many more watches this watcher may add.
    watches_left: usize,
    /// How many one worktree may take: one with more folders is checked each time.
    per_worktree: usize,
}

#[derive(Default)]
struct Serving {
    /// The worktrees, each with the names in the folder that matter to it (`None`: all).
    worktrees: HashMap<PathBuf, Option<HashSet<Vec<u8>>>>,
    /// On git's files, where a `*.lock` file's events are no change (`git status` takes the
    /// index's lock and drops it when it has nothing to write; a write renames the lock, and
    /// that event names the file it becomes).
    git: bool,
}

#[derive(Default)]
struct Watched {
    /// How many events touched it so far.
    changes: u64,
    /// Its answer, and the count of changes it was given at.
    known: Option<(u64, bool)>,
    /// The watches it is served by.
    watches: HashSet<i32>,
    /// Its folder's device and inode when its answer was kept: a folder put in its place (a
    /// parent renamed and another moved there) is another worktree.
    root: Option<(u64, u64)>,
}

/// [`DirtyWatch::is_dirty`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    /// Whether `git status` would show anything.
    pub dirty: bool,
    /// Whether it was kept from an earlier check that nothing since touched.
    pub remembered: bool,
}

impl Answer {
    fn checked(dirty: bool) -> Self {
        Self {
            dirty,
            remembered: false,
        }
    }
}

impl DirtyWatch {
    /// A watcher with its own inotify instance, or the reason the kernel gave for none.
    pub fn new() -> std::io::Result<Self> {
        let inotify = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)?;
        let allowed = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
            .ok()
            .and_then(|text| text.trim().parse::<usize>().ok())
            .unwrap_or(8192);
        Ok(Self {
            state: Mutex::new(State {
                inotify,
                serves: HashMap::new(),
                worktrees: HashMap::new(),
                watches_left: allowed / SHARE_OF_WATCHES,
                per_worktree: allowed / SHARE_PER_WORKTREE,
            }),
        })
    }

    /// Whether `git status` in the worktree at `dir` would show anything, as
    /// [`crate::status::is_dirty`] answers, and whether the answer was remembered.
    pub fn is_dirty(&self, dir: &Path) -> Result<Answer, Error> {
        let key = dir.to_path_buf();
        let root = identity(dir);
        let began = {
            let mut state = self.lock();
            state.read_events();
            let watched = state.worktrees.entry(key.clone()).or_default();
            if let Some((at, dirty)) = watched.known
                && at == watched.changes
                && root.is_some()
                && watched.root == root
            {
                return Ok(Answer {
                    dirty,
                    remembered: true,
                });
            }
            watched.changes
        };
        if is_on_remote_file_system(dir) {
            return Ok(Answer::checked(crate::status::is_dirty(dir)?));
        }
        let added = RefCell::new(HashSet::new());
        let complete = std::cell::Cell::new(true);
        let cap = self.lock().per_worktree;
        let reading = |path: &Path, reads: Reads| {
            if !complete.get() {
                return;
            }
            let watch = match reads {
                Reads::Unwatchable => None,
                _ if added.borrow().len() >= cap => None,
                _ => self.lock().watch(&key, path, reads),
            };
            match watch {
                Some(watch) => {
                    added.borrow_mut().insert(watch);
                }
                None => complete.set(false),
            }
        };
        let Some(dirty) = crate::quick_dirty::is_dirty_telling(dir, &reading) else {
            self.lock().settle(&key, HashSet::new());
            return Ok(Answer::checked(crate::status::is_dirty_unmodelled(dir)?));
        };
        let mut state = self.lock();
        state.read_events();
        let changes = state.worktrees.entry(key.clone()).or_default().changes;
        let kept = complete.get() && changes == began;
        match (kept, complete.get()) {
            // What this check read is what the answer depends on now.
            (true, _) => state.settle(&key, added.into_inner()),
            // Another check of the worktree may have kept an answer in the meantime, relying on
            // watches this one did not add: keep them all.
            (false, true) => state.add(&key, added.into_inner()),
            // Not watched whole, so not remembered: nothing is held for it.
            (false, false) => state.settle(&key, HashSet::new()),
        }
        let watched = state.worktrees.entry(key).or_default();
        if kept {
            watched.known = Some((began, dirty));
            watched.root = root;
        }
        tracing::debug!(dir = %dir.display(), dirty, kept, "checked a watched worktree");
        Ok(Answer::checked(dirty))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl State {
    /// A watch on `path` serving `worktree`, or `None` where none can be added.
    fn watch(&mut self, worktree: &Path, path: &Path, reads: Reads<'_>) -> Option<i32> {
        let flags = match reads {
            Reads::Git(_) => CHANGES,
            _ => CHANGES | WatchFlags::DONT_FOLLOW,
        };
        let watch = inotify::add_watch(&self.inotify, path, flags).ok()?;
        let serves = match self.serves.get_mut(&watch) {
            Some(serves) => serves,
            None if self.watches_left == 0 => {
                let _ = inotify::remove_watch(&self.inotify, watch);
                return None;
            }
            None => {
                self.watches_left -= 1;
                self.serves.entry(watch).or_default()
            }
        };
        let names = match reads {
            Reads::Git(names) if !names.is_empty() => {
                Some(names.iter().map(|name| name.as_bytes().to_vec()).collect())
            }
            _ => None,
        };
        let slot = serves.worktrees.entry(worktree.to_path_buf());
        match (slot, names) {
            (Entry::Occupied(mut held), Some(names)) => {
                if let Some(held) = held.get_mut() {
                    held.extend(names);
                }
            }
            (Entry::Occupied(mut held), None) => *held.get_mut() = None,
            (Entry::Vacant(free), names) => {
                free.insert(names);
            }
        }
        serves.git |= matches!(reads, Reads::Git(_));
        Some(watch)
    }

    /// Adds `added` to the watches serving `worktree`.
    fn add(&mut self, worktree: &Path, added: HashSet<i32>) {
        let watched = self.worktrees.entry(worktree.to_path_buf()).or_default();
        watched.watches.extend(added);
    }

    /// Makes `added` the watches serving `worktree`, removing those no worktree needs any more;
    /// with none, its answer is forgotten too.
    fn settle(&mut self, worktree: &Path, added: HashSet<i32>) {
        let watched = self.worktrees.entry(worktree.to_path_buf()).or_default();
        if added.is_empty() {
            watched.known = None;
        }
        let dropped: Vec<i32> = watched.watches.difference(&added).copied().collect();
        watched.watches = added;
        for watch in dropped {
            let Some(serves) = self.serves.get_mut(&watch) else {
                continue;
            };
            serves.worktrees.remove(worktree);
            if serves.worktrees.is_empty() {
                self.serves.remove(&watch);
                self.watches_left += 1;
                let _ = inotify::remove_watch(&self.inotify, watch);
            }
        }
    }

    /// Reads every event queued so far, counting a change for each worktree it touches.
    fn read_events(&mut self) {
        let mut buffer = [MaybeUninit::<u8>::uninit(); 16 * 1024];
        // Each watch an event touched, with the name it named (`None`: the watched file or
        // folder itself).
        let mut touched: HashSet<(i32, Option<Vec<u8>>)> = HashSet::new();
        let mut gone: Vec<i32> = Vec::new();
        let mut overflowed = false;
        {
            let mut reader = inotify::Reader::new(&self.inotify, &mut buffer);
            loop {
                match reader.next() {
                    Ok(event) => {
                        let flags = event.events();
                        if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                            overflowed = true;
                        }
                        let name = event.file_name().map(|name| name.to_bytes().to_vec());
                        let lock_file = name.as_ref().is_some_and(|n| n.ends_with(b".lock"));
                        let on_git = self.serves.get(&event.wd()).is_some_and(|s| s.git);
                        if !(lock_file && on_git) {
                            touched.insert((event.wd(), name));
                        }
                        if flags.contains(ReadFlags::IGNORED) {
                            gone.push(event.wd());
                        }
                    }
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(_) => break,
                }
            }
        }
        if overflowed {
            for watched in self.worktrees.values_mut() {
                watched.changes += 1;
            }
        }
        for (watch, name) in touched {
            let serving = self.serves.get(&watch).map(|s| &s.worktrees);
            for (worktree, names) in serving.into_iter().flatten() {
                let matters = match (names, &name) {
                    (Some(names), Some(name)) => names.contains(name),
                    _ => true,
                };
                if let Some(watched) = self.worktrees.get_mut(worktree).filter(|_| matters) {
                    watched.changes += 1;
                }
            }
        }
        for watch in gone {
            if let Some(serves) = self.serves.remove(&watch) {
                self.watches_left += 1;
                for worktree in serves.worktrees.into_keys() {
                    if let Some(watched) = self.worktrees.get_mut(&worktree) {
                        watched.watches.remove(&watch);
                    }
                }
            }
        }
    }
}

/// The device and inode of the folder at `dir`.
fn identity(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir)
        .ok()
        .map(|meta| (meta.dev(), meta.ino()))
}

/// Whether `dir` is on a file system whose changes made elsewhere inotify would not report.
fn is_on_remote_file_system(dir: &Path) -> bool {
    rustix::fs::statfs(dir).map_or(true, |info| {
        REMOTE_FILE_SYSTEMS.contains(&(info.f_type as u32))
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use super::{Answer, DirtyWatch};
    use crate::testing::{git, worktree, write};

    /// The watcher's answer for `dir`, after checking it is git's.
    fn ask(watch: &DirtyWatch, dir: &Path) -> Answer {
        let answer = watch.is_dirty(dir).unwrap();
        let by_git = crate::status::is_dirty_by_git(dir).unwrap();
        assert_eq!(answer.dirty, by_git, "git status says dirty: {by_git}");
        answer
    }

    fn checked(dirty: bool) -> Answer {
        Answer {
            dirty,
            remembered: false,
        }
    }

    fn remembered(dirty: bool) -> Answer {
        Answer {
            dirty,
            remembered: true,
        }
    }

    /// Asks twice after `change`: the first answer is a check and git's, the second remembered.
    fn after(watch: &DirtyWatch, dir: &Path, change: impl Fn(&Path), dirty: bool) {
        change(dir);
        assert_eq!(ask(watch, dir), checked(dirty));
        assert_eq!(ask(watch, dir), remembered(dirty));
    }

    #[test]
    fn an_answer_is_remembered_until_a_change_it_depends_on() {
        let temp = tempfile::tempdir().unwrap();
        let dir = worktree(temp.path());
        let watch = DirtyWatch::new().unwrap();
        after(&watch, &dir, |_| {}, false);
        // A change deep down, then undone with the same bytes.
        after(
            &watch,
            &dir,
            |d| write(d, "dir/deep/c.txt", "changed\n"),
            true,
        );
        after(
            &watch,
            &dir,
            |d| write(d, "dir/deep/c.txt", "gamma\n"),
            false,
        );
        // A tracked file in an ignored folder is still watched.
        after(&watch, &dir, |d| write(d, "build/keep.txt", "x\n"), true);
        after(
            &watch,
            &dir,
            |d| write(d, "build/keep.txt", "kept\n"),
            false,
        );
        // A mode.
        let mode = |d: &Path, bits| {
            std::fs::set_permissions(d.join("a.txt"), PermissionsExt::from_mode(bits)).unwrap()
        };
        after(&watch, &dir, |d| mode(d, 0o755), true);
        after(&watch, &dir, |d| mode(d, 0o644), false);
        // A deleted file, and a new one in new folders.
        after(
            &watch,
            &dir,
            |d| std::fs::remove_file(d.join("dir/b.txt")).unwrap(),
            true,
        );
        after(
            &watch,
            &dir,
            |d| git(d, &["checkout", "--", "dir/b.txt"]),
            false,
        );
        after(&watch, &dir, |d| write(d, "new/deeper/n.txt", "n\n"), true);
        after(
            &watch,
            &dir,
            |d| std::fs::remove_file(d.join("new/deeper/n.txt")).unwrap(),
            false,
        );
        // The emptied folders stay watched: a file in them is seen.
        after(&watch, &dir, |d| write(d, "new/deeper/m.txt", "m\n"), true);
        // Ignoring it makes the worktree clean; committing a change does too.
        after(
            &watch,
            &dir,
            |d| write(d, ".gitignore", "*.log\nignored/\nbuild/\nnew/\n"),
            true,
        );
        after(
            &watch,
            &dir,
            |d| git(d, &["commit", "-qam", "ignore new/"]),
            false,
        );
        // Staged changes live in the index, in the git folder.
        after(&watch, &dir, |d| write(d, "a.txt", "staged\n"), true);
        after(&watch, &dir, |d| git(d, &["add", "a.txt"]), true);
        after(
            &watch,
            &dir,
            |d| git(d, &["commit", "-qm", "staged"]),
            false,
        );
        // Moving the branch under a clean checkout leaves staged changes behind.
        after(
            &watch,
            &dir,
            |d| git(d, &["update-ref", "refs/heads/side", "main"]),
            true,
        );
    }

    #[test]
    fn writes_nothing_depends_on_keep_the_answer() {
        let temp = tempfile::tempdir().unwrap();
        let dir = worktree(temp.path());
        let watch = DirtyWatch::new().unwrap();
        write(&dir, "ignored/out/a.o", "object\n");
        assert_eq!(ask(&watch, &dir), checked(false));
        // A build's output in an ignored folder (a new name in a watched folder would count, even
        // an ignored one), and another worktree's work.
        write(&dir, "ignored/out/a.o", "rebuilt\n");
        write(&dir, "ignored/more/c.o", "object\n");
        write(&dir, "ignored/out/b.o", "object\n");
        write(&temp.path().join("repo"), "untracked.txt", "elsewhere\n");
        assert_eq!(ask(&watch, &dir), remembered(false));
        // `git status` takes the index's lock and drops it when it has nothing to write (a fresh
        // index's racily clean entries are written once, so it is given a second to settle).
        std::thread::sleep(std::time::Duration::from_millis(1100));
        git(&dir, &["status", "--porcelain"]);
        assert_eq!(ask(&watch, &dir), checked(false));
        git(&dir, &["status", "--porcelain"]);
        assert_eq!(ask(&watch, &dir), remembered(false));
    }

    #[test]
    fn each_worktree_is_answered_for_itself() {
        let temp = tempfile::tempdir().unwrap();
        let dir = worktree(temp.path());
        let repo = temp.path().join("repo");
        let watch = DirtyWatch::new().unwrap();
        assert_eq!(ask(&watch, &dir), checked(false));
        assert_eq!(ask(&watch, &repo), checked(false));
        write(&dir, "a.txt", "changed\n");
        assert_eq!(ask(&watch, &repo), remembered(false));
        assert_eq!(ask(&watch, &dir), checked(true));
        // A commit in the main checkout writes its index and its branch's ref, in folders the
        // linked worktree's answer depends on for other names only.
        write(&repo, "main.txt", "main\n");
        git(&repo, &["add", "main.txt"]);
        git(&repo, &["commit", "-q", "-m", "main"]);
        assert_eq!(ask(&watch, &repo), checked(false));
        assert_eq!(ask(&watch, &dir), remembered(true));
    }

    #[test]
    fn a_branch_whose_folder_of_refs_is_gone_is_still_remembered_and_followed() {
        let temp = tempfile::tempdir().unwrap();
        let dir = worktree(temp.path());
        git(&dir, &["branch", "-m", "side", "nodwyn/side"]);
        git(&dir, &["pack-refs", "--all"]);
        let refs = temp.path().join("repo/.git/refs/heads/nodwyn");
        assert!(!refs.exists(), "packing removed the emptied folder");
        let watch = DirtyWatch::new().unwrap();
        assert_eq!(ask(&watch, &dir), checked(false));
        assert_eq!(ask(&watch, &dir), remembered(false));
        // The branch moves: its loose ref comes back, in a folder made for it.
        git(&dir, &["commit", "-q", "--allow-empty", "-m", "moved"]);
        assert_eq!(ask(&watch, &dir), checked(false));
        assert_eq!(ask(&watch, &dir), remembered(false));
    }

    #[test]
    fn a_tracked_file_with_another_name_is_never_vouched_for() {
        let temp = tempfile::tempdir().unwrap();
        let dir = worktree(temp.path());
        let elsewhere = temp.path().join("another-name");
        std::fs::hard_link(dir.join("a.txt"), &elsewhere).unwrap();
        let watch = DirtyWatch::new().unwrap();
        assert_eq!(ask(&watch, &dir), checked(false));
        std::fs::write(&elsewhere, "written through the other name\n").unwrap();
        assert_eq!(ask(&watch, &dir), checked(true));
    }

    #[test]
    fn an_ignore_file_linked_from_elsewhere_is_followed() {
        let temp = tempfile::tempdir().unwrap();
        let dir = worktree(temp.path());
        let real = temp.path().join("dotfiles/ignore");
        write(temp.path(), "dotfiles/ignore", "*.log\n");
        let link = temp.path().join("ignore-link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        git(
            &dir,
            &["config", "core.excludesFile", link.to_str().unwrap()],
        );
        write(&dir, "scratch.tmp", "x\n");
        let watch = DirtyWatch::new().unwrap();
        assert_eq!(ask(&watch, &dir), checked(true));
        assert_eq!(ask(&watch, &dir), remembered(true));
        write(temp.path(), "dotfiles/ignore", "*.log\n*.tmp\n");
        assert_eq!(ask(&watch, &dir), checked(false));
    }
}
