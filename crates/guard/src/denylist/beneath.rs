//! The credential files inside a session's own folder: a checkout's `.env`, a key a
//! `.worktreeinclude` copied into a worktree. A confined command may write the folder, so they
//! cannot be hidden the way the home folder's are; nodwyn-proc masks each one it is given. The
//! folder is walked whole, ignored files included (a credential file usually is ignored), but
//! not into the folders that hold only what tools made (`node_modules`, `target`, the git
//! directory), and at most a fixed number of entries is read.

use std::path::{Path, PathBuf};

use super::Denylist;

/// Folders not walked into: what they hold is built or fetched, not a person's credentials, and
/// they can hold hundreds of thousands of files.
const NOT_WALKED: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".gradle",
    ".next",
    "dist",
    "build",
];

/// At most this many entries are read.
const MOST_ENTRIES: usize = 20_000;

/// The files beneath `folder` the denylist denies (links not followed), as found.
pub fn credential_files_beneath(folder: &Path) -> Vec<PathBuf> {
    let denylist = Denylist::standard();
    let mut found = Vec::new();
    let mut budget = MOST_ENTRIES;
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if budget == 0 {
                return found;
            }
            budget -= 1;
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                let name = entry.file_name();
                if !NOT_WALKED.iter().any(|n| name == *n) {
                    pending.push(path);
                }
            } else if kind.is_file() && denylist.judge(&path, folder).is_denied() {
                found.push(path);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_files_are_found_in_a_folder_but_not_in_what_tools_made() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (file, text) in [
            (".env", "TOKEN=x\n"),
            ("service/.env.local", "TOKEN=x\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("node_modules/pkg/.env", "TOKEN=x\n"),
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), text).unwrap();
        }
        let mut found = credential_files_beneath(root);
        found.sort();
        assert_eq!(found, [root.join(".env"), root.join("service/.env.local")]);
    }
}
