//! Writing a file exactly where the guard judged it, whatever changes on disk meanwhile.
//!
//! A path is judged as text; a write that resolved it again through the file system could be
//! sent elsewhere by a link swapped in between (a `src` folder turned into a link to
//! `.git/hooks`). So the folder that holds the file is opened from an anchor (the session's
//! folder, or `/` for a path outside it), one component at a time, never following a link
//! (`O_NOFOLLOW` at each step; missing folders are made on the way), and everything after that
//! happens relative to that open folder: the previous content is read, a temporary file is
//! written beside it and renamed over the name. A link anywhere on the way is refused, and a link
//! at the name itself is replaced, never written through.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use crate::Error;

/// The open folder that holds a file, and the file's name in it.
pub struct Beneath {
    folder: OwnedFd,
    folder_path: PathBuf,
    name: OsString,
}

/// How [`Beneath::create_clone_of`] made a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopiedBy {
    /// A reflink: the file shares the source's blocks until either is written.
    Reflink,
    /// Its bytes were copied.
    Bytes,
}

impl Beneath {
    /// Opens the folder of `path` for a write in a session pinned to `root`: from `root` when
    /// `path` is beneath it (see [`Beneath::open`]); a path outside it (which only a person's
    /// security confirm lets through) from its folder as it is now, links resolved.
    pub fn for_session(root: &Path, path: &Path) -> Result<Self, Error> {
        let root = nodwyn_guard::denylist::normalise(root);
        if path.starts_with(&root) {
            return Self::open(&root, path);
        }
        let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(Error::declined(
                "no_file_name",
                format!("{} names no file", path.display()),
            ));
        };
        let folder = std::fs::canonicalize(folder).map_err(Error::io(folder))?;
        Self::open(&folder, &folder.join(name))
    }

    /// Opens the folder of `path` (absolute, normalised) from `anchor`, which `path` must be
    /// beneath: each folder on the way is opened without following links and made when missing.
    pub fn open(anchor: &Path, path: &Path) -> Result<Self, Error> {
        let relative = path.strip_prefix(anchor).map_err(|_| {
            Error::declined(
                "not_beneath",
                format!("{} is not beneath {}", path.display(), anchor.display()),
            )
        })?;
        let Some(name) = relative.file_name() else {
            return Err(Error::declined(
                "no_file_name",
                format!("{} names no file", path.display()),
            ));
        };
        let (folder, folder_path) = open_folders(anchor, relative.parent(), path)?;
        Ok(Self {
            folder,
            folder_path,
            name: name.to_os_string(),
        })
    }

    /// Makes the folder `path` (absolute, normalised, beneath `anchor`) and every folder on the
    /// way, each opened without following links, as [`Beneath::open`] does for a file's folder.
    pub fn make_folders(anchor: &Path, path: &Path) -> Result<(), Error> {
        let relative = path.strip_prefix(anchor).map_err(|_| {
            Error::declined(
                "not_beneath",
                format!("{} is not beneath {}", path.display(), anchor.display()),
            )
        })?;
        open_folders(anchor, Some(relative), path).map(drop)
    }

    /// The file's path, as opened.
    pub fn path(&self) -> PathBuf {
        self.folder_path.join(&self.name)
    }

    /// The file's content when it is a regular file; `None` when there is none (or a link, a
    /// folder, a device: nothing a write would keep).
    pub fn read_regular(&self) -> Result<Option<Vec<u8>>, Error> {
        let file = match rustix::fs::openat(
            &self.folder,
            &self.name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        ) {
            Ok(fd) => File::from(fd),
            Err(Errno::NOENT | Errno::LOOP) => return Ok(None),
            Err(e) => return Err(io_error(&self.path())(e)),
        };
        let meta = file.metadata().map_err(Error::io(&self.path()))?;
        if !meta.is_file() {
            return Ok(None);
        }
        let mut content = Vec::new();
        (&file)
            .read_to_end(&mut content)
            .map_err(Error::io(&self.path()))?;
        Ok(Some(content))
    }

    /// Whether a folder (not a link to one) has the file's name.
    pub fn is_folder(&self) -> bool {
        rustix::fs::statat(&self.folder, &self.name, AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|stat| rustix::fs::FileType::from_raw_mode(stat.st_mode).is_dir())
    }

    /// Whether anything has the file's name.
    pub fn exists(&self) -> bool {
        rustix::fs::statat(&self.folder, &self.name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
    }

    /// Writes `content` as the file: a reader never sees half a file, a link at the name is
    /// replaced, and an existing regular file's permissions are kept.
    ///
    /// The content goes first into a file with no name (`O_TMPFILE`), which a kill leaves
    /// nowhere. Only when it is whole is it given a name: the file's own when nothing has it yet
    /// (so no other name ever exists), and otherwise a temporary one beside it
    /// ([`is_leftover`] knows its shape), renamed over the file at once. Where the file system
    /// has no `O_TMPFILE`, the temporary name is made first and written.
    pub fn write(&self, content: &[u8]) -> Result<(), Error> {
        let previous_mode = rustix::fs::statat(&self.folder, &self.name, AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .filter(|stat| rustix::fs::FileType::from_raw_mode(stat.st_mode).is_file())
            .map(|stat| Mode::from_raw_mode(stat.st_mode) & Mode::from_raw_mode(0o7777));
        let fill = |file: &File| -> Result<(), Error> {
            if let Some(mode) = previous_mode {
                rustix::fs::fchmod(file, mode).map_err(io_error(&self.path()))?;
            }
            let mut file = file;
            file.write_all(content).map_err(Error::io(&self.path()))
        };
        if let Some(unnamed) = self.unnamed()? {
            let file = File::from(unnamed);
            fill(&file)?;
            return self.name_whole(&file);
        }
        let (temporary, file) = self.temporary()?;
        let written = fill(&File::from(file)).and_then(|()| {
            crate::fault::point("write-before-rename");
            rustix::fs::renameat(&self.folder, &temporary, &self.folder, &self.name)
                .map_err(io_error(&self.path()))
        });
        if written.is_err() {
            let _ = rustix::fs::unlinkat(&self.folder, &temporary, AtFlags::empty());
        }
        written
    }

    /// A file with no name in the folder, or `None` where the file system cannot make one.
    fn unnamed(&self) -> Result<Option<OwnedFd>, Error> {
        match rustix::fs::openat(
            &self.folder,
            ".",
            OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(fd) => Ok(Some(fd)),
            Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL | Errno::NOENT) => Ok(None),
            Err(e) => Err(io_error(&self.folder_path)(e)),
        }
    }

    /// Gives the whole, unnamed `file` the file's name (see [`Beneath::write`]).
    fn name_whole(&self, file: &File) -> Result<(), Error> {
        use std::os::fd::AsRawFd;
        // Linking a descriptor by its /proc name needs no privilege (AT_EMPTY_PATH would).
        let by_descriptor = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        let link = |name: &OsStr| {
            rustix::fs::linkat(
                rustix::fs::CWD,
                &by_descriptor,
                &self.folder,
                name,
                AtFlags::SYMLINK_FOLLOW,
            )
        };
        match link(&self.name) {
            Ok(()) => return Ok(()),
            Err(Errno::EXIST) => {}
            Err(e) => return Err(io_error(&self.path())(e)),
        }
        let mut attempt = 0u32;
        let temporary = loop {
            let name = self.temporary_name(attempt);
            match link(&name) {
                Ok(()) => break name,
                Err(Errno::EXIST) if attempt < 100 => attempt += 1,
                Err(e) => return Err(io_error(&self.folder_path.join(&name))(e)),
            }
        };
        crate::fault::point("write-before-rename");
        let renamed = rustix::fs::renameat(&self.folder, &temporary, &self.folder, &self.name)
            .map_err(io_error(&self.path()));
        if renamed.is_err() {
            let _ = rustix::fs::unlinkat(&self.folder, &temporary, AtFlags::empty());
        }
        renamed
    }

    /// The temporary name beside the file for the attempt `attempt`: `.NAME.nodwyn-PID-N`.
    fn temporary_name(&self, attempt: u32) -> OsString {
        let mut name = OsString::from(".");
        name.push(&self.name);
        name.push(format!(".nodwyn-{}-{attempt}", std::process::id()));
        name
    }

    /// Removes what a write of this file that was killed left beside it: files of the shape of
    /// `.NAME.nodwyn-PID-N` ([`is_leftover`]) for this name (whole or in part, the file itself never
    /// became them). Returns how many went.
    pub fn remove_leftovers(&self) -> usize {
        let Ok(dir) = rustix::fs::Dir::read_from(&self.folder) else {
            return 0;
        };
        let mut prefix = OsString::from(".");
        prefix.push(&self.name);
        prefix.push(".nodwyn-");
        let mut removed = 0;
        for entry in dir.flatten() {
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            let regular = entry.file_type() == rustix::fs::FileType::RegularFile;
            if regular
                && name.as_bytes().starts_with(prefix.as_bytes())
                && is_leftover(&name.to_string_lossy())
                && rustix::fs::unlinkat(&self.folder, name, AtFlags::empty()).is_ok()
            {
                removed += 1;
            }
        }
        removed
    }

    /// Makes the file, which must not exist yet (a link at its name counts), with `content`
    /// copied from `source` and `mode`; returns `false`, touching nothing, when something has
    /// the name already.
    pub fn create_from(&self, source: &mut File, mode: u32) -> Result<bool, Error> {
        let Some(mut file) = self.create_new()? else {
            return Ok(false);
        };
        std::io::copy(source, &mut file).map_err(Error::io(&self.path()))?;
        rustix::fs::fchmod(&file, Mode::from_raw_mode(mode & 0o7777))
            .map_err(io_error(&self.path()))?;
        Ok(true)
    }

    /// The file, made now for writing (owner only until its mode is set), never through a link;
    /// `None` when something has the name already.
    fn create_new(&self) -> Result<Option<File>, Error> {
        match rustix::fs::openat(
            &self.folder,
            &self.name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        ) {
            Ok(fd) => Ok(Some(File::from(fd))),
            Err(Errno::EXIST) => Ok(None),
            Err(e) => Err(io_error(&self.path())(e)),
        }
    }

    /// Makes the file a copy of `source` with permissions `mode` and `source`'s modification
    /// and access times (a build tool judges what is fresh by them: cargo rebuilds a crate whose
    /// dependency's output looks newer than its own), sharing its blocks where the file system
    /// can (a reflink, `FICLONE`: btrfs, XFS), else copied by the kernel (`copy_file_range`);
    /// `None` when something has the name already (it is left as it is).
    pub fn create_clone_of(&self, source: &mut File, mode: u32) -> Result<Option<CopiedBy>, Error> {
        let Some(mut file) = self.create_new()? else {
            return Ok(None);
        };
        let how = if rustix::fs::ioctl_ficlone(&file, &*source).is_ok() {
            CopiedBy::Reflink
        } else {
            // The standard library's copy between files is the kernel's `copy_file_range`.
            std::io::copy(source, &mut file).map_err(Error::io(&self.path()))?;
            CopiedBy::Bytes
        };
        rustix::fs::fchmod(&file, Mode::from_raw_mode(mode & 0o7777))
            .map_err(io_error(&self.path()))?;
        let times = rustix::fs::fstat(&*source).map_err(io_error(&self.path()))?;
        rustix::fs::futimens(
            &file,
            &rustix::fs::Timestamps {
                last_access: rustix::fs::Timespec {
                    tv_sec: times.st_atime,
                    tv_nsec: times.st_atime_nsec as _,
                },
                last_modification: rustix::fs::Timespec {
                    tv_sec: times.st_mtime,
                    tv_nsec: times.st_mtime_nsec as _,
                },
            },
        )
        .map_err(io_error(&self.path()))?;
        Ok(Some(how))
    }

    /// Makes the file a symbolic link to `target`; returns `false` when something has the name
    /// already.
    pub fn create_link(&self, target: &Path) -> Result<bool, Error> {
        match rustix::fs::symlinkat(target, &self.folder, &self.name) {
            Ok(()) => Ok(true),
            Err(Errno::EXIST) => Ok(false),
            Err(e) => Err(io_error(&self.path())(e)),
        }
    }

    /// A new temporary file in the folder, made exclusively (never an existing name or link).
    fn temporary(&self) -> Result<(OsString, OwnedFd), Error> {
        let mut attempt = 0u32;
        loop {
            let name = self.temporary_name(attempt);
            match rustix::fs::openat(
                &self.folder,
                &name,
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o666),
            ) {
                Ok(fd) => return Ok((name, fd)),
                Err(Errno::EXIST) if attempt < 100 => attempt += 1,
                Err(e) => return Err(io_error(&self.folder_path.join(&name))(e)),
            }
        }
    }
}

