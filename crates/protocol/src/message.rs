//! The messages: a client's requests and the engine's responses, the engine's notifications,
//! and the engine's requests to its client for a person's answer.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::item::{Item, ModelCall, PlanStep, TurnEnd, TurnUsage};

/// A message with the id that pairs a request with its response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope<T> {
    /// Chosen by the sender, unique among its open requests.
    pub id: u64,
    /// The message.
    #[serde(flatten)]
    pub message: T,
}

/// Which of a session's changes a review shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeScope {
    /// Every change that has not landed: since the base commit, or since the last commit the
    /// branch shares with its base.
    SinceBase,
    /// What is not committed yet: since the worktree's `HEAD`.
    Uncommitted,
    /// What the last turn changed (or the running one, so far): since the worktree's files as
    /// that turn began.
    LastTurn,
}

/// Where a session works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeMode {
    /// In the checkout until the first call that would change anything, then in a new worktree.
    Auto,
    /// In a new worktree from the start.
    Always,
    /// In the checkout itself.
    Off,
}

/// What a client asks of the engine. A parameter an engine does not know is refused, never
/// passed over: features arrive as new methods, not as new parameters of old ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "params", deny_unknown_fields)]
pub enum Request {
    /// The first message: the engine answers with [`Hello`].
    #[serde(rename = "hello")]
    Hello {
        /// The client's name and version.
        client: String,
    },
    /// Opens a session for an agent in a folder.
    #[serde(rename = "session.open")]
    SessionOpen {
        /// The folder.
        repo: PathBuf,
        /// Where the session works.
        worktree: WorktreeMode,
        /// The revision a new worktree starts from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base: Option<String>,
        /// A name for the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The sessions of a repository.
    #[serde(rename = "session.list")]
    SessionList {
        /// The repository.
        repo: PathBuf,
    },
    /// The repositories nodwyn keeps sessions of.
    #[serde(rename = "repository.list")]
    RepositoryList {},
    /// Asks this client every session's questions: each waiting now, and each new one, with
    /// `approval.resolved` when one is settled (a queue of every question, across sessions).
    #[serde(rename = "approval.watch")]
    ApprovalWatch {},
    /// A session's log: its records after `after` (a record's `seq`; none: from the first).
    #[serde(rename = "session.events")]
    SessionEvents {
        /// The session.
        session: String,
        /// The last `seq` the client has.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<u64>,
    },
    /// Sends the session's events after `after` to this client, then every new one as it
    /// happens, and the questions still waiting for an answer.
    #[serde(rename = "session.subscribe")]
    SessionSubscribe {
        /// The session.
        session: String,
        /// The last `seq` the client has (none: from the first record).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<u64>,
    },
    /// Stops sending the session's events to this client.
    #[serde(rename = "session.unsubscribe")]
    SessionUnsubscribe {
        /// The session.
        session: String,
    },
    /// Opens a session again, its worktree made again if it is gone.
    #[serde(rename = "session.resume")]
    SessionResume {
        /// The session.
        session: String,
    },
    /// Closes a session; its worktree goes only if nothing would be lost.
    #[serde(rename = "session.close")]
    SessionClose {
        /// The session.
        session: String,
    },
    /// Opens a session in a new worktree.
    #[serde(rename = "worktree.open")]
    WorktreeOpen {
        /// The repository.
        repo: PathBuf,
        /// The revision it starts from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base: Option<String>,
        /// A name for it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The worktrees of a repository.
    #[serde(rename = "worktree.list")]
    WorktreeList {
        /// The repository.
        repo: PathBuf,
    },
    /// Removes a session's worktree (refused when work would be lost, unless forced).
    #[serde(rename = "worktree.remove")]
    WorktreeRemove {
        /// The session.
        session: String,
        /// Discard what would be lost.
        #[serde(default)]
        force: bool,
    },
    /// A session's changes, for review.
    #[serde(rename = "worktree.diff")]
    WorktreeDiff {
        /// The session.
        session: String,
    },
    /// A session's changes in a scope, for review (recorded as shown, as `worktree.diff` is).
    #[serde(rename = "worktree.changes")]
    WorktreeChanges {
        /// The session.
        session: String,
        /// Which changes.
        scope: ChangeScope,
    },
    /// What a landing's credential scan would refuse in the session's work now, and the files
    /// its commit would leave out, without landing anything.
    #[serde(rename = "worktree.scan")]
    WorktreeScan {
        /// The session.
        session: String,
    },
    /// Sends review comments to a session as one message, starting a turn.
    #[serde(rename = "worktree.review")]
    WorktreeReview {
        /// The session.
        session: String,
        /// An overall note, sent first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        /// Comments on lines: the file, the line (as the file is now), the text.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        comments: Vec<LineComment>,
        /// Comments on whole files.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        file_comments: Vec<FileComment>,
    },
    /// Opens a session and starts its first turn with `task`.
    #[serde(rename = "run.start")]
    RunStart {
        /// The folder.
        repo: PathBuf,
        /// The task.
        task: String,
        /// Where the session works.
        worktree: WorktreeMode,
        /// The model profile, when not the default one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// Starts a turn in an open session with the person's message.
    #[serde(rename = "turn.start")]
    TurnStart {
        /// The session.
        session: String,
        /// The message.
        text: String,
    },
    /// Interrupts a session's turn: the model's stream is closed, a running command ended.
    #[serde(rename = "turn.interrupt")]
    TurnInterrupt {
        /// The session.
        session: String,
    },
    /// Keeps a session in its checkout from now on (worktree mode `off`): its first change
    /// makes no worktree, and every write is asked. Refused while a turn runs.
    #[serde(rename = "session.stay_in_checkout")]
    SessionStayInCheckout {
        /// The session.
        session: String,
    },
    /// Lands a session's work on its base by the one guarded step (commit, rebase onto the
    /// newest base, fast-forward only, a credential scan of what leaves). When the person was
    /// shown the session's changes (`worktree.diff`), exactly that tree lands or the landing
    /// says it changed since. Refused while a turn runs, and for a process an agent's command
    /// started.
    #[serde(rename = "session.land")]
    SessionLand {
        /// The session.
        session: String,
        /// The commit message for its uncommitted changes.
        message: String,
    },
    /// Turns Don't ask on or off for a session, recorded as the person's own choice through
    /// this client. Refused for a process an agent's command started.
    #[serde(rename = "session.dont_ask")]
    SessionDontAsk {
        /// The session.
        session: String,
        /// On or off.
        on: bool,
    },
}

impl Request {
    /// Every method a client may call, in the order `hello` lists them.
    pub const METHODS: &'static [&'static str] = &[
        "hello",
        "session.open",
        "session.list",
        "repository.list",
        "approval.watch",
        "session.events",
        "session.subscribe",
        "session.unsubscribe",
        "session.resume",
        "session.close",
        "worktree.open",
        "worktree.list",
        "worktree.remove",
        "worktree.diff",
        "worktree.changes",
        "worktree.scan",
        "worktree.review",
        "run.start",
        "turn.start",
        "turn.interrupt",
        "session.stay_in_checkout",
        "session.land",
        "session.dont_ask",
    ];

    /// The request's method.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Hello { .. } => "hello",
            Self::SessionOpen { .. } => "session.open",
            Self::SessionList { .. } => "session.list",
            Self::RepositoryList {} => "repository.list",
            Self::ApprovalWatch {} => "approval.watch",
            Self::SessionEvents { .. } => "session.events",
            Self::SessionSubscribe { .. } => "session.subscribe",
            Self::SessionUnsubscribe { .. } => "session.unsubscribe",
            Self::SessionResume { .. } => "session.resume",
            Self::SessionClose { .. } => "session.close",
            Self::WorktreeOpen { .. } => "worktree.open",
            Self::WorktreeList { .. } => "worktree.list",
            Self::WorktreeRemove { .. } => "worktree.remove",
            Self::WorktreeDiff { .. } => "worktree.diff",
            Self::WorktreeChanges { .. } => "worktree.changes",
            Self::WorktreeScan { .. } => "worktree.scan",
            Self::WorktreeReview { .. } => "worktree.review",
            Self::RunStart { .. } => "run.start",
            Self::TurnStart { .. } => "turn.start",
            Self::TurnInterrupt { .. } => "turn.interrupt",
            Self::SessionStayInCheckout { .. } => "session.stay_in_checkout",
            Self::SessionLand { .. } => "session.land",
            Self::SessionDontAsk { .. } => "session.dont_ask",
        }
    }
}

