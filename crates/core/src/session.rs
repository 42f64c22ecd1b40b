//! A session's state, folded from its event log.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::Error;
use crate::event::{Event, WorktreeFacts};
use crate::id::SessionId;
use crate::store::{Store, StoredSession};
use nodwyn_prim::PendingLanding;

/// What became of a session's worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WorktreeState {
    /// nodwyn manages it (its folder may still be missing from disk).
    Active,
    /// nodwyn removed its folder.
    Removed,
    /// Handed over to the person with `keep`; nodwyn no longer touches it.
    Kept,
}

/// How many of a session's latest primitive calls it remembers ([`Session::recent_calls`]).
pub(crate) const RECENT_CALLS: usize = 64;

/// A primitive call as the session's log tells it, for a strategy's `(on-call)` to weigh.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecentCall {
    /// The primitive.
    pub primitive: String,
    /// Its arguments as logged (long strings abbreviated to their length).
    pub args: serde_json::Value,
    /// Who called it, when not the agent (`strategy`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The action in the guard's words (`shell-exec cargo test`), once the guard decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Whether it ran and succeeded; `None` until its result is recorded.
    pub ok: Option<bool>,
    /// The exit code of the command it ran, when it ran one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<i64>,
}

/// A session as its log tells it.
#[derive(Debug, Clone)]
pub struct Session {
    /// The session's id.
    pub id: SessionId,
    /// When it started (RFC 3339).
    pub started: String,
    /// The folder the session is pinned to.
    pub root: PathBuf,
    /// The repository it belongs to.
    pub repository: PathBuf,
    /// Its worktree's facts (the latest: a restore may have moved `base_commit`).
    pub worktree: Option<WorktreeFacts>,
    /// What became of the worktree.
    pub worktree_state: WorktreeState,
    /// Whether the worktree named at the session's start was never finished: its
    /// `worktree.create` was never recorded (the making was killed during git's checkout, say),
    /// so its files may be only part of its branch's. Nothing may use it until `resume` makes it
    /// again.
    pub worktree_unfinished: bool,
    /// Whether the session is open (not closed since it last started or resumed).
    pub open: bool,
    /// Why the worktree stayed when the session was last closed.
    pub kept: Vec<String>,
    /// Who turned "Don't ask" on, while it is on.
    pub dont_ask: Option<String>,
    /// The files the session's primitives wrote (`fs-write`, `fs-edit` that succeeded), relative
    /// to its folder: an agent's landing lands only these of the new files (and those it names).
    pub written: std::collections::BTreeSet<String>,
    /// The path of a write just called, until its result says whether it wrote.
    writing: Option<String>,
    /// The hash of the approved strategy in force in the session (`strategy.approve`,
    /// `strategy.load`): while the strategy's files hash to anything else, or are gone, its calls
    /// are refused.
    pub strategy_in_force: Option<String>,
    /// The kinds of client the session was handed to (`mcp`: an MCP connection opened it, or a
    /// person handed it over), by sealed `session.handed` records.
    pub handed_to: Vec<String>,
    /// The standing answers a person gave for this session alone ("allow always"), by sealed
    /// `session.allow_always` records.
    pub always: Vec<nodwyn_guard::StandingAnswer>,
    /// A landing that began and has not ended (stopped at a conflict, interrupted, or killed).
    pub landing: Option<PendingLanding>,
    /// The repository's configuration fingerprint as last recorded (`session.config`).
    pub config: Option<nodwyn_git::fingerprint::Fingerprint>,
    /// The log it was read from.
    pub log_path: Option<PathBuf>,
    /// How many turns an agent has begun in it.
    pub turns: u32,
    /// A turn that began and has not ended (the run was interrupted hard, or crashed).
    pub open_turn: Option<u32>,
    /// The model calls and tokens of every turn.
    pub usage: nodwyn_protocol::TurnUsage,
    /// The tree of the worktree as a person was last shown it (`review.shown`), until a landing
    /// lands: the next landing lands exactly that tree, or says the files changed since.
    pub reviewed_tree: Option<String>,
    /// Where the latest turn's changes start: the worktree's files as it began (`turn.start`'s
    /// `tree`), or the base commit of a worktree that turn made; none before the first turn, or
    /// when neither is known.
    pub last_turn_start: Option<String>,
    /// How its latest turn that ended, ended.
    pub last_turn_end: Option<nodwyn_protocol::TurnEnd>,
    /// Its latest landing that landed: the base and the commit the base then pointed at.
    pub last_landing: Option<(String, String)>,
    /// What its latest forced removal kept, until `worktree restore` puts it back.
    pub removal_snapshot: Option<crate::event::RemovalSnapshot>,
    /// Its latest primitive calls (at most `RECENT_CALLS`), oldest first.
    pub recent_calls: std::collections::VecDeque<RecentCall>,
    /// Where it ran, for a session imported from another machine (`session.import`).
    pub ran_on: Option<crate::event::RanOn>,
    /// Whether an imported session was resumed here since (it is no longer only remote work).
    pub resumed_here: bool,
}

