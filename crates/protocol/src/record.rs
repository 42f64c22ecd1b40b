//! The records of a session's event log: one JSON object a line, with `type`, `at` (RFC 3339
//! UTC) and the fields of its kind. The names (`session.start`, `worktree.create`, ...) are part
//! of nodwyn's contract with whoever reads the logs; a reader keeps records of kinds it does not
//! know (`Other`). Core writes them; every front-end reads them (`session.events`), so they live
//! here, as serde types, beside the messages.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The guard's answer to an action, as `guard.decision` keeps it: `answer`, `kind` (for an ask),
/// `by`, `who` (for Don't ask) and `why`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardVerdict {
    /// The answer.
    #[serde(flatten)]
    pub answer: Answer,
    /// Who gave it.
    #[serde(flatten)]
    pub by: DecidedBy,
    /// Why, in words a person acts on.
    pub why: String,
}

/// The guard's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "answer", content = "kind")]
pub enum Answer {
    /// It runs.
    Allow,
    /// A person must be asked first.
    Ask(AskKind),
    /// It does not run.
    Refuse,
}

/// What kind of question a person is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AskKind {
    /// An ordinary confirm.
    Ordinary,
    /// A security confirm: only a person answers it.
    Security,
}

/// Who gave an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "who")]
pub enum DecidedBy {
    /// The guard's rules.
    Rule,
    /// A standing answer in `.nodwyn/allow.toml`.
    StandingAnswer,
    /// Don't ask, turned on by the person named.
    DontAsk(String),
    /// The judge.
    Judge,
    /// A person, asked.
    Person,
}

/// A push to a remote, as `git.push` keeps it.
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

/// How a landing ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LandOutcome {
    /// The work is on the base.
    Landed,
    /// A built-in refusal stopped it.
    Refused,
    /// A step failed.
    Failed,
    /// Ctrl-C or a signal stopped it, or it was found unfinished by the next landing.
    Interrupted,
    /// `nodwyn land --abort` undid it.
    Aborted,
}

/// Where a headless run ran (`run.headless`, and its export's `ran_on`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RanOn {
    /// What ran it: `github-actions`, `kubernetes`, or `machine` (neither).
    pub runner: String,
    /// The CI's id of the run (`GITHUB_RUN_ID`; the Job's name on Kubernetes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Which attempt of the run (`GITHUB_RUN_ATTEMPT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<String>,
    /// The task's place among the run's tasks (`NODWYN_TASK_INDEX`, else
    /// `JOB_COMPLETION_INDEX`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// The repository the CI names (`GITHUB_REPOSITORY`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The machine's host name.
    pub machine: String,
}

/// The facts of a session's worktree, as `session.start`, `worktree.create` and
/// `worktree.restore` carry them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeFacts {
    /// The main worktree of the repository (the project the session belongs to).
    pub repository: PathBuf,
    /// The worktree's folder.
    pub path: PathBuf,
    /// The session's branch, `nodwyn/<short id>` (`nodwyn/<name>-<short id>` with a name).
    pub branch: String,
    /// The session's name (`--name`), as a slug: lowercase letters, digits and `-`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The branch the session lands on: the branch it started from (`main` for `origin/main`),
    /// or `--onto`, or the repository's default branch; `""` when there is none.
    pub base: String,
    /// The remote the base was named through (`origin` for `--base origin/main`), used when the
    /// local base branch has no upstream of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_remote: Option<String>,
    /// The commit the worktree's branch started from.
    pub base_commit: String,
    /// The pull request the worktree was made on, for `--pr`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<u64>,
    /// The port given to the session (`NODWYN_PORT` in its commands), chosen when it was made;
    /// absent for sessions made before ports were given, or when the range was full.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
}

/// What a forced removal kept of the files it discarded: a commit on the worktree's HEAD holding
/// its tracked and untracked files (not ignored ones) as they were.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemovalSnapshot {
    /// The ref that keeps it, `refs/nodwyn/snapshots/<short id>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The snapshot commit.
    pub commit: String,
    /// Files discarded but not kept: credential files, and untracked files too large to read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
}