/// A review comment on one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineComment {
    /// The file.
    pub path: String,
    /// The line, as the file is now.
    pub line: u64,
    /// What the person says.
    pub text: String,
    /// The line's text as the person saw it: when the line reads otherwise now, the comment is
    /// refused (`comment_outdated`) rather than told of a line it was not written about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_text: Option<String>,
}

/// A review comment on a whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileComment {
    /// The file.
    pub path: String,
    /// What the person says.
    pub text: String,
}

/// The engine's answer to `hello`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// [`crate::VERSION`].
    pub protocol: u32,
    /// The engine's name and version.
    pub engine: String,
    /// The methods it answers.
    pub methods: Vec<String>,
    /// Its data directory (sessions' logs): a command-line client asks a daemon of another one
    /// nothing about sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<std::path::PathBuf>,
}

/// The engine's answer to a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    /// It worked; what it gives back.
    Result(Value),
    /// It did not.
    Error {
        /// A stable code programs act on (`not_a_git_repo`, `worktree_dirty`, ...).
        code: String,
        /// The sentence people read.
        message: String,
    },
}

/// What the engine tells its client as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "params")]
pub enum Notification {
    /// A session is ready for turns.
    #[serde(rename = "session.started")]
    SessionStarted {
        /// Its id.
        session: String,
        /// The folder it works in.
        root: PathBuf,
        /// Its branch, in a worktree.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        branch: Option<String>,
    },
    /// The session moved into a new worktree (auto mode, at the first change).
    #[serde(rename = "session.worktree")]
    SessionWorktree {
        /// The session.
        session: String,
        /// The worktree.
        root: PathBuf,
        /// Its branch.
        branch: String,
        /// Lines of `git status --porcelain` in the checkout the session came from, not carried
        /// into the worktree (the person's uncommitted changes stay there).
        #[serde(default, skip_serializing_if = "is_zero")]
        uncommitted: usize,
    },
    /// A turn began.
    #[serde(rename = "turn.started")]
    TurnStarted {
        /// The session.
        session: String,
        /// The turn's number in the session, from 1.
        turn: u32,
    },
    /// The turn's plan, whole, each time it changes: the steps a strategy declared
    /// (`define-plan`), as the agent marks them. Live only: the agent's `plan` calls are in the
    /// log as tool calls.
    #[serde(rename = "turn.plan")]
    TurnPlan {
        /// The session.
        session: String,
        /// The steps, in order.
        steps: Vec<PlanStep>,
    },
    /// An item began: the model started answering, or a tool call started running.
    #[serde(rename = "item.started")]
    ItemStarted {
        /// The item's id in this turn.
        item: String,
        /// What it is (`assistant_message`, `tool_call`).
        kind: String,
        /// For a tool call: the tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
    },
    /// More of an item's text.
    #[serde(rename = "item.delta")]
    ItemDelta {
        /// The item.
        item: String,
        /// The text that came.
        text: String,
    },
    /// More of the reasoning the model shows while it works on an item's answer: shown to the
    /// person, never part of the answer nor kept in the log.
    #[serde(rename = "item.reasoning")]
    ItemReasoning {
        /// The item (the assistant message it precedes).
        item: String,
        /// The text that came.
        text: String,
    },
    /// An item is complete.
    #[serde(rename = "item.completed")]
    ItemCompleted {
        /// The item's id in this turn.
        item: String,
        /// The sub-agent whose conversation it belongs to (`reviewer`, `planner/reviewer`);
        /// absent for the session's own agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        /// The item.
        #[serde(flatten)]
        value: Item,
    },
    /// A model call ended.
    #[serde(rename = "model.called")]
    ModelCalled(ModelCall),
    /// A turn ended.
    #[serde(rename = "turn.completed")]
    TurnCompleted {
        /// The session.
        session: String,
        /// The turn.
        turn: u32,
        /// How it ended.
        end: TurnEnd,
        /// What the turn used.
        usage: TurnUsage,
        /// The model's last text, the turn's answer.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        answer: String,
    },
    /// A record of the session's log that no other notification tells (a guard's decision, a
    /// landing's step, a worktree kept).
    #[serde(rename = "session.record")]
    SessionRecord {
        /// The record, as the log holds it.
        record: crate::record::Record,
    },
    /// A question was settled: answered by a client, cancelled by an interrupt or the turn's
    /// end, or declined when nobody answered in time. Every client that was asked hears it.
    #[serde(rename = "approval.resolved")]
    ApprovalResolved {
        /// The question's id (`approval.request`'s `request`).
        request: String,
        /// How it was settled.
        decision: Decision,
        /// Why, when no client's answer settled it (`timed_out`, `interrupted`, `turn_ended`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The events after the client's cursor cannot all be sent again: those from `from` on
    /// follow; `session.events` reads the rest of the log.
    #[serde(rename = "resync")]
    Resync {
        /// The cursor the client gave.
        after: u64,
        /// The first `seq` sent again.
        from: u64,
        /// Why, in words.
        why: String,
    },
}

/// What kind of question the engine asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalKind {
    /// An ordinary confirm: a standing answer or Don't ask could also give it.
    Ordinary,
    /// A security confirm: only a person gives it.
    Security,
    /// May a repository's `.nodwyn/init.scm` run (its files and their hash in `effect`)?
    Strategy,
}