impl Session {
    /// Reads a stored session's log and folds it.
    pub fn load(stored: &StoredSession) -> Result<Self, Error> {
        Followed::load(stored).map(|followed| followed.session)
    }

    /// Folds one record, at `place` in the log; what grants authority counts only with a valid
    /// seal (see `crate::seal`).
    fn apply(&mut self, event: Event, place: usize, seal: Option<&crate::seal::Seal>) {
        let id = self.id.to_string();
        let sealed = |what: &str, given: &Option<String>| {
            seal.is_some_and(|seal| seal.verifies(what, given.as_deref()))
        };
        match event {
            Event::WorktreeCreate { worktree, .. } => {
                // A turn that made the worktree changed everything since its base commit.
                if self.open_turn.is_some() && self.last_turn_start.is_none() {
                    self.last_turn_start = Some(worktree.base_commit.clone());
                }
                // A session that began in a checkout moves into the worktree made for it.
                self.root = worktree.path.clone();
                self.worktree = Some(worktree);
                self.worktree_state = WorktreeState::Active;
                self.worktree_unfinished = false;
            }
            Event::WorktreeRestore {
                worktree, snapshot, ..
            } => {
                if snapshot.is_some() {
                    // Its files are back in the worktree; the ref stays until prune drops it.
                    self.removal_snapshot = None;
                }
                self.root = worktree.path.clone();
                self.worktree = Some(worktree);
                self.worktree_state = WorktreeState::Active;
                self.worktree_unfinished = false;
            }
            Event::WorktreeRemove { snapshot, .. } => {
                self.worktree_state = WorktreeState::Removed;
                if snapshot.is_some() {
                    self.removal_snapshot = snapshot;
                }
            }
            Event::WorktreeOnto { base, base_remote } => {
                if let Some(facts) = &mut self.worktree {
                    facts.base = base;
                    facts.base_remote = base_remote;
                }
            }
            Event::WorktreeKeep { .. } => self.worktree_state = WorktreeState::Kept,
            Event::SessionClose { kept } => {
                self.open = false;
                self.kept = kept;
            }
            Event::SessionResume { root } => {
                self.open = true;
                self.root = root;
                self.resumed_here = self.ran_on.is_some();
            }
            Event::SessionImport {
                repository,
                worktree,
                ran_on,
                ..
            } => {
                // From here the session is this machine's: its repository and worktree are the
                // ones here (the folder is made by the `worktree.restore` that follows), and
                // nothing the other machine's records granted or left running holds.
                self.repository = repository;
                self.root = worktree.path.clone();
                self.worktree = Some(*worktree);
                self.worktree_state = WorktreeState::Removed;
                self.worktree_unfinished = false;
                self.open = false;
                self.kept.clear();
                self.dont_ask = None;
                self.always.clear();
                self.handed_to.clear();
                self.strategy_in_force = None;
                self.config = None;
                self.landing = None;
                self.open_turn = None;
                self.reviewed_tree = None;
                self.removal_snapshot = None;
                self.written.clear();
                self.writing = None;
                self.recent_calls.clear();
                self.last_landing = None;
                self.last_turn_start = None;
                self.ran_on = Some(*ran_on);
                self.resumed_here = false;
            }
            Event::SessionDontAsk { on, by, seal } => {
                if !on {
                    self.dont_ask = None;
                } else if sealed(&crate::seal::dont_ask_sealed(&id, place, on, &by), &seal) {
                    self.dont_ask = Some(by);
                } else {
                    tracing::info!(session = %id, place, "a session.dont_ask record nodwyn did not seal is ignored");
                }
            }
            Event::SessionAllowAlways {
                command,
                write,
                allows,
                by,
                seal,
            } => {
                let what = crate::seal::always_sealed(
                    &id,
                    place,
                    command.as_deref(),
                    write.as_deref(),
                    &allows,
                    &by,
                );
                let answer = match (command, write) {
                    (Some(words), None) => Some(nodwyn_guard::StandingAnswer::Command(words)),
                    (None, Some(glob)) => Some(nodwyn_guard::StandingAnswer::Write(glob)),
                    _ => None,
                };
                match answer {
                    Some(answer) if sealed(&what, &seal) => self.always.push(answer),
                    _ => {
                        tracing::info!(session = %id, place, "a session.allow_always record nodwyn did not seal is ignored");
                    }
                }
            }
            Event::SessionAllowAlwaysEnded { .. } => self.always.clear(),
            Event::SessionHanded { to, by, seal } => {
                if sealed(&crate::seal::handed_sealed(&id, place, &to, &by), &seal) {
                    if !self.handed_to.contains(&to) {
                        self.handed_to.push(to);
                    }
                } else {
                    tracing::info!(session = %id, place, "a session.handed record nodwyn did not seal is ignored");
                }
            }
            Event::SessionConfig {
                fingerprint,
                accepted_by,
                seal,
            } => {
                let what =
                    crate::seal::config_sealed(&id, place, &fingerprint, accepted_by.as_deref());
                if sealed(&what, &seal) {
                    self.config = Some(fingerprint);
                } else {
                    tracing::info!(session = %id, place, "a session.config record nodwyn did not seal is ignored");
                }
            }
            Event::LandBegin { head, .. } => {
                self.landing = Some(PendingLanding {
                    head,
                    ..PendingLanding::default()
                });
            }
            Event::LandBackup { reference, commit } => {
                if let Some(landing) = &mut self.landing {
                    landing.backup.get_or_insert((reference, commit));
                }
            }
            Event::LandRebase { onto, upstream } => {
                if let Some(landing) = &mut self.landing {
                    landing.rebase = Some((onto, upstream));
                }
            }
            Event::LandMove { from, to } => {
                if let Some(landing) = &mut self.landing {
                    landing.moving = Some((from, to));
                }
            }
            Event::LandPush {
                remote,
                reference,
                commit,
            } => {
                if let Some(landing) = &mut self.landing {
                    landing.push = Some((remote, reference, commit));
                }
            }
            Event::LandEnd { outcome, .. } => {
                self.landing = None;
                if outcome == nodwyn_protocol::record::LandOutcome::Landed {
                    self.reviewed_tree = None;
                }
            }
            Event::ReviewShown { tree, .. } => self.reviewed_tree = Some(tree),
            Event::StrategyApprove { sha256, .. } | Event::StrategyLoad { sha256 } => {
                self.strategy_in_force = Some(sha256);
            }
            Event::TurnStart { turn, tree } => {
                self.last_turn_start = tree;
                self.turns = self.turns.max(turn);
                self.open_turn = Some(turn);
            }
            Event::TurnEnd { end, .. } => {
                self.open_turn = None;
                self.last_turn_end = Some(end);
            }
            Event::GitLand { base, landed, .. } => self.last_landing = Some((base, landed)),
            Event::ModelCall { call, .. } => {
                self.usage.model_calls += 1;
                self.usage.input_tokens += call.input_tokens;
                self.usage.output_tokens += call.output_tokens;
            }
            Event::PrimitiveCall {
                primitive,
                args,
                by,
                ..
            } => {
                self.writing = written_path(&primitive, &args, &self.root);
                if self.recent_calls.len() == RECENT_CALLS {
                    self.recent_calls.pop_front();
                }
                self.recent_calls.push_back(RecentCall {
                    primitive,
                    args,
                    by,
                    action: None,
                    ok: None,
                    exit: None,
                });
            }
            Event::GuardDecision { action, .. } => {
                if let Some(call) = self.recent_calls.back_mut()
                    && call.action.is_none()
                {
                    call.action = Some(action);
                }
            }
            Event::PrimitiveResult {
                primitive,
                ok,
                exit,
                ..
            } => {
                if let Some(path) = self.writing.take()
                    && ok
                {
                    self.written.insert(path);
                }
                if let Some(call) = self.recent_calls.back_mut()
                    && call.primitive == primitive
                    && call.ok.is_none()
                {
                    call.ok = Some(ok);
                    call.exit = exit;
                }
            }
            Event::SessionStart { .. }
            | Event::RunHeadless { .. }
            | Event::LogTorn { .. }
            | Event::GitPush { .. }
            | Event::VersionKeep { .. }
            | Event::VersionRestore { .. }
            | Event::SchemeEval { .. }
            | Event::StrategyHook { .. }
            | Event::HookRun { .. }
            | Event::ConversationItem { .. }
            | Event::ApprovalTimedOut { .. }
            | Event::Other => {}
        }
    }

