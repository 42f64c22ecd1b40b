//! The call path: the one place every primitive call an agent makes passes the guard and the log.
//!
//! In order: find the primitive, describe the call (its effect), record `primitive.call`, ask the
//! guard (rules, standing answers, the judge, "Don't ask"), ask the person when the answer is
//! still a question (with no terminal, the call is refused with a sentence saying how to approve
//! it), record `guard.decision`, run, and record what the primitive reports (`git.push`,
//! `version.keep`) and `primitive.result`. The session's log stays locked for the whole call, so
//! no command that changes the session (`close`, `remove`, ...) runs meanwhile. Calls share the
//! lock and run side by side (a model may call several tools at once, and a command an agent runs
//! may itself call nodwyn), except a primitive that must run alone (`git-land`).
//!
//! The guard's budget of irreversible actions spans a turn: [`crate::turn::Turn`] carries what
//! its calls spent from one call to the next; [`call`] is a turn of one call.

use nodwyn_guard::{AskKind, DecidedBy, Decision, DontAsk, Effect, Guard, Judge, Scanner, Verdict};
use nodwyn_prim::{Fact, Registry};
use serde::Serialize;
use serde_json::Value;

use crate::Error;
use crate::clock::Timestamp;
use crate::event::{Event, Record};
use crate::host::{HostSettings, allow_file, context_of, standing_answers};
use crate::log::EventLog;
use crate::person::{Person, Question, Reply};
use crate::session::{Followed, Session};
use crate::store::Store;

/// A call that ran.
#[derive(Debug, Serialize)]
pub struct Called {
    /// The primitive.
    pub primitive: String,
    /// The guard's answer.
    pub decision: Verdict,
    /// What the primitive gave back.
    pub result: Value,
    /// A note about the standing answers, when a file was there but not trusted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Runs `name` with `args` in session `id` through the guard and the log, as a turn of its own;
/// `judges` give the judges each call is put to after the guard's rules.
#[allow(clippy::too_many_arguments)]
pub fn call(
    store: &Store,
    id: &str,
    registry: &Registry,
    name: &str,
    args: &Value,
    person: &mut dyn Person,
    settings: &HostSettings,
    judges: &dyn CallJudges,
) -> Result<Called, Error> {
    let path = CallPath {
        store,
        registry,
        settings,
        judges,
        learned: &Learned::default(),
    };
    call_spending(&path, id, Calling::Run, name, args, person, &mut 0)
}

/// Who judges a call after the guard's rules: given to the call path by its caller (a session's
/// runtime gives its strategy's `(on-call)` and the person's judge model, see
/// [`crate::services::Services`]), so the call path itself knows no Scheme and no model.
pub trait CallJudges: Sync {
    /// The judges of `call`, consulted in order; the first that answers decides.
    fn judges<'a>(&'a self, call: &CallToJudge<'a>) -> Vec<Box<dyn Judge + 'a>>;
}

/// No judge beyond the guard's rules.
impl CallJudges for () {
    fn judges<'a>(&'a self, _: &CallToJudge<'a>) -> Vec<Box<dyn Judge + 'a>> {
        Vec::new()
    }
}

/// A call as its judges are told it, beside its effect.
#[derive(Clone, Copy)]
pub struct CallToJudge<'a> {
    /// Where the sessions are.
    pub store: &'a Store,
    /// The primitives.
    pub registry: &'a Registry,
    /// The person's settings.
    pub settings: &'a HostSettings,
    /// The session, as it was when the call came.
    pub session: &'a Session,
    /// The primitive called.
    pub primitive: &'a str,
    /// Its arguments as the log keeps them.
    pub args: &'a Value,
    /// Whether the repository's approved strategy made the call.
    pub by_strategy: bool,
}

/// What every call needs besides the session: where sessions are, the primitives, the settings
/// taken from the person's environment, and who judges it after the rules.
#[derive(Clone, Copy)]
pub(crate) struct CallPath<'a> {
    pub store: &'a Store,
    pub registry: &'a Registry,
    pub settings: &'a HostSettings,
    pub judges: &'a dyn CallJudges,
    /// What the guard learned from the person's files: a turn's, kept from its first call on.
    pub learned: &'a Learned,
}