/// A request from the engine to its client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "params")]
pub enum ServerRequest {
    /// May this call run? The client answers with [`Approval`].
    #[serde(rename = "approval.request")]
    ApprovalRequest {
        /// The question's id, unique in the engine's life: the same question sent again (on a
        /// client's subscribe) has the same id.
        request: String,
        /// The session.
        session: String,
        /// The turn that waits, when the question belongs to one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn: Option<u32>,
        /// The tool call that waits (its item id), when a model's call asks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<String>,
        /// What the call would do, in words.
        action: String,
        /// What it would do, in data: the paths it reads and writes, the command line, what it
        /// sends off the machine, whether it can be undone.
        #[serde(default, skip_serializing_if = "Value::is_null")]
        effect: Value,
        /// Why the guard asks.
        why: String,
        /// What kind of confirm.
        kind: ApprovalKind,
        /// What answering [`Decision::AllowAlways`] would allow for the rest of the session, in
        /// words, when nodwyn offers a narrow standing answer (a command's program and
        /// subcommand, a write's folder); never for a security confirm.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        always: Option<String>,
    },
}

/// A client's answer to an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approval {
    /// What the person decides.
    pub decision: Decision,
}

/// What a person decides about a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// It may run.
    Allow,
    /// It may run, and what the request's `always` names is allowed for the rest of the
    /// session. Where nothing was offered, it allows this one call only.
    AllowAlways,
    /// It may not; the turn goes on (the model hears the call was declined).
    Decline,
    /// It may not, and the turn ends as interrupted.
    Cancel,
    /// Nobody can answer where this client is (no terminal): the call is refused with a
    /// sentence saying how to approve it, as with no person at all. A client that is one of
    /// several should leave the question to the others instead.
    NoPerson,
    /// The client asked its person and nobody answered in the client's own time (an editor
    /// that never shows its prompt): declined, and recorded as a question nobody answered.
    Unanswered,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}