    /// The folder the session's repository Scheme files (`.nodwyn/init.scm` and
    /// `.nodwyn/prompts.scm`) are read from: its root; but a session that moved into its worktree
    /// with an approved strategy in force that the worktree does not have because git does not
    /// track it (the person's uncommitted `.nodwyn/` in the checkout) keeps reading it from the
    /// checkout, which its
    /// commands cannot write, so the strategy does not vanish with the move.
    pub(crate) fn strategy_folder(&self) -> &std::path::Path {
        let strategy = |folder: &std::path::Path| folder.join(".nodwyn").join("init.scm").exists();
        // Only an uncommitted one: a committed strategy the worktree lacks was removed there,
        // and the session holds to it (see `StrategyJudge`).
        let untracked = || {
            !nodwyn_git::untracked::is_tracked(&self.repository, ".nodwyn/init.scm").unwrap_or(true)
        };
        if self.strategy_in_force.is_some()
            && self.root != self.repository
            && !strategy(&self.root)
            && strategy(&self.repository)
            && untracked()
        {
            &self.repository
        } else {
            &self.root
        }
    }

    /// The file (relative to the session's folder) of the latest call when it was a write whose
    /// result was never recorded: one killed before it ended, which may have left its temporary
    /// file beside the file.
    pub(crate) fn unended_write(&self) -> Option<&str> {
        self.writing.as_deref()
    }