/// What a call's guard learns from the person's own files: their credential files (a walk of
/// their home folder, so that the guard knows them by inode and commands cannot read them) and
/// their standing answers (`allow.toml`). A turn learns them once, at its first call, so a
/// change to either applies from the next turn; a call of its own learns them each time.
#[derive(Debug, Default)]
pub(crate) struct Learned {
    credentials: std::sync::OnceLock<Vec<std::path::PathBuf>>,
    standing: std::sync::Mutex<Option<(nodwyn_guard::StandingAnswers, Option<String>)>>,
}

impl Learned {
    /// The person's credential files under `home`.
    fn credentials(&self, home: Option<&std::path::Path>) -> &[std::path::PathBuf] {
        self.credentials
            .get_or_init(|| home.map(nodwyn_guard::credential_files).unwrap_or_default())
    }

    /// The standing answers for sessions of `repository`, and the note about them.
    fn standing(
        &self,
        repository: &std::path::Path,
    ) -> Result<(nodwyn_guard::StandingAnswers, Option<String>), Error> {
        let mut learned = self
            .standing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(known) = learned.as_ref() {
            return Ok(known.clone());
        }
        let read = standing_answers(repository)?;
        *learned = Some(read.clone());
        Ok(read)
    }
}

/// [`call`], in a turn that has already spent `spent` irreversible actions (updated).
pub(crate) fn call_spending(
    path: &CallPath<'_>,
    id: &str,
    calling: Calling<'_>,
    name: &str,
    args: &Value,
    person: &mut dyn Person,
    spent: &mut u32,
) -> Result<Called, Error> {
    let mut session = Followed::load(&path.store.find(id)?)?;
    call_in_turn(path, &mut session, calling, name, args, person, spent)
}

/// Whether a call runs, or is only judged.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Calling<'a> {
    /// Judged, then run.
    Run,
    /// Judged, then run, called by the repository's approved strategy (recorded as its).
    Strategy,
    /// Judged only, for an action another program takes (an agent host's own tool): judged as
    /// unconfined, for this reason, since nodwyn's sandbox does not hold it.
    JudgeOnly(&'a str),
}

