//! What a primitive knows of the session it runs in: the folder it is pinned to, the repository,
//! the worktree (for a worktree session), the environment a command gets, the limits, and the
//! facts it reports back for the host to log.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A worktree session's worktree, as the host recorded it when the session started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeInfo {
    /// The main worktree of the repository.
    pub repository: PathBuf,
    /// The session's branch.
    pub branch: String,
    /// The branch the worktree started from (`""` when it started from a detached HEAD).
    pub base: String,
    /// The commit the branch started from.
    pub base_commit: String,
    /// The worktree's folder.
    pub path: PathBuf,
}

/// The limits primitives keep to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How long `shell-exec` lets a command run when the call names no time.
    pub shell_time: Duration,
    /// The longest time a call may ask `shell-exec` for.
    pub shell_time_max: Duration,
    /// How much of each of a command's stdout and stderr `shell-exec` keeps.
    pub shell_output: usize,
    /// The most `fs-read` returns of one file.
    pub read: usize,
    /// The most of one file's diff `git-diff` and the review show.
    pub diff_per_file: usize,
    /// How long a diff of many files may take before the rest is reported as not reached.
    pub diff_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            shell_time: Duration::from_secs(120),
            shell_time_max: Duration::from_secs(3600),
            shell_output: 64 * 1024,
            read: 1024 * 1024,
            diff_per_file: 256 * 1024,
            diff_time: Duration::from_secs(30),
        }
    }
}

/// A push a primitive made, for the host's `git.push` record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Push {
    /// The remote's name.
    pub remote: String,
    /// Its push URLs.
    pub urls: Vec<String>,
    /// The ref pushed (`refs/heads/main`).
    #[serde(rename = "ref")]
    pub reference: String,
    /// The commit it pointed at before.
    pub old: Option<String>,
    /// The commit it points at now.
    pub new: String,
}

/// Something a primitive did that the host keeps in the session's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// A push.
    Pushed(Push),
    /// A session's work landed on its base branch.
    Landed {
        /// The base branch.
        base: String,
        /// The strategy, as named on the command line.
        strategy: String,
        /// The commit the base now points at.
        landed: String,
        /// Credential files left out of the commit.
        left_out: Vec<String>,
    },
    /// A file's previous content was kept before a write replaced it.
    VersionKept {
        /// The file, as written.
        path: PathBuf,
        /// The kept version's number.
        version: u64,
    },
}

/// The session a primitive runs in.
#[derive(Debug)]
pub struct Context {
    /// The session's id.
    pub session: String,
    /// The folder the session is pinned to: relative paths resolve against it, commands start in
    /// it. For a worktree session, the worktree.
    pub root: PathBuf,
    /// The main worktree of the repository the session belongs to.
    pub repository: PathBuf,
    /// The session's worktree, for a worktree session.
    pub worktree: Option<WorktreeInfo>,
    /// The whole environment a command started by `shell-exec` gets (nothing else is inherited).
    pub shell_environment: Vec<(String, String)>,
    /// Whether the person's environment names the ssh program git uses (`GIT_SSH_COMMAND` or
    /// `GIT_SSH`); if not, and git's configuration has no `core.sshCommand` either, fetches and
    /// pushes use a non-interactive ssh.
    pub ssh_command_inherited: bool,
    /// The limits.
    pub limits: Limits,
    facts: Mutex<Vec<Fact>>,
}

impl Context {
    /// The context of a session pinned to `root` in `repository`, with default limits, no
    /// worktree and an empty command environment.
    pub fn new(session: impl Into<String>, root: PathBuf, repository: PathBuf) -> Self {
        Self {
            session: session.into(),
            root,
            repository,
            worktree: None,
            shell_environment: Vec::new(),
            ssh_command_inherited: false,
            limits: Limits::default(),
            facts: Mutex::new(Vec::new()),
        }
    }

    /// Reports a fact for the host to log.
    pub fn report(&self, fact: Fact) {
        self.facts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(fact);
    }

    /// Takes the facts reported so far.
    pub fn take_facts(&self) -> Vec<Fact> {
        std::mem::take(
            &mut *self
                .facts
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }

    /// The worktree, or the refusal of a primitive offered only in worktree sessions.
    pub fn require_worktree(&self, primitive: &str) -> Result<&WorktreeInfo, crate::Error> {
        self.worktree.as_ref().ok_or_else(|| {
            crate::Error::refused(format!(
                "{primitive} is offered only in a worktree session, and session {} has no worktree",
                self.session
            ))
        })
    }
}
