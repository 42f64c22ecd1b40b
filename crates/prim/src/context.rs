//! What a primitive knows of the session it runs in: the folder it is pinned to, the repository,
//! the worktree (for a worktree session), the environment a command gets, the limits, and the
//! facts it reports back for the host to log.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A worktree session's worktree, as the host recorded it when the session started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeInfo {
    /// The main worktree of the repository.
    pub repository: PathBuf,
    /// The session's branch.
    pub branch: String,
    /// The branch the session lands on (`""` when there is none).
    pub base: String,
    /// The remote the base was named through, used when the local base has no upstream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_remote: Option<String>,
    /// The commit the branch started from.
    pub base_commit: String,
    /// The worktree's folder.
    pub path: PathBuf,
    /// The fingerprint of the repository's git configuration recorded for the session, checked
    /// before git runs for the person's landing and review (see [`crate::checkout::verified`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<nodwyn_git::fingerprint::Fingerprint>,
}

impl WorktreeInfo {
    /// Where the session's work that has not landed yet starts: its base commit, or, once the
    /// branch shares later history with its base (after a landing), the last commit they share.
    /// Reviews and `git-diff since base` read from here.
    pub fn work_starts(&self) -> Result<String, crate::Error> {
        let Some(head) = nodwyn_git::repo::resolve_commit(&self.path, "HEAD")? else {
            return Ok(self.base_commit.clone());
        };
        let tips =
            nodwyn_git::base::base_tips(&self.repository, &self.base, self.base_remote.as_deref())?;
        Ok(nodwyn_git::base::work_starts(
            &self.repository,
            &head,
            &self.base_commit,
            &tips,
        )?)
    }
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
    /// The most of all files' diffs together the review shows.
    pub diff_total: usize,
    /// How long a diff of many files may take before the rest is reported as not reached.
    pub diff_time: Duration,
    /// How long a fetch or push may take before it is stopped.
    pub git_network: Duration,
    /// The most entries `fs-list` returns of one folder.
    pub list: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            shell_time: Duration::from_secs(120),
            shell_time_max: Duration::from_secs(3600),
            shell_output: 64 * 1024,
            read: 1024 * 1024,
            diff_per_file: 256 * 1024,
            diff_total: 16 * 1024 * 1024,
            diff_time: Duration::from_secs(30),
            git_network: nodwyn_git::Network::DEFAULT_DEADLINE,
            list: 1000,
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

/// Whether the person or the system asked the work to stop (Ctrl-C, SIGTERM). The host sets it
/// from its signal handler; a long primitive (`git-land`) looks at it between its steps and stops
/// at the next point where it can say what state it left.
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// A flag nobody has raised yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The flag itself, for a signal handler to set.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }

    /// Raises the flag.
    pub fn raise(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Lowers the flag again, for the next turn of a session that goes on after an interrupt.
    pub fn lower(&self) {
        self.0.store(false, Ordering::SeqCst);
    }

    /// Whether the flag is raised.
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A landing that began and has not ended, as the session's log tells it: the next landing
/// finishes or refuses it, and `nodwyn land --abort` undoes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PendingLanding {
    /// The branch's tip before the landing began (before it committed anything).
    pub head: String,
    /// The backup ref and the commit it keeps (the branch's tip before anything rewrote it).
    pub backup: Option<(String, String)>,
    /// The base commit a `git rebase` in the worktree was started onto, with the commit its
    /// replayed commits start after (it stopped at a conflict, or was interrupted).
    pub rebase: Option<(String, String)>,
    /// The commits the worktree's files and branch were being moved between.
    pub moving: Option<(String, String)>,
    /// The push it began: the remote, the ref and the commit (which may have reached it).
    pub push: Option<(String, String, String)>,
}

/// How a landing ended, for the `land.end` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LandOutcome {
    /// The work is on the base.
    Landed,
    /// A built-in refusal stopped it (a credential, a rejected push, a file in the way).
    Refused,
    /// A step failed.
    Failed,
    /// Ctrl-C or a signal stopped it, or it was found unfinished by the next landing.
    Interrupted,
    /// `nodwyn land --abort` undid it.
    Aborted,
}