/// Runs `name` with `args` in `session` through the guard and the log, in a turn that has
/// already spent `spent` irreversible actions (updated). The session is read again (what was
/// appended since) once its lock is held.
pub(crate) fn call_in_turn(
    path: &CallPath<'_>,
    session: &mut Followed,
    calling: Calling<'_>,
    name: &str,
    args: &Value,
    person: &mut dyn Person,
    spent: &mut u32,
) -> Result<Called, Error> {
    let CallPath {
        store,
        registry,
        settings,
        judges,
        learned,
    } = *path;
    let primitive = registry.get(name)?;
    let log = &session.log().clone();
    let _lock = if primitive.exclusive() {
        log.lock()?
    } else {
        log.lock_shared()?
    };
    let session = session.refresh()?;
    let id = &session.id.to_string();
    if !session.open {
        return Err(Error::session_closed(&session.id));
    }
    crate::worktree::refuse_unfinished(session)?;
    if let Some(path) = session.unended_write() {
        remove_write_leftovers(&session.root, path);
    }
    let mut ctx = context_of(session, settings);
    record_as_it_happens(&mut ctx, log, "agent");
    if primitive.worktree_only() {
        ctx.require_worktree(name)?;
    }
    if let Calling::JudgeOnly(unconfined) = calling {
        ctx.sandbox = nodwyn_prim::sandbox::Sandbox::Unavailable(unconfined.to_owned());
    }
    let effect = primitive.effect(args, &ctx)?;
    let logged_args = abbreviated(args);
    append(
        log,
        Event::PrimitiveCall {
            primitive: name.to_owned(),
            args: logged_args.clone(),
            by: matches!(calling, Calling::Strategy).then(|| "strategy".to_owned()),
        },
    )?;
    let (standing, note) = learned.standing(&session.repository)?;
    let judges = judges.judges(&CallToJudge {
        store,
        registry,
        settings,
        session,
        primitive: name,
        args: &logged_args,
        by_strategy: matches!(calling, Calling::Strategy),
    });
    let mut guard = Guard::new(&session.root, &session.repository, standing)
        .with_session_answers(&session.always)
        .with_spent(*spent)
        .with_judge(Box::new(nodwyn_guard::Judges(judges)));
    // The person's credential files, found once: the guard knows them by inode, and a command
    // the call runs may not read them.
    let credentials = learned.credentials(settings.home.as_deref());
    guard.set_credential_files(nodwyn_guard::CredentialInodes::of(credentials));
    ctx.sandbox.hide(credentials);
    // Only a call that runs a command has one to confine: the walk of the session's folder and
    // the reading of git's configuration are not done for the others.
    if effect.command.is_some() {
        keep_credentials_from_commands(&mut ctx, session, settings);
    }
    guard.set_dont_ask(
        session
            .dont_ask
            .clone()
            .map(|who| DontAsk { turned_on_by: who }),
    );
    let mut verdict = guard.decide(&effect);
    let mut permit = guard.permit(&effect);
    let mut nobody_to_ask = false;
    if let Decision::Ask(kind) = verdict.decision {
        let question = Question {
            session: id.to_owned(),
            effect: effect.clone(),
            verdict: verdict.clone(),
            offer: guard
                .offer(&effect)
                .filter(|_| person.gives_standing_answers()),
        };
        let answer = match kind {
            AskKind::Security if !person.answers_security_confirms() => {
                nobody_to_ask = true;
                let sentence = format!(
                    "{} needs a security confirm, which the client of the agent asking for it cannot give; a person can run it from a terminal, where nodwyn asks them: `nodwyn call --session {id} {name} ARGS`",
                    verdict.why,
                );
                verdict = Verdict {
                    decision: Decision::Refuse,
                    by: DecidedBy::Rule,
                    why: sentence,
                };
                Some(Reply::Decline)
            }
            _ => person.ask(&question),
        };
        let through = person
            .answered_through()
            .map(|channel| format!(" (answered through {channel})"))
            .unwrap_or_default();
        verdict = match answer {
            Some(Reply::Decline) if nobody_to_ask => verdict,
            Some(Reply::Always) if question.offer.is_some() => {
                let offer = question.offer.as_ref().expect("checked above");
                crate::dont_ask::record_always(
                    store,
                    log,
                    id,
                    offer,
                    person.answered_through().as_deref(),
                )?;
                permit = guard.permit_approved(&effect);
                Verdict {
                    decision: Decision::Allow,
                    by: DecidedBy::Person,
                    why: format!(
                        "approved; the person allowed {}: {}{through}",
                        offer.allows, verdict.why
                    ),
                }
            }
            Some(Reply::Allow | Reply::Always) => {
                permit = guard.permit_approved(&effect);
                Verdict {
                    decision: Decision::Allow,
                    by: DecidedBy::Person,
                    why: format!("approved: {}{through}", verdict.why),
                }
            }
            Some(Reply::Decline) => Verdict {
                decision: Decision::Refuse,
                by: DecidedBy::Person,
                why: format!("declined: {}{through}", verdict.why),
            },
            None => {
                nobody_to_ask = true;
                Verdict {
                    decision: Decision::Refuse,
                    by: DecidedBy::Rule,
                    why: no_terminal_sentence(&verdict.why, kind, &effect, &session.repository, id),
                }
            }
        };
    }
    *spent = guard.spent();
    tracing::info!(
        action = %effect.action,
        answer = ?verdict.decision,
        by = ?verdict.by,
        why = %verdict.why,
        "guard decision"
    );
    append(
        log,
        Event::GuardDecision {
            action: effect.action.clone(),
            verdict: crate::event::verdict_record(&verdict),
        },
    )?;
    let permit = match permit {
        Some(permit) if verdict.decision == Decision::Allow => permit,
        _ => {
            let mut sentence = format!("{} was refused: {}", effect.action, verdict.why);
            if let Some(note) = &note {
                sentence.push_str(&format!(" (note: {note})"));
            }
            append(log, failed_event(name, &sentence))?;
            let code = match verdict.by {
                _ if nobody_to_ask => "needs_person",
                DecidedBy::Person => "declined",
                _ => "refused_by_guard",
            };
            return Err(Error::Declined { code, sentence });
        }
    };
    if let Calling::JudgeOnly(_) = calling {
        // Another program takes the action; the guard's answer is all there is.
        return Ok(Called {
            primitive: name.to_owned(),
            decision: verdict,
            result: Value::Null,
            note,
        });
    }
    // What the primitive reports was written as it happened (`record_as_it_happens`).
    let outcome = redacted(primitive.run(args, &ctx, permit));
    append(
        log,
        match &outcome {
            Ok(value) => ran_event(name, value),
            Err(error) => failed_event(name, &error.to_string()),
        },
    )?;
    Ok(Called {
        primitive: name.to_owned(),
        decision: verdict,
        result: outcome?,
        note,
    })
}