/// A file `.worktreeinclude` chose that could not be copied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncludeFailure {
    /// The path, relative to the repository's top.
    pub path: String,
    /// What went wrong, in words.
    pub error: String,
}

/// Who removed a worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RemovedBy {
    /// `nodwyn worktree close`, because nothing would be lost.
    Close,
    /// `nodwyn worktree remove`, a person's explicit request.
    Remove,
    /// `nodwyn worktree prune`.
    Prune,
}

/// One kind of record, with its fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Event {
    /// The first record of every log.
    #[serde(rename = "session.start")]
    SessionStart {
        /// The folder the session is pinned to.
        root: PathBuf,
        /// The repository the session belongs to.
        repository: PathBuf,
        /// The worktree, for a worktree session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worktree: Option<WorktreeFacts>,
    },
    /// The session's worktree was made.
    #[serde(rename = "worktree.create")]
    WorktreeCreate {
        /// What was made.
        #[serde(flatten)]
        worktree: WorktreeFacts,
        /// Lines of `git status --porcelain` in the checkout it came from, not carried over.
        uncommitted: usize,
        /// Paths `.worktreeinclude` copied in.
        included: Vec<String>,
        /// Paths it could not copy.
        include_failed: Vec<IncludeFailure>,
    },
    /// A missing worktree was made again by `resume`.
    #[serde(rename = "worktree.restore")]
    WorktreeRestore {
        /// What was made; `base_commit` is where the branch really starts now.
        #[serde(flatten)]
        worktree: WorktreeFacts,
        /// Whether the session's branch still existed and was checked out again.
        branch_reused: bool,
        /// Paths `.worktreeinclude` copied in.
        included: Vec<String>,
        /// Paths it could not copy.
        include_failed: Vec<IncludeFailure>,
        /// The snapshot of a forced removal whose files were put back in it
        /// (`nodwyn worktree restore`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        snapshot: Option<String>,
    },
    /// A worktree hook ran (`.nodwyn/hooks.toml`'s, approved, or the person's own), confined as
    /// an agent's command is.
    #[serde(rename = "hook.run")]
    HookRun {
        /// When: `post_create`, `post_resume`, `pre_remove` or `post_land`.
        hook: String,
        /// Whose: `repository` or `person`.
        from: String,
        /// The command's argv.
        command: Vec<String>,
        /// Its exit code (`null` when it was ended by a signal or its deadline).
        exit: Option<i32>,
        /// Whether its deadline ended it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        timed_out: bool,
        /// How long it ran, in milliseconds.
        duration_ms: u64,
    },
    /// The worktree's folder was removed.
    #[serde(rename = "worktree.remove")]
    WorktreeRemove {
        /// The folder removed.
        path: PathBuf,
        /// The session's branch.
        branch: String,
        /// Whether the branch was deleted too.
        branch_deleted: bool,
        /// Why the branch stayed, when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        branch_kept: Option<String>,
        /// Files `--force` discarded.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        discarded: Vec<String>,
        /// Where what `--force` discarded was kept first (`nodwyn worktree restore` brings it
        /// back).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        snapshot: Option<RemovalSnapshot>,
        /// Which command removed it.
        by: RemovedBy,
    },
    /// The branch the session lands on was chosen again (`nodwyn land --onto`).
    #[serde(rename = "worktree.onto")]
    WorktreeOnto {
        /// The branch.
        base: String,
        /// The remote it was named through, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base_remote: Option<String>,
    },
    /// The worktree was handed over to the person; nodwyn no longer manages it.
    #[serde(rename = "worktree.keep")]
    WorktreeKeep {
        /// The folder handed over.
        path: PathBuf,
        /// Its branch.
        branch: String,
    },
    /// The session was closed.
    #[serde(rename = "session.close")]
    SessionClose {
        /// Why the worktree stayed, when it did; empty when it went or there was none.
        kept: Vec<String>,
    },
    /// The session was opened again.
    #[serde(rename = "session.resume")]
    SessionResume {
        /// The folder the session is pinned to.
        root: PathBuf,
    },
    /// "Don't ask" was turned on or off for the session, by a person.
    #[serde(rename = "session.dont_ask")]
    SessionDontAsk {
        /// Whether it is on now.
        on: bool,
        /// Who turned it on or off.
        by: String,
        /// nodwyn's seal on it (see `seal`); a record without a valid one turns nothing on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seal: Option<String>,
    },
    /// A person answered a question "allow always": what the answer names is allowed without
    /// asking for the rest of the session (across its turns and resumes), beside the standing
    /// answers of `.nodwyn/allow.toml`.
    #[serde(rename = "session.allow_always")]
    SessionAllowAlways {
        /// The command prefix it allows, in whole words (`cargo test`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<Vec<String>>,
        /// The glob of paths it allows writing, relative to the session's folder (`src/**`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        write: Option<String>,
        /// What it allows, in the words the person chose.
        allows: String,
        /// Who gave it, and through what.
        by: String,
        /// nodwyn's seal on it (see `seal`); a record without a valid one allows nothing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seal: Option<String>,
    },
    /// The person's "allow always" answers for the session end here (another kind of client
    /// resumed it: what the person allowed was for the client they answered).
    #[serde(rename = "session.allow_always_ended")]
    SessionAllowAlwaysEnded {
        /// Who ended them, and why.
        by: String,
    },
    /// The session may be resumed by another kind of client: `mcp` when an MCP connection
    /// opened it, or when a person handed it over (`nodwyn session hand`).
    #[serde(rename = "session.handed")]
    SessionHanded {
        /// The kind of client it is handed to (`mcp`).
        to: String,
        /// Who handed it: the person's name, or `mcp` for a session an MCP client opened.
        by: String,
        /// nodwyn's seal on it (see `seal`); a record without a valid one hands nothing over.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seal: Option<String>,
    },
    /// The fingerprint of what in the repository's git configuration can run a program or
    /// redirect a push (see `nodwyn_git::fingerprint`), taken when the worktree was made, or
    /// accepted again by a person after it changed.
    #[serde(rename = "session.config")]
    SessionConfig {
        /// Each watched setting or hook file, and a digest of its value.
        fingerprint: std::collections::BTreeMap<String, String>,
        /// The person who accepted a change; absent when nodwyn took it at the start.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        accepted_by: Option<String>,
        /// nodwyn's seal on it (see `seal`); a record without a valid one is not used.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seal: Option<String>,
    },
    /// A primitive was called (an agent's action, about to be judged).
    #[serde(rename = "primitive.call")]
    PrimitiveCall {
        /// The primitive's name.
        primitive: String,
        /// Its arguments, long strings abbreviated to their length.
        args: serde_json::Value,
        /// Who called it, when not the agent: `strategy` (the repository's approved init.scm).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// The guard's answer to an action.
    #[serde(rename = "guard.decision")]
    GuardDecision {
        /// The action, in words.
        action: String,
        /// The answer, who gave it, and why.
        #[serde(flatten)]
        verdict: GuardVerdict,
    },
    /// How a primitive call ended.
    #[serde(rename = "primitive.result")]
    PrimitiveResult {
        /// The primitive's name.
        primitive: String,
        /// Whether it ran and succeeded.
        ok: bool,
        /// The error or refusal, when it did not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// The exit code of the command it ran (`shell-exec`), when it ran one that exited.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit: Option<i64>,
    },
    /// A push to a remote.
    #[serde(rename = "git.push")]
    GitPush {
        /// The remote, its URLs, the ref, and the commits before and after.
        #[serde(flatten)]
        push: Push,
    },
    /// The session's work landed on its base branch.
    #[serde(rename = "git.land")]
    GitLand {
        /// The base branch.
        base: String,
        /// The strategy (`ff-only`, `squash`, `no-ff`).
        strategy: String,
        /// The commit the base now points at.
        landed: String,
        /// Credential files left out of the commit.
        left_out: Vec<String>,
        /// Who landed it: `person` (`nodwyn land`) or `agent` (the `git-land` primitive).
        by: String,
    },
    /// A landing began (before it committed anything).
    #[serde(rename = "land.begin")]
    LandBegin {
        /// The branch's tip before the landing.
        head: String,
        /// The strategy.
        strategy: String,
    },
    /// Before anything rewrote the branch, a commit was kept under a backup ref.
    #[serde(rename = "land.backup")]
    LandBackup {
        /// The ref (`refs/nodwyn/backup/<short id>/<n>`).
        #[serde(rename = "ref")]
        reference: String,
        /// The commit it keeps.
        commit: String,
    },
    /// A `git rebase` began in the worktree (the session's commits conflict with the base).
    #[serde(rename = "land.rebase")]
    LandRebase {
        /// The base commit it rebases onto.
        onto: String,
        /// The commit the session's own commits start after.
        upstream: String,
    },
    /// The worktree's files and branch were about to move from one commit to another.
    #[serde(rename = "land.move")]
    LandMove {
        /// Where they were.
        from: String,
        /// Where they go.
        to: String,
    },
    /// A landing is about to push `commit` to `reference` of `remote`: once it began, the push
    /// may have reached the remote whatever stopped the landing.
    #[serde(rename = "land.push")]
    LandPush {
        /// The remote.
        remote: String,
        /// The ref of the remote that moves (`refs/heads/main`).
        #[serde(rename = "ref")]
        reference: String,
        /// The commit it moves to.
        commit: String,
    },
    /// A landing ended.
    #[serde(rename = "land.end")]
    LandEnd {
        /// `landed`, `refused`, `failed`, `interrupted` or `aborted`.
        outcome: LandOutcome,
        /// Why, when it did not land.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
    },
    /// A person was shown the session's changes (`nodwyn worktree diff`, chat's `/diff`): the
    /// tree of the worktree's files as they were shown, so a landing lands exactly that.
    #[serde(rename = "review.shown")]
    ReviewShown {
        /// The git tree of every file in the worktree as the review read them.
        tree: String,
        /// The commit the changes were counted from.
        base_commit: String,
    },
    /// A file's previous content was kept before a primitive replaced it.
    #[serde(rename = "version.keep")]
    VersionKeep {
        /// The file.
        path: PathBuf,
        /// The kept version's number.
        version: u64,
    },
    /// A kept version was written back by a person.
    #[serde(rename = "version.restore")]
    VersionRestore {
        /// The file written.
        path: PathBuf,
        /// The version restored.
        version: u64,
        /// The version that keeps what the file held before the restore, if it held anything.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kept: Option<u64>,
    },
    /// A person approved a repository's `.nodwyn/init.scm`, by its content's hash.
    #[serde(rename = "strategy.approve")]
    StrategyApprove {
        /// The file.
        path: PathBuf,
        /// The SHA-256 of its content, in hex.
        sha256: String,
    },
    /// An approved strategy first took effect in the session (approved now or earlier): from
    /// here on the session's calls are refused while the strategy's files say anything else.
    #[serde(rename = "strategy.load")]
    StrategyLoad {
        /// The SHA-256 of its content (init.scm and prompts.scm), in hex.
        sha256: String,
    },
    /// Scheme a person ran in the session (`nodwyn eval`), and how it ended. The primitives it
    /// called have their own records.
    #[serde(rename = "scheme.eval")]
    SchemeEval {
        /// The file, or `<expression>`.
        source: String,
        /// Whether it gave a value.
        ok: bool,
        /// Why not, when it did not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A hook of the repository's approved strategy ran (`on-turn`); the primitive calls it
    /// made come before this record.
    #[serde(rename = "strategy.hook")]
    StrategyHook {
        /// The hook.
        hook: String,
        /// Whether it gave a value.
        ok: bool,
        /// Why not, when it did not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A turn began: one message from the person to the model's final answer.
    #[serde(rename = "turn.start")]
    TurnStart {
        /// The turn's number in the session, from 1.
        turn: u32,
        /// The git tree of the worktree's files as the turn began (what a review's "last turn"
        /// counts from); absent outside a worktree, or when they could not be read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tree: Option<String>,
    },
    /// An item of the conversation: the person's message, the model's answer, a tool's result,
    /// the engine's note to the model.
    #[serde(rename = "conversation.item")]
    ConversationItem {
        /// The turn it belongs to.
        turn: u32,
        /// The item's id (`3.2`: the turn, then its place in the turn), which the live
        /// `item.started` and `item.delta` notifications named it by.
        #[serde(rename = "item", default, skip_serializing_if = "Option::is_none")]
        item_id: Option<String>,
        /// The sub-agent whose conversation it is; absent for the session's own agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        /// The item.
        #[serde(flatten)]
        item: crate::item::Item,
    },
    /// One call to the model: which, the tokens used, why it stopped, how soon it answered.
    #[serde(rename = "model.call")]
    ModelCall {
        /// The turn it belongs to.
        turn: u32,
        /// The call.
        #[serde(flatten)]
        call: crate::item::ModelCall,
    },
    /// A turn ended.
    #[serde(rename = "turn.end")]
    TurnEnd {
        /// The turn.
        turn: u32,
        /// How it ended.
        #[serde(flatten)]
        end: crate::item::TurnEnd,
        /// What it used.
        usage: crate::item::TurnUsage,
        /// The model's last text, when the turn finished: its answer.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        answer: String,
    },
    /// A question nobody answered in time (`nodwyn serve`'s `[serve] approval_timeout_seconds`):
    /// it was declined, and the turn went on.
    #[serde(rename = "approval.timed_out")]
    ApprovalTimedOut {
        /// The question's id.
        request: String,
        /// What the call would have done, in words.
        action: String,
        /// How long it waited, in seconds.
        waited_seconds: u64,
    },
    /// A run with nobody to ask began in the session (`nodwyn run --headless`): every question
    /// of it is declined.
    #[serde(rename = "run.headless")]
    RunHeadless {
        /// Where it ran.
        ran_on: RanOn,
    },
    /// The session, which ran elsewhere, was imported here (`nodwyn session import`): from this
    /// record on its repository and worktree are this machine's. The records before it are kept
    /// as they came, and grant nothing here (their seals are another installation's).
    #[serde(rename = "session.import")]
    SessionImport {
        /// What it was imported from: an export file, or a GitHub Actions run.
        source: String,
        /// Where it ran.
        ran_on: Box<RanOn>,
        /// The repository it belongs to here.
        repository: PathBuf,
        /// Its worktree's facts here (the folder made for it, its branch as fetched).
        worktree: Box<WorktreeFacts>,
    },
    /// The line before this record was torn (nodwyn stopped, or the disk filled, while writing
    /// it): it is left in the log as it is, and no reader warns of it again.
    #[serde(rename = "log.torn")]
    LogTorn {
        /// How many bytes the torn line holds.
        bytes: u64,
    },
    /// A record of a kind this version of nodwyn does not know.
    #[serde(other)]
    Other,
}

/// One line of a log: when, and what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// RFC 3339 UTC.
    pub at: String,
    /// What happened.
    #[serde(flatten)]
    pub event: Event,
}

impl Record {
    /// A record of `event` happening at `at` (RFC 3339 UTC).
    pub fn new(at: impl Into<String>, event: Event) -> Self {
        Self {
            at: at.into(),
            event,
        }
    }
}