    /// The worktree nodwyn still manages, if any.
    pub fn active_worktree(&self) -> Option<&WorktreeFacts> {
        self.worktree
            .as_ref()
            .filter(|_| self.worktree_state == WorktreeState::Active)
    }
}

/// A session kept current as its log grows: each refresh reads only the records appended since
/// the last, so a turn of many calls does not read its whole log again for each.
#[derive(Clone)]
pub struct Followed {
    session: Session,
    stored: StoredSession,
    /// Where the next read starts, in bytes.
    offset: u64,
    /// How many records were folded (the next one's place).
    records: usize,
    seal: Option<crate::seal::Seal>,
}

impl Followed {
    /// Reads a stored session's log and folds it, one record at a time (a log of any size
    /// costs time in proportion, and the memory of the session it describes).
    pub fn load(stored: &StoredSession) -> Result<Self, Error> {
        let seal = crate::store::Store::data_dir_of(stored.log.path())
            .and_then(|home| crate::seal::Seal::of(&home).ok());
        let mut followed: Option<Followed> = None;
        let mut damaged = false;
        let offset = stored.log.each_record_from(0, |record| {
            match (&mut followed, record.event) {
                (Some(followed), event) => followed.fold(event),
                (None, _) if damaged => {}
                (
                    None,
                    Event::SessionStart {
                        root,
                        repository,
                        worktree,
                    },
                ) => {
                    followed = Some(Followed {
                        session: Session {
                            id: stored.id.clone(),
                            started: record.at,
                            root,
                            repository,
                            worktree_unfinished: worktree.is_some(),
                            worktree,
                            worktree_state: WorktreeState::Active,
                            open: true,
                            kept: Vec::new(),
                            dont_ask: None,
                            landing: None,
                            config: None,
                            log_path: Some(stored.log.path().to_path_buf()),
                            turns: 0,
                            open_turn: None,
                            usage: nodwyn_protocol::TurnUsage::default(),
                            reviewed_tree: None,
                            last_turn_start: None,
                            last_turn_end: None,
                            last_landing: None,
                            removal_snapshot: None,
                            handed_to: Vec::new(),
                            always: Vec::new(),
                            strategy_in_force: None,
                            written: Default::default(),
                            writing: None,
                            recent_calls: std::collections::VecDeque::new(),
                            ran_on: None,
                            resumed_here: false,
                        },
                        stored: stored.clone(),
                        offset: 0,
                        // Place 0 is the session.start record.
                        records: 1,
                        seal: seal.clone(),
                    });
                }
                // A log that does not begin with its session's start is damaged.
                (None, _) => damaged = true,
            }
        })?;
        let mut followed =
            followed.ok_or_else(|| Error::DamagedLog(stored.log.path().to_path_buf()))?;
        followed.offset = offset;
        Ok(followed)
    }