/// What an agent is shown of a value a call gave back: a string as itself, anything else as
/// pretty JSON.
pub fn result_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    }
}

/// What a primitive gives back, with every credential in it (a file's content, a command's
/// output, a diff, an error's text) replaced by a marker naming its rule and length: nothing a
/// primitive returns brings a secret to the agent, the model behind it, or the log.
fn redacted(outcome: Result<Value, nodwyn_prim::Error>) -> Result<Value, nodwyn_prim::Error> {
    fn walk(value: Value) -> Value {
        match value {
            Value::String(text) => Value::String(Scanner::global().redact(&text)),
            Value::Array(items) => Value::Array(items.into_iter().map(walk).collect()),
            Value::Object(map) => {
                Value::Object(map.into_iter().map(|(k, v)| (k, walk(v))).collect())
            }
            other => other,
        }
    }
    match outcome {
        Ok(value) => Ok(walk(value)),
        Err(error) => {
            let sentence = error.to_string();
            let cleaned = Scanner::global().redact(&sentence);
            if cleaned == sentence {
                Err(error)
            } else {
                Err(error.reworded(cleaned))
            }
        }
    }
}

/// The sentence of a question nobody could be asked: how that very call can be approved.
fn no_terminal_sentence(
    why: &str,
    kind: AskKind,
    effect: &Effect,
    repository: &std::path::Path,
    id: &str,
) -> String {
    let allow = allow_file(repository);
    match kind {
        AskKind::Ordinary => format!(
            "it needs a person's approval ({why}) and there is no terminal to ask on; approve such calls with a standing answer in {} (untracked), or turn Don't ask on with `nodwyn session dont-ask {id}`",
            allow.display()
        ),
        AskKind::Security if is_push(effect) => format!(
            "it needs a security confirm ({why}), which only a person gives, and there is no terminal to ask on; confirm it by running the call from a terminal, or let landings push there by listing the remote's URL in the `push` list of {} (untracked)",
            allow.display()
        ),
        AskKind::Security => format!(
            "it needs a security confirm ({why}), which only a person gives, and there is no terminal to ask on; confirm it by running the call from a terminal (neither a standing answer nor Don't ask can approve it)"
        ),
    }
}

/// Has every fact the primitive reports written to `log` at once (`by` says who called it), so a
/// landing's journal is on record before its next step runs.
/// Keeps the credentials a command could otherwise reach in the session's own folder from what
/// `ctx` runs (the person's own credential files are hidden by the caller, who found them): the
/// credential files there (a checkout's `.env`, what `.worktreeinclude` copied into a worktree)
/// masked, and the git configurations a command's git reads shown without the credentials some
/// hold (actions/checkout's extraheader, a token in an insteadOf URL).
pub(crate) fn keep_credentials_from_commands(
    ctx: &mut nodwyn_prim::Context,
    session: &Session,
    settings: &HostSettings,
) {
    ctx.sandbox
        .mask(&nodwyn_guard::credential_files_beneath(&session.root));
    ctx.sandbox
        .replace(crate::host::git_configs_without_credentials(
            session, settings,
        ));
}

