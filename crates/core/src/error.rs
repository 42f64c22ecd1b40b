//! The error type of `nodwyn-core`. Each refusal is one sentence a person can act on.

use std::path::{Path, PathBuf};

/// Everything that can go wrong, or be refused, in `nodwyn-core`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A git call failed or git refused.
    #[error(transparent)]
    Git(#[from] nodwyn_git::Error),
    /// A file system call failed.
    #[error("could not use {path}: {}", io_reason(source))]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A record could not be written as JSON.
    #[error("could not encode a log record")]
    Encode(#[source] serde_json::Error),
    /// The system's random source failed.
    #[error("could not draw a random session id: {0}")]
    Random(String),
    /// Sixteen fresh ids in a row were all taken.
    #[error("could not find a free session id; is the data directory shared with something else?")]
    NoFreeId,
    /// The text is neither form of a session id.
    #[error(
        "`{0}` is not a session id or name: give the full id (20261002T054407Z-1968c13a), its 8 hex digits or their start, or the session's name"
    )]
    BadId(String),
    /// No session has that id.
    #[error(
        "no session has the id or name {0}; `nodwyn session list` shows the sessions of a repository"
    )]
    NoSuchSession(String),
    /// Several sessions share the short id.
    #[error("several sessions match {short}: {}; give more of the id", sessions.join(", "))]
    AmbiguousId {
        /// The short id given.
        short: String,
        /// The full ids that match.
        sessions: Vec<String>,
    },
    /// The log does not start with `session.start`.
    #[error("the session log {0} is damaged: it does not start with a session.start record")]
    DamagedLog(PathBuf),
    /// `new` was pointed below the top of a checkout.
    #[error(
        "{dir} is inside the checkout {top}, not its top folder; run nodwyn from {top} or pass --repo {top}"
    )]
    BelowTopLevel {
        /// The folder given.
        dir: PathBuf,
        /// The checkout's top folder.
        top: PathBuf,
    },
    /// The repository has no commit for a worktree to start from.
    #[error(
        "the repository at {0} has no commit yet; make a first commit before opening a worktree session"
    )]
    NoCommit(PathBuf),
    /// `--base` names nothing.
    #[error("--base {base}: no commit of that name in {repository}")]
    UnknownBase {
        /// The revision given.
        base: String,
        /// Where it was looked up.
        repository: PathBuf,
    },
    /// A symbolic link where nodwyn would put worktrees.
    #[error(
        "{path} is a symbolic link; nodwyn puts worktrees only in a real folder of the repository, never where a link points"
    )]
    LinkOnDisk {
        /// The link.
        path: PathBuf,
    },
    /// A file where nodwyn would put its worktrees folder.
    #[error(
        "{0} is a file, not a folder; nodwyn keeps its worktrees in that folder, so move the file away"
    )]
    NotAFolder(PathBuf),
    /// A symbolic link committed where nodwyn would put worktrees.
    #[error(
        "{path} is committed as a symbolic link in {commit}; nodwyn will not put worktrees where a checkout of it would point"
    )]
    LinkCommitted {
        /// The committed path.
        path: String,
        /// The commit that has it.
        commit: String,
    },
    /// The session has no worktree.
    #[error("session {0} has no worktree")]
    NoWorktree(String),
    /// The worktree was handed over with `keep`.
    #[error(
        "session {id}'s worktree {path} was handed over with `nodwyn worktree keep`; nodwyn no longer manages it"
    )]
    HandedOver {
        /// The session.
        id: String,
        /// The worktree.
        path: PathBuf,
    },
    /// The worktree was removed already.
    #[error(
        "session {id}'s worktree {path} was removed already; `nodwyn worktree resume {id}` makes it again"
    )]
    AlreadyRemoved {
        /// The session.
        id: String,
        /// The worktree.
        path: PathBuf,
    },
    /// The worktree's folder is no longer a worktree git can be run in (its `.git` is gone or
    /// names something else).
    #[error(
        "{path} is no longer a worktree ({why}), so nodwyn runs no git there and reads nothing of it; `nodwyn worktree remove {id} --force` unregisters it and deletes the folder with its {files} file(s)"
    )]
    NoLongerAWorktree {
        /// The folder.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
        /// The session (its short id).
        id: String,
        /// How many files are in it.
        files: usize,
    },
    /// Something failed on a disk that is full, though what failed did not say so.
    #[error(
        "the disk holding {disk} is full, so this failed; free some space and try again ({source})"
    )]
    DiskFull {
        /// The folder on the full disk.
        disk: PathBuf,
        /// What failed.
        source: Box<Error>,
    },
    /// The worktree's making was cut short before it was recorded as made.
    #[error(
        "session {id}'s worktree {path} was never finished (its making was cut short), so it may hold only part of its branch's files; `nodwyn worktree resume {id}` finishes it"
    )]
    Unfinished {
        /// The session (its short id).
        id: String,
        /// The worktree.
        path: PathBuf,
    },
    /// The recorded path is not in one of nodwyn's worktree folders.
    #[error(
        "{0} is not in one of nodwyn's worktree folders; nodwyn removes only worktrees it made"
    )]
    NotNodwyns(PathBuf),
    /// A folder that git does not list as a worktree stands where one should be.
    #[error("{0} exists but git does not list it as a worktree; move it away and try again")]
    FolderInTheWay(PathBuf),
    /// `remove` without `--force` would lose files.
    #[error("{path} has {} change(s) that removing would discard ({}); --force discards them", files.len(), preview(files))]
    WouldDiscard {
        /// The worktree.
        path: PathBuf,
        /// What would be lost.
        files: Vec<String>,
    },
    /// The worktree is locked with `git worktree lock`.
    #[error("{0} is locked with `git worktree lock`; unlock it first (`git worktree unlock {0}`)")]
    Locked(PathBuf),
    /// A detached HEAD holds commits no branch has.
    #[error(
        "{path}'s HEAD is detached at {head}, with {count} commit(s) that no branch of the base has; put them on a branch first (`git -C {path} switch -c NAME`)"
    )]
    DetachedWork {
        /// The worktree.
        path: PathBuf,
        /// Its HEAD.
        head: String,
        /// Commits the base lacks.
        count: usize,
    },
    /// A git operation is unfinished in the worktree.
    #[error("{path} has {operation} in progress; finish or abort it first")]
    OperationInProgress {
        /// The worktree.
        path: PathBuf,
        /// What is in progress.
        operation: &'static str,
    },
    /// `git worktree add` failed after making the worktree (a failing hook, say).
    #[error(
        "the worktree {path} was made, but {source}; it is kept, and `nodwyn worktree remove {short}` removes it"
    )]
    MadeButFailed {
        /// The worktree.
        path: PathBuf,
        /// The session's short id.
        short: String,
        /// What failed.
        #[source]
        source: Box<nodwyn_git::Error>,
    },
    /// A folder could not be walked.
    #[error("could not walk a folder: {0}")]
    Walk(String),
    /// A pull request could not be opened.
    #[error("{0}")]
    PullRequest(String),
    /// A pull request already has a worktree.
    #[error("{0}")]
    PullRequestTaken(String),
    /// A primitive refused or failed.
    #[error(transparent)]
    Prim(#[from] nodwyn_prim::Error),
    /// A refusal with a stable code: of an agent's call the guard did not allow (`needs_person`,
    /// a question with nobody at a terminal to answer it; `declined`, the person said no;
    /// `refused_by_guard`, a rule or the judge), or of anything else asked (`session_closed`,
    /// `bad_name`, ...). Every refusal has a code of its own.
    #[error("{sentence}")]
    Declined {
        /// The stable code.
        code: &'static str,
        /// What was refused and why.
        sentence: String,
    },
    /// A folder no agent's session may be rooted at.
    #[error("nodwyn will not start a session in {dir}: {why}; run it in a project's folder")]
    TaskRoot {
        /// The folder.
        dir: PathBuf,
        /// Why not.
        why: String,
    },
    /// The standing answers could not be read.
    #[error(transparent)]
    Guard(#[from] nodwyn_guard::Error),
    /// Scheme was refused, failed, or ran out of time.
    #[error(transparent)]
    Scheme(#[from] nodwyn_scheme::Error),
}

impl Error {
    /// A refusal with a stable `code` for programs and this sentence for people.
    pub(crate) fn declined(code: &'static str, sentence: impl Into<String>) -> Self {
        Error::Declined {
            code,
            sentence: sentence.into(),
        }
    }

    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
        move |source| Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The first few entries of a list, for a one-sentence message.
pub(crate) fn preview(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        text.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    text
}

impl Error {
    /// The refusal of work in session `id` while it is closed.
    pub(crate) fn session_closed(id: &crate::SessionId) -> Self {
        Error::declined(
            "session_closed",
            format!(
                "session {id} is closed; `nodwyn worktree resume {}` opens it again",
                id.short()
            ),
        )
    }

    /// The refusal of a second turn while session `id` has one running.
    pub(crate) fn declined_busy(id: &str) -> Self {
        Error::Declined {
            code: "turn_running",
            sentence: format!(
                "a turn is running in session {id} (an agent is working in it); wait until it ends"
            ),
        }
    }

    /// The files a refusal is about, for programs (a conflict's files, what removing would
    /// discard); empty when it names none.
    pub fn files(&self) -> &[String] {
        match self {
            Error::WouldDiscard { files, .. } => files,
            Error::Prim(error) => error.files(),
            _ => &[],
        }
    }

    /// A stable code for programs to act on (the sentence is for people).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Git(error) => error.code(),
            Error::Io { .. } => "io",
            Error::Encode(_) => "encode",
            Error::Random(_) => "random",
            Error::NoFreeId => "no_free_id",
            Error::BadId(_) => "bad_id",
            Error::NoSuchSession(_) => "no_such_session",
            Error::AmbiguousId { .. } => "ambiguous_id",
            Error::DamagedLog(_) => "damaged_log",
            Error::BelowTopLevel { .. } => "below_top_level",
            Error::NoCommit(_) => "no_commit",
            Error::UnknownBase { .. } => "unknown_base",
            Error::LinkOnDisk { .. } => "link_in_the_way",
            Error::NotAFolder(_) => "not_a_folder",
            Error::LinkCommitted { .. } => "link_committed",
            Error::NoWorktree(_) => "no_worktree",
            Error::HandedOver { .. } => "handed_over",
            Error::AlreadyRemoved { .. } => "already_removed",
            Error::Unfinished { .. } => "worktree_unfinished",
            Error::NoLongerAWorktree { .. } => "not_a_worktree",
            Error::DiskFull { .. } => "disk_full",
            Error::NotNodwyns(_) => "not_nodwyns",
            Error::FolderInTheWay(_) => "worktree_exists",
            Error::WouldDiscard { .. } => "worktree_dirty",
            Error::Locked(_) => "worktree_locked",
            Error::DetachedWork { .. } => "detached_work",
            Error::OperationInProgress { .. } => "operation_in_progress",
            Error::MadeButFailed { .. } => "made_but_failed",
            Error::Walk(_) => "walk",
            Error::PullRequest(_) => "pr_ref_error",
            Error::PullRequestTaken(_) => "pr_worktree_exists",
            Error::Prim(error) => error.code(),
            Error::Declined { code, .. } => code,
            Error::TaskRoot { .. } => "task_root",
            Error::Guard(_) => "guard",
            Error::Scheme(_) => "scheme",
        }
    }
}

/// How an I/O failure is said: a full disk in so many words.
fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::StorageFull => {
            format!("the disk is full ({error}); free some space and try again")
        }
        _ => error.to_string(),
    }
}

/// The nearest existing folder of `path` when the disk holding it has less than a mebibyte left
/// for unprivileged writers.
pub(crate) fn full_disk_at(path: &std::path::Path) -> Option<PathBuf> {
    let folder = path.ancestors().find(|p| p.is_dir())?;
    let stats = rustix::fs::statvfs(folder).ok()?;
    let available = stats.f_bavail.saturating_mul(stats.f_frsize);
    (available < 1 << 20).then(|| folder.to_path_buf())
}
