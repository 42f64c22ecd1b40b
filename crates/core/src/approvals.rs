//! What a person approved of a repository's files by their content: its strategy (`init.scm`
//! with `prompts.scm`) and its hooks (`hooks.toml`). Kept in the data directory, where an agent's
//! commands can neither read nor write, as `<sha256> <seal>` lines in
//! `approvals/<project>/<file>`; each line sealed with the installation's key over what it approves
//! (the kind, the project and the hash), so a line copied from one kind or project to another, or
//! written by anything but nodwyn, approves nothing.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::Error;
use crate::Store;

/// What kind of file an approval is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Approving {
    /// A repository's `.nodwyn/init.scm` (and `prompts.scm`).
    Strategy,
    /// A repository's `.nodwyn/hooks.toml`.
    Hooks,
}

impl Approving {
    /// The approvals file's name.
    fn file(self) -> &'static str {
        match self {
            Approving::Strategy => "init.scm",
            Approving::Hooks => "hooks.toml",
        }
    }

    /// What the seal is over.
    fn sealed(self, project: &str, sha256: &str) -> String {
        match self {
            Approving::Strategy => crate::seal::approval_sealed(project, sha256),
            Approving::Hooks => format!("hooks.approve|{project}|{sha256}"),
        }
    }
}

fn approvals_file(store: &Store, repository: &Path, what: Approving) -> PathBuf {
    store
        .home()
        .join("approvals")
        .join(Store::project_id(repository))
        .join(what.file())
}

/// Whether a person approved content `sha256` of `what` for `repository`.
pub(crate) fn is_approved(
    store: &Store,
    repository: &Path,
    what: Approving,
    sha256: &str,
) -> Result<bool, Error> {
    let file = approvals_file(store, repository, what);
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::io(&file)(e)),
    };
    // Each line is `<sha256> <seal>`; a line nodwyn did not seal approves nothing.
    let seal = crate::seal::Seal::of(store.home())?;
    let sealed = what.sealed(&Store::project_id(repository), sha256);
    Ok(text.lines().any(|line| {
        let mut fields = line.split_whitespace();
        fields.next() == Some(sha256) && seal.verifies(&sealed, fields.next())
    }))
}

/// Remembers that a person approved content `sha256` of `what` for `repository`.
pub(crate) fn approve(
    store: &Store,
    repository: &Path,
    what: Approving,
    sha256: &str,
) -> Result<(), Error> {
    let file = approvals_file(store, repository, what);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .map_err(Error::io(&file))?;
    let seal = crate::seal::Seal::of(store.home())?
        .sign(&what.sealed(&Store::project_id(repository), sha256));
    writeln!(out, "{sha256} {seal}").map_err(Error::io(&file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approval_of_one_kind_approves_nothing_of_the_other() {
        let data = tempfile::tempdir().unwrap();
        let store = Store::new(data.path().to_path_buf());
        let repository = Path::new("/src/app");
        let sha = "ab".repeat(32);
        approve(&store, repository, Approving::Strategy, &sha).unwrap();
        assert!(is_approved(&store, repository, Approving::Strategy, &sha).unwrap());
        assert!(!is_approved(&store, repository, Approving::Hooks, &sha).unwrap());
        // The strategy's sealed line copied into the hooks' approvals approves nothing there.
        let strategy_lines =
            std::fs::read_to_string(approvals_file(&store, repository, Approving::Strategy))
                .unwrap();
        let hooks_file = approvals_file(&store, repository, Approving::Hooks);
        std::fs::write(&hooks_file, strategy_lines).unwrap();
        assert!(!is_approved(&store, repository, Approving::Hooks, &sha).unwrap());
        approve(&store, repository, Approving::Hooks, &sha).unwrap();
        assert!(is_approved(&store, repository, Approving::Hooks, &sha).unwrap());
    }
}
