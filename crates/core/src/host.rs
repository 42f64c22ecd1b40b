//! What the host gives a primitive: the session's [`Context`], built from
//! its log and the settings the command line read, and the person's standing answers from the one
//! `allow.toml` nodwyn trusts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use nodwyn_guard::StandingAnswers;
use nodwyn_prim::{Context, Interrupt, Limits, WorktreeInfo};

use crate::Error;
use crate::event::WorktreeFacts;
use crate::session::Session;

/// What the command line read from the person's environment for primitives.
#[derive(Debug, Clone, Default)]
pub struct HostSettings {
    /// The whole environment a `shell-exec` command gets.
    pub shell_environment: Vec<(String, String)>,
    /// Whether the person's environment names the ssh program git uses.
    pub ssh_command_inherited: bool,
    /// The limits primitives keep to.
    pub limits: Limits,
    /// Who the person is, for records (`$USER`).
    pub person: String,
    /// Raised by the command line's signal handler (Ctrl-C, SIGTERM) while a landing runs.
    pub interrupt: Interrupt,
    /// The person's home folder (`$HOME`), where their own credential files are found by what
    /// they are, so a hard link to one is refused like it.
    pub home: Option<PathBuf>,
}

/// The variables a `shell-exec` command inherits from the person's environment: what programs
/// need to run and to find their tools, nothing that grants access (no agent sockets, tokens or
/// credentials).
pub const SHELL_VARIABLES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOPATH",
    "JAVA_HOME",
    "NODWYN_HOME",
    "XDG_DATA_HOME",
];

impl HostSettings {
    /// The settings taken from `variables` (the person's environment).
    pub fn from_environment(variables: impl IntoIterator<Item = (OsString, OsString)>) -> Self {
        let mut settings = HostSettings::default();
        for (name, value) in variables {
            let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
                continue;
            };
            if name == "GIT_SSH_COMMAND" || name == "GIT_SSH" {
                settings.ssh_command_inherited = true;
            }
            if name == "USER" {
                settings.person = value.to_owned();
            }
            if name == "HOME" && !value.is_empty() {
                settings.home = Some(PathBuf::from(value));
            }
            if SHELL_VARIABLES.contains(&name) {
                settings
                    .shell_environment
                    .push((name.to_owned(), value.to_owned()));
            }
        }
        settings
            .shell_environment
            .push(("TERM".to_owned(), "dumb".to_owned()));
        settings.shell_environment.sort();
        if settings.person.is_empty() {
            settings.person = "person".to_owned();
        }
        settings
    }
}

/// The context of `session`'s primitives.
pub fn context_of(session: &Session, settings: &HostSettings) -> Context {
    let mut context = Context::new(
        session.id.to_string(),
        session.root.clone(),
        session.repository.clone(),
    );
    context.worktree = session.active_worktree().map(worktree_info);
    context.shell_environment = settings.shell_environment.clone();
    context.ssh_command_inherited = settings.ssh_command_inherited;
    context.limits = settings.limits;
    context.interrupt = settings.interrupt.clone();
    context.pending_landing = session.landing.clone();
    context
}

/// A worktree's facts as primitives see them.
pub fn worktree_info(facts: &WorktreeFacts) -> WorktreeInfo {
    WorktreeInfo {
        repository: facts.repository.clone(),
        branch: facts.branch.clone(),
        base: facts.base.clone(),
        base_remote: facts.base_remote.clone(),
        base_commit: facts.base_commit.clone(),
        path: facts.path.clone(),
    }
}

/// The trusted `allow.toml` of `repository`: its main worktree's `.nodwyn/allow.toml`.
pub fn allow_file(repository: &Path) -> PathBuf {
    repository.join(".nodwyn").join("allow.toml")
}

/// The person's standing answers for sessions of `repository`, and a note when a file was there
/// but not trusted.
///
/// Only the main worktree's `.nodwyn/allow.toml` counts, and only while git does not track it: a
/// committed file (or one a worktree's branch carries) is repository content anyone who can
/// commit, an agent included, could have written. A link there is not followed.
pub fn standing_answers(repository: &Path) -> Result<(StandingAnswers, Option<String>), Error> {
    let path = allow_file(repository);
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((StandingAnswers::none(), None));
        }
        Err(e) => return Err(Error::io(&path)(e)),
        Ok(meta) if !meta.is_file() => {
            return Ok((
                StandingAnswers::none(),
                Some(format!(
                    "{} is not a plain file, so no standing answer applies",
                    path.display()
                )),
            ));
        }
        Ok(_) => {}
    }
    let tracked = nodwyn_git::GitCommand::new(repository)
        .read_only()
        .args(["ls-files", "--", ".nodwyn/allow.toml"])
        .run()?;
    if !tracked.is_empty() {
        return Ok((
            StandingAnswers::none(),
            Some(format!(
                "{} is committed to the repository, where anyone who can commit could have written it, so no standing answer applies; keep it untracked",
                path.display()
            )),
        ));
    }
    Ok((StandingAnswers::load(&path)?, None))
}