/// Whether a file's name (its last component) has the shape of a write's temporary name
/// (`.NAME.nodwyn-PID-N`): what a write killed before its rename leaves, never the person's.
pub fn is_leftover(file_name: &str) -> bool {
    let Some(rest) = file_name.strip_prefix('.') else {
        return false;
    };
    let Some((name, tail)) = rest.rsplit_once(".nodwyn-") else {
        return false;
    };
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    !name.is_empty()
        && tail
            .split_once('-')
            .is_some_and(|(pid, n)| digits(pid) && digits(n))
}

/// Opens `anchor`, then each folder of `relative` in turn without following links, making those
/// missing; `shown` names the whole path in a refusal.
fn open_folders(
    anchor: &Path,
    relative: Option<&Path>,
    shown: &Path,
) -> Result<(OwnedFd, PathBuf), Error> {
    let mut folder = rustix::fs::open(
        anchor,
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(io_error(anchor))?;
    let mut folder_path = anchor.to_path_buf();
    for component in relative.into_iter().flat_map(Path::components) {
        let Component::Normal(part) = component else {
            return Err(Error::declined(
                "not_a_plain_path",
                format!(
                    "{} is not a plain path (it holds `{}`)",
                    shown.display(),
                    component.as_os_str().to_string_lossy()
                ),
            ));
        };
        folder_path.push(part);
        folder = open_or_make_folder(&folder, part, &folder_path)?;
    }
    Ok((folder, folder_path))
}

/// Opens the folder `part` in `parent` without following a link, making it when missing.
fn open_or_make_folder(parent: &OwnedFd, part: &OsStr, shown: &Path) -> Result<OwnedFd, Error> {
    let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    for _ in 0..2 {
        match rustix::fs::openat(parent, part, flags, Mode::empty()) {
            Ok(fd) => return Ok(fd),
            Err(Errno::NOENT) => {
                match rustix::fs::mkdirat(parent, part, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => continue,
                    Err(e) => return Err(io_error(shown)(e)),
                }
            }
            Err(Errno::LOOP | Errno::NOTDIR) => {
                return Err(Error::declined(
                    "link_on_the_way",
                    format!(
                        "{} is a symbolic link or a file, not a real folder; nodwyn writes only through real folders, so a link cannot send a write elsewhere",
                        shown.display()
                    ),
                ));
            }
            Err(e) => return Err(io_error(shown)(e)),
        }
    }
    Err(Error::declined(
        "folder_keeps_changing",
        format!("{} keeps changing while nodwyn makes it", shown.display()),
    ))
}

fn io_error(path: &Path) -> impl Fn(Errno) -> Error + '_ {
    move |errno| Error::io(path)(std::io::Error::from(errno))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_makes_its_folders_and_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let file = root.join("a/b/c.txt");
        let at = Beneath::open(&root, &file).unwrap();
        assert_eq!(at.read_regular().unwrap(), None);
        at.write(b"one").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"one");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        let at = Beneath::open(&root, &file).unwrap();
        assert_eq!(at.read_regular().unwrap().as_deref(), Some(&b"one"[..]));
        at.write(b"two").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
        let left: Vec<_> = std::fs::read_dir(root.join("a/b")).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left");
    }

    #[test]
    fn a_link_on_the_way_is_refused_and_a_link_at_the_name_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let elsewhere = root.join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::create_dir_all(root.join("session")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("session/src")).unwrap();
        let session = root.join("session");
        let refused = Beneath::open(&session, &session.join("src/x.txt"))
            .err()
            .unwrap()
            .to_string();
        assert!(refused.contains("symbolic link"), "{refused}");

        std::fs::write(elsewhere.join("target.txt"), "theirs").unwrap();
        std::os::unix::fs::symlink(elsewhere.join("target.txt"), session.join("name.txt")).unwrap();
        let at = Beneath::open(&session, &session.join("name.txt")).unwrap();
        assert_eq!(at.read_regular().unwrap(), None, "a link keeps nothing");
        at.write(b"ours").unwrap();
        assert_eq!(
            std::fs::read(elsewhere.join("target.txt")).unwrap(),
            b"theirs"
        );
        assert_eq!(std::fs::read(session.join("name.txt")).unwrap(), b"ours");
        assert!(
            !std::fs::symlink_metadata(session.join("name.txt"))
                .unwrap()
                .is_symlink()
        );
    }
}
