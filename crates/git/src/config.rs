//! Reading the person's git configuration as git itself resolves it for a checkout (system,
//! global, repository and worktree scopes, includes), through `git config`.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::command::GitCommand;

/// `git config [--type=TYPE] --get KEY` in `dir`: the value, or `None` when it is not set (git's
/// exit 1). Any other failure (a malformed configuration file) is an error.
fn read(dir: &Path, kind: Option<&str>, key: &str) -> Result<Option<String>, Error> {
    let command = || {
        let command = GitCommand::new(dir).read_only().arg("config");
        let command = match kind {
            Some(kind) => command.arg(format!("--type={kind}")),
            None => command,
        };
        command.args(["--get", key])
    };
    let output = command().output()?;
    match output.status.code() {
        Some(0) => Ok(Some(
            String::from_utf8_lossy(&output.stdout)
                .trim_end_matches('\n')
                .to_owned(),
        )),
        Some(1) => Ok(None),
        // Run again through `run` for its error, which carries git's own sentence.
        _ => command().run().map(|_| None),
    }
}

/// The effective value of `key` in `dir`, or `None` when it is not set.
pub fn get(dir: &Path, key: &str) -> Result<Option<String>, Error> {
    read(dir, None, key)
}

/// The effective boolean `key` in `dir` (`false` when unset), read with `--type=bool` so every
/// spelling git accepts (`yes`, `on`, `1`) counts.
pub fn get_bool(dir: &Path, key: &str) -> Result<bool, Error> {
    Ok(read(dir, Some("bool"), key)?.as_deref() == Some("true"))
}

/// The effective `core.hooksPath` of `dir` as an absolute path (git expands `~`, and reads a
/// relative one against the top of the checkout), or `None` when it is not set.
pub fn hooks_path(dir: &Path) -> Result<Option<PathBuf>, Error> {
    Ok(read(dir, Some("path"), "core.hooksPath")?.map(|value| {
        let path = PathBuf::from(value);
        if path.is_absolute() {
            path
        } else {
            dir.join(path)
        }
    }))
}