pub(crate) fn record_as_it_happens(ctx: &mut nodwyn_prim::Context, log: &EventLog, by: &str) {
    let log = log.clone();
    let by = by.to_owned();
    ctx.record_with(Box::new(move |fact| {
        append(&log, fact_event(fact, &by)).map_err(|e| e.to_string())
    }));
}

/// Whether the action pushes to a remote.
fn is_push(effect: &Effect) -> bool {
    effect
        .egress
        .as_ref()
        .is_some_and(|e| e.kind == nodwyn_guard::EgressKind::Push)
}

pub(crate) fn append(log: &EventLog, event: Event) -> Result<(), Error> {
    log.append(&Record::new(Timestamp::now(), event))
}

/// Removes the temporary files a write of `path` (relative to `root`) that was killed left beside
/// it (see `nodwyn_prim::beneath`); nothing is made on the way.
fn remove_write_leftovers(root: &std::path::Path, path: &str) {
    let file = root.join(path);
    if !file.parent().is_some_and(std::path::Path::is_dir) {
        return;
    }
    if let Ok(beneath) = nodwyn_prim::beneath::Beneath::for_session(root, &file) {
        let removed = beneath.remove_leftovers();
        if removed > 0 {
            tracing::info!(path, removed, "removed what a killed write left");
        }
    }
}

/// The record of a call that was refused or failed, and why.
fn failed_event(name: &str, error: &str) -> Event {
    Event::PrimitiveResult {
        primitive: name.to_owned(),
        ok: false,
        error: Some(error.to_owned()),
        exit: None,
    }
}

/// The record of a call that ran and gave `value`: with the exit code of the command it ran,
/// when it ran one (`shell-exec`'s `status`).
fn ran_event(name: &str, value: &Value) -> Event {
    let runs_a_command = name == "shell-exec";
    Event::PrimitiveResult {
        primitive: name.to_owned(),
        ok: true,
        error: None,
        exit: runs_a_command
            .then(|| value.get("status").and_then(Value::as_i64))
            .flatten(),
    }
}

/// The record of what a primitive reported; `by` says who called it (`agent` or `person`).
pub(crate) fn fact_event(fact: Fact, by: &str) -> Event {
    match fact {
        Fact::Pushed(push) => Event::GitPush {
            push: crate::event::push_record(push),
        },
        Fact::Landed {
            base,
            strategy,
            landed,
            left_out,
        } => Event::GitLand {
            base,
            strategy,
            landed,
            left_out,
            by: by.to_owned(),
        },
        Fact::VersionKept { path, version } => Event::VersionKeep { path, version },
        Fact::LandBegin { head, strategy } => Event::LandBegin { head, strategy },
        Fact::LandBackup { reference, commit } => Event::LandBackup { reference, commit },
        Fact::LandRebase { onto, upstream } => Event::LandRebase { onto, upstream },
        Fact::LandMove { from, to } => Event::LandMove { from, to },
        Fact::LandPush {
            remote,
            reference,
            commit,
        } => Event::LandPush {
            remote,
            reference,
            commit,
        },
        Fact::LandEnd { outcome, why } => Event::LandEnd {
            outcome: crate::event::outcome_record(outcome),
            why,
        },
    }
}

/// `args` for the log: strings longer than 200 bytes (a file's content) are replaced by their
/// length, so the log does not copy what the agent wrote, and so is a string holding a credential
/// shape, so the log never keeps a secret.
pub(crate) fn abbreviated(args: &Value) -> Value {
    const LONGEST: usize = 200;
    match args {
        Value::String(s) if s.len() > LONGEST => Value::String(format!("<{} bytes>", s.len())),
        Value::String(s) if !Scanner::global().scan(s.as_bytes()).is_empty() => {
            Value::String(format!("<{} bytes holding a credential shape>", s.len()))
        }
        Value::Array(items) => Value::Array(items.iter().map(abbreviated).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), abbreviated(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}