/// Something a primitive did that the host keeps in the session's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// A landing began; `head` is the branch's tip before it.
    LandBegin {
        /// The branch's tip.
        head: String,
        /// The strategy.
        strategy: String,
    },
    /// Before anything rewrote the branch, its tip was kept under `reference`.
    LandBackup {
        /// The backup ref (`refs/nodwyn/backup/<short id>/<n>`).
        reference: String,
        /// The commit it keeps.
        commit: String,
    },
    /// A `git rebase` was started in the worktree (the commits conflict with the base, so it
    /// runs where the conflict can be resolved).
    LandRebase {
        /// The base commit it rebases onto.
        onto: String,
        /// The commit the branch's own commits start after.
        upstream: String,
    },
    /// A push of the landing is about to begin.
    LandPush {
        /// The remote.
        remote: String,
        /// The ref of the remote that moves.
        reference: String,
        /// The commit it moves to.
        commit: String,
    },
    /// The worktree's files and branch are about to move from one commit to another.
    LandMove {
        /// Where they are.
        from: String,
        /// Where they go.
        to: String,
    },
    /// A landing ended.
    LandEnd {
        /// How.
        outcome: LandOutcome,
        /// Why, when it did not land.
        why: Option<String>,
    },
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
    /// Raised when the person or the system asks the work to stop.
    pub interrupt: Interrupt,
    /// A landing of this session that began and did not end.
    pub pending_landing: Option<PendingLanding>,
    /// The tree of the worktree as a person was last shown it, if one was since the last
    /// landing: a landing lands exactly that tree (see [`crate::review::Review::tree`]).
    pub reviewed_tree: Option<String>,
    /// For an agent's landing, the files the session's primitives wrote (relative to its
    /// folder): a new file no primitive wrote (a command's cache, a test's output) is left out
    /// of the landing unless it is named. `None` for a person's own landing, which commits every
    /// new file and names them.
    pub written: Option<Vec<String>>,
    /// For a person's landing: they were shown the tracked files missing from the worktree
    /// (deleted, not with `git rm`) and confirmed that their deletion lands.
    pub deletions_confirmed: bool,
    /// How `shell-exec` confines what it runs.
    pub sandbox: crate::sandbox::Sandbox,
    /// Where a step that waits tells a person watching what it waits for.
    pub notices: Notices,
    facts: Mutex<Vec<Fact>>,
    recorder: RecorderSlot,
}

/// What a step tells a person watching while it waits (a landing waiting for another's turn):
/// words for a terminal, nothing that goes on record. Nobody is told unless the host gives a
/// listener.
#[derive(Clone, Default)]
pub struct Notices(Option<Listener>);

/// Who hears a step's notices.
type Listener = Arc<dyn Fn(&str) + Send + Sync>;

impl Notices {
    /// Notices that go to `listener`.
    pub fn to(listener: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(listener)))
    }

    /// Tells the listener, if there is one.
    pub fn tell(&self, text: &str) {
        if let Some(listener) = &self.0 {
            listener(text);
        }
    }
}

impl std::fmt::Debug for Notices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Notices(listener)"
        } else {
            "Notices(none)"
        })
    }
}

/// Writes a fact to the session's log as it happens.
pub type Recorder = Box<dyn Fn(Fact) -> Result<(), String> + Send + Sync>;

struct RecorderSlot(Option<Recorder>);

impl std::fmt::Debug for RecorderSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some(recorder)"
        } else {
            "None"
        })
    }
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
            interrupt: Interrupt::new(),
            pending_landing: None,
            reviewed_tree: None,
            written: None,
            deletions_confirmed: false,
            sandbox: crate::sandbox::Sandbox::default(),
            notices: Notices::default(),
            facts: Mutex::new(Vec::new()),
            recorder: RecorderSlot(None),
        }
    }

    /// Has every fact written by `recorder` as it is reported, instead of kept for
    /// [`Context::take_facts`]: a step that must be on record before the next one runs (a
    /// landing's journal) is then on record even if the process is killed.
    pub fn record_with(&mut self, recorder: Recorder) {
        self.recorder = RecorderSlot(Some(recorder));
    }

    /// Reports a fact for the host to log: written at once when the host gave a recorder, else
    /// kept for [`Context::take_facts`].
    pub fn report(&self, fact: Fact) -> Result<(), crate::Error> {
        if let Some(recorder) = &self.recorder.0 {
            return recorder(fact).map_err(|why| {
                crate::Error::declined(
                    "log_unwritable",
                    format!("the session's log could not be written: {why}"),
                )
            });
        }
        self.facts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(fact);
        Ok(())
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
            crate::Error::declined("needs_worktree", format!(
                "{primitive} is offered only in a worktree session, and session {} has no worktree",
                self.session
            ))
        })
    }
}
