//! Where a path a caller gives lands: relative paths resolve against the session's folder, and
//! every path is told inside or outside it (following links that exist, so a link inside the
//! folder that points out of it counts as outside).

use std::path::{Path, PathBuf};

use nodwyn_guard::denylist::normalise;

use crate::Error;
use crate::context::Context;

/// A path a call names, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Absolute and normalised (no `.` or `..`).
    pub path: PathBuf,
    /// Whether it is inside the session's folder, links followed.
    pub inside: bool,
}

impl Target {
    /// How a read of it is named in the guard's record: the path, marked when it is outside the
    /// session's folder.
    pub fn read_action(&self, primitive: &str, ctx: &Context) -> String {
        if self.inside {
            format!("{primitive} {}", self.shown(ctx))
        } else {
            format!(
                "{primitive} {} (outside the session's folder)",
                self.shown(ctx)
            )
        }
    }

    /// The path relative to the session's folder when it is inside, else the absolute path, for
    /// messages and results.
    pub fn shown(&self, ctx: &Context) -> String {
        let root = normalise(&ctx.root);
        let relative = self.path.strip_prefix(&root).unwrap_or(&self.path);
        nodwyn_git::quote::quote(relative.as_os_str().as_encoded_bytes())
    }
}

/// The longest path Linux accepts (`PATH_MAX`).
const LONGEST_PATH: usize = 4096;

/// The longest name of one file or folder (`NAME_MAX`).
const LONGEST_NAME: usize = 255;

/// Resolves `given` against the session's folder. A name in git's quoted form
/// (`"caf\351.txt"`, as nodwyn shows a name that is not UTF-8) stands for the name it quotes.
pub fn resolve(ctx: &Context, given: &str) -> Result<Target, Error> {
    if given.is_empty() {
        return Err(Error::declined("empty_path", "the path is empty"));
    }
    if given.contains('\0') {
        return Err(Error::declined(
            "nul_in_path",
            "the path contains a NUL byte",
        ));
    }
    // Longer than any system allows: refused before anything records or judges it.
    if given.len() > LONGEST_PATH {
        return Err(Error::declined(
            "path_too_long",
            format!(
                "the path is {} bytes long; a path may have at most {LONGEST_PATH}",
                given.len()
            ),
        ));
    }
    if let Some(part) = given.split('/').find(|part| part.len() > LONGEST_NAME) {
        return Err(Error::declined(
            "name_too_long",
            format!(
                "a name in the path is {} bytes long; a name may have at most {LONGEST_NAME}",
                part.len()
            ),
        ));
    }
    // A name nodwyn showed in git's quoted form (not UTF-8) is read back to its bytes.
    let name = nodwyn_git::quote::os_name(given);
    if name.as_encoded_bytes().contains(&0) {
        return Err(Error::declined(
            "nul_in_path",
            "the path contains a NUL byte",
        ));
    }
    let root = normalise(&ctx.root);
    let path = normalise(&root.join(name));
    let inside = path.starts_with(&root) && stays_inside(&path, &root);
    Ok(Target { path, inside })
}

/// Whether the longest existing part of `path` (links followed) is still inside `root`.
fn stays_inside(path: &Path, root: &Path) -> bool {
    let Ok(real_root) = root.canonicalize() else {
        return true;
    };
    let mut existing = path;
    loop {
        if let Ok(real) = existing.canonicalize() {
            return real.starts_with(&real_root);
        }
        match existing.parent() {
            Some(parent) => existing = parent,
            None => return true,
        }
    }
}
