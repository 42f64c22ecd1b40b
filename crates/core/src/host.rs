//! What the host gives a primitive: the session's [`Context`], built from
//! its log and the settings the command line read, and the person's standing answers from the one
//! `allow.toml` nodwyn trusts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use nodwyn_guard::StandingAnswers;
use nodwyn_prim::sandbox::Sandbox;
use nodwyn_prim::{Context, Interrupt, Limits, Notices, WorktreeInfo};
pub use nodwyn_protocol::settings::{CommandLimits, SandboxChoice, SandboxMode};

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
    /// How `shell-exec` confines commands (see [`HostSettings::choose_sandbox`]); unavailable,
    /// so commands ask, until the host chooses.
    pub sandbox: Sandbox,
    /// Where a step that waits (a landing waiting for another's turn) tells the person watching.
    pub notices: Notices,
}

/// The variables a `shell-exec` command inherits from the person's environment: what programs
/// need to run and to find their tools, nothing that grants access (no agent sockets, tokens or
/// credentials).
pub(crate) const SHELL_VARIABLES: &[&str] = &[
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

impl HostSettings {
    /// Decides how commands are confined: as the person chose, with `supervisor` (nodwyn's own
    /// binary) when the system can confine (else commands ask, each time, unless the person
    /// turned confinement off); the data directory `data` is never readable to a command.
    pub fn choose_sandbox(
        &mut self,
        choice: &SandboxChoice,
        supervisor: Option<PathBuf>,
        data: &Path,
    ) {
        self.sandbox = match choice.mode {
            SandboxMode::Off => Sandbox::Off,
            SandboxMode::Ask => Sandbox::Unavailable(
                "your configuration asks for every command ([sandbox] mode = \"ask\")".to_owned(),
            ),
            SandboxMode::On => match (nodwyn_prim::sandbox::availability(), supervisor) {
                (nodwyn_prim::sandbox::Availability::Unavailable(why), _) => {
                    Sandbox::Unavailable(why)
                }
                (_, None) => Sandbox::Unavailable(
                    "nodwyn cannot find its own program to supervise commands".to_owned(),
                ),
                (_, Some(supervisor)) => Sandbox::On {
                    supervisor,
                    writable: choice.writable.clone(),
                    hidden: vec![data.to_path_buf()],
                    readable: self.program_folders(),
                    read_only: Vec::new(),
                    masked: Vec::new(),
                    replaced: Vec::new(),
                    network: choice.network,
                    unix_sockets: choice.unix_sockets,
                    limits: command_limits(choice.limits),
                    namespaces: choice.namespaces,
                },
            },
        };
    }

    /// The folders of the commands' `PATH`: programs there stay runnable inside the sandbox
    /// even when a hidden folder holds them.
    fn program_folders(&self) -> Vec<PathBuf> {
        self.shell_environment
            .iter()
            .filter(|(name, _)| name == "PATH")
            .flat_map(|(_, value)| std::env::split_paths(value).collect::<Vec<_>>())
            .filter(|folder| folder.is_absolute())
            .collect()
    }
}

/// The limits a command runs under: the person's where set, nodwyn's own elsewhere.
fn command_limits(chosen: CommandLimits) -> nodwyn_prim::sandbox::Limits {
    let defaults = nodwyn_prim::sandbox::Limits::defaults();
    nodwyn_prim::sandbox::Limits {
        processes: chosen.processes.or(defaults.processes),
        file_size: chosen.file_size.or(defaults.file_size),
        memory: chosen.memory.or(defaults.memory),
    }
}

/// The context of `session`'s primitives.
pub(crate) fn context_of(session: &Session, settings: &HostSettings) -> Context {
    let mut context = Context::new(
        session.id.to_string(),
        session.root.clone(),
        session.repository.clone(),
    );
    context.worktree = session
        .active_worktree()
        .map(|facts| worktree_info(session, facts));
    context.shell_environment = settings.shell_environment.clone();
    if let Some(port) = session.active_worktree().and_then(|facts| facts.port) {
        // The session's own port, for a dev server its commands start (never the person's).
        let name = crate::worktree::port::PORT_VARIABLE;
        context
            .shell_environment
            .retain(|(variable, _)| variable != name);
        context
            .shell_environment
            .push((name.to_owned(), port.to_string()));
    }
    context.ssh_command_inherited = settings.ssh_command_inherited;
    context.limits = settings.limits;
    context.interrupt = settings.interrupt.clone();
    context.pending_landing = session.landing.clone();
    context.reviewed_tree = session.reviewed_tree.clone();
    context.written = Some(session.written.iter().cloned().collect());
    context.sandbox = settings.sandbox.clone();
    context.notices = settings.notices.clone();
    if let Sandbox::On {
        readable,
        hidden,
        read_only,
        ..
    } = &mut context.sandbox
    {
        let common = nodwyn_git::repo::common_dir(&session.repository).ok();
        if session.root == session.repository {
            // The session works in the checkout itself: its commands write there, but never
            // the repository's git directory (hooks, configuration, refs) nor nodwyn's folder
            // (standing answers, the other sessions' worktrees, kept versions).
            readable.push(session.repository.clone());
            read_only.push(session.repository.join(".git"));
            read_only.extend(common);
            read_only.push(session.repository.join(".nodwyn"));
        } else {
            // A worktree's commands read the repository's history (git needs it), never the
            // main checkout's files: its `.env` and other credential files, and the other
            // sessions' worktrees with their half-done edits. They cannot rewrite the
            // worktree's `.git` file (pointed at a repository of their own, it would make the
            // person's git run what that repository's configuration names) nor its `.nodwyn`
            // folder (the strategy the person approved).
            hidden.push(session.repository.clone());
            readable.extend(common);
            read_only.push(session.root.join(".git"));
            read_only.push(session.root.join(".nodwyn"));
        }
        readable.extend(settings.home.clone());
    }
    context
}

/// A worktree's facts as primitives see them, with the session's recorded configuration
/// fingerprint.
pub(crate) fn worktree_info(session: &Session, facts: &WorktreeFacts) -> WorktreeInfo {
    WorktreeInfo {
        config: session.config.clone(),
        ..worktree_info_of(facts)
    }
}

/// A worktree's facts as primitives see them, with no recorded configuration fingerprint.
pub(crate) fn worktree_info_of(facts: &WorktreeFacts) -> WorktreeInfo {
    WorktreeInfo {
        repository: facts.repository.clone(),
        branch: facts.branch.clone(),
        base: facts.base.clone(),
        base_remote: facts.base_remote.clone(),
        base_commit: facts.base_commit.clone(),
        path: facts.path.clone(),
        config: None,
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
    if nodwyn_git::untracked::is_tracked(repository, ".nodwyn/allow.toml")? {
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

/// The git configuration files a command of `session` reads (the repository's, its worktree's,
/// the person's), each that holds a credential with its content as commands are shown it.
pub(crate) fn git_configs_without_credentials(
    session: &Session,
    settings: &HostSettings,
) -> Vec<(PathBuf, String)> {
    let mut files: Vec<PathBuf> = Vec::new();
    if let Ok(common) = nodwyn_git::repo::common_dir(&session.repository) {
        files.push(common.join("config"));
        if let Ok(entries) = std::fs::read_dir(common.join("worktrees")) {
            files.extend(entries.flatten().map(|e| e.path().join("config.worktree")));
        }
        files.push(common.join("config.worktree"));
    }
    if let Some(home) = &settings.home {
        files.push(home.join(".gitconfig"));
        files.push(home.join(".config/git/config"));
    }
    files
        .into_iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(&file).ok()?;
            let kept = nodwyn_guard::git_config_without_credentials(&text)?;
            Some((file, kept))
        })
        .collect()
}
