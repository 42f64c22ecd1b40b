//! Reading the person's git configuration as git itself resolves it for a checkout (system,
//! global, repository and worktree scopes, includes), through `git config`: all of it at once
//! (`Config`), and `core.hooksPath` as a path.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::command::GitCommand;

/// The effective `core.hooksPath` of `dir` as an absolute path (git expands `~`, and reads a
/// relative one against the top of the checkout), or `None` when it is not set.
pub fn hooks_path(dir: &Path) -> Result<Option<PathBuf>, Error> {
    let command = || {
        // Not `read_only`, whose own settings (no hooks, no attributes file) would answer.
        GitCommand::new(dir).env("GIT_OPTIONAL_LOCKS", "0").args([
            "config",
            "--type=path",
            "--get",
            "core.hooksPath",
        ])
    };
    let output = command().output()?;
    let value = match output.status.code() {
        Some(0) => String::from_utf8_lossy(&output.stdout)
            .trim_end_matches('\n')
            .to_owned(),
        // Exit 1: not set.
        Some(1) => return Ok(None),
        // Run again through `run` for its error, which carries git's own sentence.
        _ => return command().run().map(|_| None),
    };
    let path = PathBuf::from(value);
    Ok(Some(if path.is_absolute() {
        path
    } else {
        dir.join(path)
    }))
}

/// Every effective setting of a checkout, read with one `git config --list` call, for a step that
/// asks several questions (each `git config --get` is a process of its own).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    entries: Vec<(String, Option<String>)>,
    dir: PathBuf,
}

impl Config {
    /// Reads the configuration of the checkout at `dir`.
    pub fn read(dir: &Path) -> Result<Self, Error> {
        // Not `read_only`, whose own settings would be read back as the person's.
        let stdout = GitCommand::new(dir)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .args(["config", "--list", "-z"])
            .run()?;
        // Each entry is `key\nvalue\0`, or `key\0` for a key written without a value.
        let entries = stdout
            .split(|b| *b == 0)
            .filter(|e| !e.is_empty())
            .map(|entry| {
                let entry = String::from_utf8_lossy(entry);
                match entry.split_once('\n') {
                    Some((key, value)) => (key.to_owned(), Some(value.to_owned())),
                    None => (entry.into_owned(), None),
                }
            })
            .collect();
        Ok(Self {
            entries,
            dir: dir.to_path_buf(),
        })
    }

    /// The value of `key` (the last one set wins, as in git), `None` when unset. A key set without
    /// a value reads as `""`.
    pub fn get(&self, key: &str) -> Option<&str> {
        let wanted = canonical_key(key);
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| *k == wanted)
            .map(|(_, v)| v.as_deref().unwrap_or(""))
    }

    /// Whether `key` is set and true, by git's reading of booleans (a key without a value is
    /// true).
    pub fn get_bool(&self, key: &str) -> bool {
        let wanted = canonical_key(key);
        match self.entries.iter().rev().find(|(k, _)| *k == wanted) {
            Some((_, None)) => true,
            Some((_, Some(value))) => matches!(
                value.to_ascii_lowercase().as_str(),
                "true" | "yes" | "on" | "1"
            ),
            None => false,
        }
    }

    /// The effective `core.hooksPath`, as [`hooks_path`] gives it.
    pub fn hooks_path(&self) -> Result<Option<PathBuf>, Error> {
        match self.get("core.hooksPath") {
            None => Ok(None),
            Some(_) => hooks_path(&self.dir),
        }
    }
}

/// A key as `git config --list` prints it: section and name lower-cased, a subsection as it is.
fn canonical_key(key: &str) -> String {
    match (key.find('.'), key.rfind('.')) {
        (Some(first), Some(last)) if first != last => format!(
            "{}{}{}",
            key[..first].to_ascii_lowercase(),
            &key[first..last],
            key[last..].to_ascii_lowercase()
        ),
        _ => key.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_as_git_prints_them() {
        assert_eq!(canonical_key("core.hooksPath"), "core.hookspath");
        assert_eq!(
            canonical_key("branch.Feature.Remote"),
            "branch.Feature.remote"
        );
        assert_eq!(canonical_key("a.b.c.D"), "a.b.c.d");
    }

    #[test]
    fn one_read_answers_as_git_config_get_would() {
        let dir = tempfile::tempdir().unwrap();
        GitCommand::new(dir.path())
            .args(["init", "-q"])
            .run()
            .unwrap();
        let set = |k: &str, v: &str| {
            GitCommand::new(dir.path())
                .args(["config", k, v])
                .run()
                .unwrap();
        };
        set("branch.Main.remote", "origin");
        set("commit.gpgSign", "yes");
        set("core.sshCommand", "ssh -i key");
        let config = Config::read(dir.path()).unwrap();
        assert_eq!(config.get("branch.Main.remote"), Some("origin"));
        assert_eq!(config.get("branch.main.remote"), None);
        assert!(config.get_bool("commit.gpgsign"));
        assert_eq!(config.get("core.sshcommand"), Some("ssh -i key"));
        assert_eq!(config.hooks_path().unwrap(), None);
    }
}