    /// Reads what was appended since, and gives the session as it is now.
    pub fn refresh(&mut self) -> Result<&Session, Error> {
        let Followed {
            session,
            stored,
            offset,
            records,
            seal,
        } = self;
        *offset = stored.log.each_record_from(*offset, |record| {
            fold(session, records, seal.as_ref(), record.event);
        })?;
        Ok(&self.session)
    }

    /// The session as last read.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Its log.
    pub fn log(&self) -> &crate::log::EventLog {
        &self.stored.log
    }

    fn fold(&mut self, event: Event) {
        fold(
            &mut self.session,
            &mut self.records,
            self.seal.as_ref(),
            event,
        );
    }
}

/// Folds `event`, the `records`th record of the log, into `session`.
fn fold(
    session: &mut Session,
    records: &mut usize,
    seal: Option<&crate::seal::Seal>,
    event: Event,
) {
    session.apply(event, *records, seal);
    *records += 1;
}

/// A log that cannot be read as a session (say, nodwyn stopped while writing its first record).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Unreadable {
    /// The log file.
    pub log: PathBuf,
    /// Why it cannot be read.
    pub error: String,
}

/// Every session of `repository` that can be read, oldest first, and the logs that cannot: one
/// damaged log never hides the others.
pub fn sessions_of(
    store: &Store,
    repository: &Path,
) -> Result<(Vec<Session>, Vec<Unreadable>), Error> {
    let loaded: Vec<Result<Session, Unreadable>> = store
        .sessions_of(repository)?
        .par_iter()
        .map(|stored| {
            Session::load(stored).map_err(|e| Unreadable {
                log: stored.log.path().to_path_buf(),
                error: e.to_string(),
            })
        })
        .collect();
    let mut sessions = Vec::new();
    let mut unreadable = Vec::new();
    for result in loaded {
        match result {
            Ok(session) => sessions.push(session),
            Err(bad) => unreadable.push(bad),
        }
    }
    Ok((sessions, unreadable))
}
/// The file a call of `primitive` with `args` (as logged) writes, relative to `root`, when it is
/// one of the writing primitives.
fn written_path(
    primitive: &str,
    args: &serde_json::Value,
    root: &std::path::Path,
) -> Option<String> {
    if !matches!(primitive, "fs-write" | "fs-edit") {
        return None;
    }
    let path = args
        .get("path")
        .or_else(|| args.get(0))
        .and_then(serde_json::Value::as_str)?;
    let path = std::path::Path::new(path);
    let relative = path.strip_prefix(root).unwrap_or(path);
    let text = relative.to_str()?.trim_start_matches("./");
    Some(text.to_owned())
}
