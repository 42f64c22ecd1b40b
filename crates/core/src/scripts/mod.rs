//! A session's Scheme: composing its system prompt, running Scheme in it, and its strategy.
//!
//! The layers load in this order, later definitions winning: nodwyn's `prompts.scm` (built in),
//! the person's `~/.config/nodwyn/prompts.scm`, the repository's `.nodwyn/prompts.scm` (from the
//! session's worktree, or the repository of the folder outside a session), and, in a session,
//! the repository's `.nodwyn/init.scm` once a person approved its content (together with the
//! repository's prompts.scm, whose definitions its procedures use). Every primitive a script
//! calls goes through the call path (`host::SessionHost`); outside a session none runs.
//! Composing a prompt and loading the repository's prompts.scm run only primitives that read
//! (`host::ReadOnlyHost`): repository content changes nothing before a person approved it.

mod host;
pub mod instructions;
mod judging;
pub mod strategy;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU32;

use nodwyn_prim::Registry;
use nodwyn_scheme::{
    Agent, Evaluated, Host, LayerId, Limits, NoSession, Scripts, Source, Surroundings,
};
use serde::Serialize;

use crate::call::{CallJudges, append};
use crate::event::Event;
use crate::host::HostSettings;
use crate::person::{Person, StrategyQuestion};
use crate::session::Session;
use crate::{Error, Store};

pub use host::signatures;
pub(crate) use host::{ReadOnlyHost, SessionHost};
pub use judging::judge_prompt;
pub(crate) use judging::{StrategyEngines, StrategyJudge};

/// Where Scheme runs: in a session, or for a folder with no session (no primitive runs).
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// A session, by either form of its id.
    Session(&'a str),
    /// A session already read from its log.
    Loaded(&'a Session),
    /// A folder: its repository's `.nodwyn/prompts.scm` applies, if it is in one.
    Folder(&'a Path),
    /// Nowhere: nodwyn's prompts and the person's own only, no repository's (for what
    /// repository content must not shape, such as the judge's prompt).
    PersonOnly,
}

/// What the person's environment decides about Scheme.
#[derive(Debug, Clone, Default)]
pub struct ScriptOptions {
    /// The person's own prompts file (`~/.config/nodwyn/prompts.scm`), if they have one.
    pub user_prompts: Option<PathBuf>,
    /// How long a script may run.
    pub limits: Limits,
}

/// A file that was loaded, in order.
#[derive(Debug, Clone, Serialize)]
pub struct LoadedFile {
    /// `user`, `repository` or `strategy`.
    pub kind: &'static str,
    /// Where it is.
    pub path: PathBuf,
}

/// The composed prompt and what went into it.
#[derive(Debug, Clone, Serialize)]
pub struct Composed {
    /// The system prompt (or a sub-agent's, when one was asked for).
    pub prompt: String,
    /// The session, if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The files loaded after nodwyn's own prompts.
    pub loaded: Vec<LoadedFile>,
    /// The sub-agents the strategy declared.
    pub agents: Vec<Agent>,
    /// The steps of the plan the strategy declared (`define-plan`), for each turn.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plan: Vec<String>,
    /// What a person should know: a strategy that did not run, and why.
    pub notes: Vec<String>,
}

/// What a script gave back.
#[derive(Debug, Clone)]
pub struct Ran {
    /// The value.
    pub value: Evaluated,
    /// The files loaded before it.
    pub loaded: Vec<LoadedFile>,
    /// What a person should know.
    pub notes: Vec<String>,
}

/// What running Scheme needs besides where it runs and who is asked.
#[derive(Clone, Copy)]
pub struct Scripting<'a> {
    /// Where the sessions are.
    pub store: &'a Store,
    /// The primitives, each bound in Scheme by its name.
    pub registry: &'a Registry,
    /// What primitives take from the person's environment.
    pub settings: &'a HostSettings,
    /// Who judges the calls its scripts make, after the guard's rules.
    pub judges: &'a dyn CallJudges,
    /// The person's prompts file and the time limit.
    pub options: &'a ScriptOptions,
    /// When Scheme runs inside an agent's turn (the `scheme` tool), the turn's spending of
    /// irreversible actions: the program's calls spend the same budget as the turn's own.
    pub spent: Option<&'a AtomicU32>,
    /// The only primitives Scheme may call (a sub-agent's `'tools`); `None`: every one.
    pub only: Option<&'a [String]>,
}

impl<'a> Scripting<'a> {
    /// The same surroundings, in which Scheme may call only the primitives `only` names.
    pub fn limited_to(self, only: Option<&'a [String]>) -> Self {
        Self { only, ..self }
    }
}

/// The system prompt for `target` (or sub-agent `agent`'s), with every override applied.
pub fn compose(
    scripting: &Scripting<'_>,
    target: Target<'_>,
    person: &mut dyn Person,
    agent: Option<&str>,
) -> Result<Composed, Error> {
    with_scripts(
        scripting,
        target,
        person,
        Reach::ReadOnly,
        |scripts, host, loaded| {
            let prompt = match agent {
                Some(name)
                    if loaded
                        .trusted_agents
                        .as_ref()
                        .is_some_and(|trusted| !trusted.iter().any(|a| a.name == name)) =>
                {
                    return Err(Error::declined("sub_agent_unapproved", format!(
                        "no sub-agent `{name}` may run here: the repository's .nodwyn/prompts.scm is not part of an approved strategy, so what it declares is not offered (declare it in your own prompts.scm, or in an init.scm you approve)"
                    )));
                }
                Some(name) => scripts.agent_system_prompt(name, host)?,
                None => scripts.system_prompt(host)?,
            };
            Ok(Composed {
                prompt,
                session: loaded.session.map(|s| s.id.to_string()),
                loaded: Vec::new(),
                agents: loaded.agents(scripts, host)?,
                plan: scripts.plan(host)?,
                notes: Vec::new(),
            })
        },
    )
    .map(|(mut composed, loaded, notes)| {
        composed.loaded = loaded;
        composed.notes = notes;
        composed
    })
}

/// Runs `source` in `target` after the layers, and records it in the session's log.
pub fn eval(
    scripting: &Scripting<'_>,
    target: Target<'_>,
    person: &mut dyn Person,
    source: Source,
) -> Result<Ran, Error> {
    let name = source.name.clone();
    let (value, loaded, notes) = with_scripts(
        scripting,
        target,
        person,
        Reach::Full,
        |scripts, host, loaded| {
            let outcome = scripts.eval(source, host);
            if let Some(session) = loaded.session {
                let stored = scripting.store.find(&session.id.to_string())?;
                append(
                    &stored.log,
                    Event::SchemeEval {
                        source: name,
                        ok: outcome.is_ok(),
                        error: outcome.as_ref().err().map(ToString::to_string),
                    },
                )?;
            }
            Ok(outcome?)
        },
    )?;
    Ok(Ran {
        value,
        loaded,
        notes,
    })
}

/// Calls the strategy's `(on-session-start)` in a session that just started, if the repository
/// has an approved `.nodwyn/init.scm` that defines it. `None` when nothing ran.
pub fn session_started(
    scripting: &Scripting<'_>,
    id: &str,
    person: &mut dyn Person,
) -> Result<(Option<Evaluated>, Vec<String>), Error> {
    let session = Session::load(&scripting.store.find(id)?)?;
    if !session
        .strategy_folder()
        .join(".nodwyn")
        .join("init.scm")
        .exists()
    {
        return Ok((None, Vec::new()));
    }
    with_scripts(
        scripting,
        Target::Loaded(&session),
        person,
        Reach::Strategy,
        |scripts, host, loaded| {
            // Only an approved strategy's own hook runs: unapproved, init.scm was not loaded, and
            // a prompts file must not start anything.
            let hook = "on-session-start";
            if !loaded
                .strategy
                .is_some_and(|layer| scripts.defines(layer, hook))
            {
                return Ok(None);
            }
            Ok(scripts.hook(hook, &[], host)?)
        },
    )
    .map(|(ran, _, notes)| (ran, notes))
}

/// Calls the strategy's `(on-turn task)` before a turn of `session` (as its log tells it now), if
/// the repository has an approved `.nodwyn/init.scm` that defines it: the message to send
/// instead of `message`, or `None` to send it unchanged (the hook gave `#f`, or there is none).
/// Its primitive calls are judged and logged as any call; `strategy.hook` records that it ran
/// and how it ended.
pub fn on_turn(
    scripting: &Scripting<'_>,
    session: &Session,
    person: &mut dyn Person,
    message: &str,
) -> Result<(Option<String>, Vec<String>), Error> {
    if !session
        .strategy_folder()
        .join(".nodwyn")
        .join("init.scm")
        .exists()
    {
        return Ok((None, Vec::new()));
    }
    let stored = scripting.store.find(&session.id.to_string())?;
    let hook = "on-turn";
    let (ran, _, notes) = with_scripts(
        scripting,
        Target::Loaded(session),
        person,
        Reach::Strategy,
        |scripts, host, loaded| {
            if !loaded
                .strategy
                .is_some_and(|layer| scripts.defines(layer, hook))
            {
                return Ok(None);
            }
            let outcome = scripts.hook(hook, &[message.into()], host);
            append(
                &stored.log,
                Event::StrategyHook {
                    hook: hook.to_owned(),
                    ok: outcome.is_ok(),
                    error: outcome.as_ref().err().map(ToString::to_string),
                },
            )?;
            Ok(Some(outcome?))
        },
    )?;
    let rewritten = match ran.flatten().map(|value| value.json) {
        None | Some(Some(serde_json::Value::Bool(false))) => None,
        Some(Some(serde_json::Value::String(text))) => Some(text),
        Some(_) => {
            return Err(Error::declined("bad_on_turn_answer", 
                "the strategy's (on-turn task) must give the message to send (a string) or #f to send it unchanged".to_owned(),
            ));
        }
    };
    Ok((rewritten, notes))
}

type Prepared<T> = (T, Vec<LoadedFile>, Vec<String>);

/// What `work` is told about what was loaded.
struct Loaded<'a> {
    /// The session, if there is one.
    session: Option<&'a Session>,
    /// The approved strategy's layer, if it was loaded.
    strategy: Option<LayerId>,
    /// The sub-agents declared before an unapproved repository prompts.scm loaded, when one did:
    /// the only ones that may be offered (see [`load_files`]).
    trusted_agents: Option<Vec<Agent>>,
}

impl Loaded<'_> {
    /// The sub-agents that may be offered: nodwyn's, the person's and an approved strategy's,
    /// never ones an unapproved repository prompts.scm declared or changed.
    fn agents(&self, scripts: &mut Scripts, host: &mut dyn Host) -> Result<Vec<Agent>, Error> {
        match &self.trusted_agents {
            Some(agents) => Ok(agents.clone()),
            None => Ok(scripts.agents(host)?),
        }
    }
}

/// Which host a step runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Every primitive, through the guard.
    Full,
    /// Every primitive, through the guard, each call recorded as the strategy's.
    Strategy,
    /// Only primitives that read.
    ReadOnly,
    /// No primitive: the session's log is locked for a call being judged.
    Nothing,
}

/// Starts an engine for `target`, loads the layers, and runs `work` in it with a host of
/// `reach`. The person's own prompts.scm and an approved strategy load with every primitive;
/// the repository's prompts.scm with only those that read.
fn with_scripts<T>(
    scripting: &Scripting<'_>,
    target: Target<'_>,
    person: &mut dyn Person,
    reach: Reach,
    work: impl FnOnce(&mut Scripts, &mut dyn Host, &Loaded<'_>) -> Result<T, Error>,
) -> Result<Prepared<T>, Error> {
    with_scripts_kept(scripting, target, person, reach, work)
        .map(|(value, loaded, notes, _)| (value, loaded, notes))
}

/// [`with_scripts`], giving back the engine too, for another call in the same surroundings.
fn with_scripts_kept<T>(
    scripting: &Scripting<'_>,
    target: Target<'_>,
    person: &mut dyn Person,
    reach: Reach,
    work: impl FnOnce(&mut Scripts, &mut dyn Host, &Loaded<'_>) -> Result<T, Error>,
) -> Result<(T, Vec<LoadedFile>, Vec<String>, Scripts), Error> {
    let Scripting {
        store,
        registry,
        settings,
        judges,
        options,
        spent,
        only,
    } = *scripting;
    let (session, root) = match target {
        Target::Session(id) => {
            let session = Session::load(&store.find(id)?)?;
            let root = session.root.clone();
            (Some(session), Some(root))
        }
        Target::Loaded(session) => (Some(session.clone()), Some(session.root.clone())),
        Target::Folder(dir) => (None, crate::repository_of(dir).ok()),
        Target::PersonOnly => (None, None),
    };
    let mut notes = Vec::new();
    let (instructions, unread) = match &root {
        Some(root) => instructions::read(root),
        None => (Vec::new(), Vec::new()),
    };
    notes.extend(unread);
    let surroundings = Surroundings {
        primitives: signatures(registry),
        worktree: session
            .as_ref()
            .and_then(Session::active_worktree)
            .map(host::worktree_facts),
        instructions,
    };
    let user = match &options.user_prompts {
        Some(path) => strategy::read_own(path)
            .map_err(|why| Error::declined("strategy_unreadable", why))?
            .map(|text| (path.clone(), text)),
        None => None,
    };
    // A session's Scheme files may be read from elsewhere than its root (see
    // `Session::strategy_folder`).
    let scheme_root = match &session {
        Some(session) => Some(session.strategy_folder().to_path_buf()),
        None => root.clone(),
    };
    let repository = match &scheme_root {
        Some(root) => strategy::read_prompts(root)
            .map_err(|why| Error::declined("strategy_unreadable", why))?,
        None => None,
    };
    // The person is asked about the strategy before the host takes them over for primitive calls.
    let strategy = match (&session, &scheme_root) {
        (Some(session), Some(root)) => approved_strategy(
            store,
            session,
            root,
            repository.as_ref(),
            person,
            &mut notes,
        )?,
        _ => None,
    };
    let id = session.as_ref().map(|s| s.id.to_string());
    let mut no_session = if reach == Reach::Nothing {
        judging::nothing_runs()
    } else {
        NoSession {
            reason: "there is no session here; give --session ID to run primitives".to_owned(),
        }
    };
    let runs_primitives = reach != Reach::Nothing;
    let mut session_host = id
        .as_deref()
        .filter(|_| runs_primitives)
        .map(|id| SessionHost {
            store,
            id,
            registry,
            person,
            settings,
            judges,
            spent,
            strategy: reach == Reach::Strategy,
            only,
        });
    let full: &mut dyn Host = match session_host.as_mut() {
        Some(session_host) => session_host,
        None => &mut no_session,
    };
    let mut scripts = Scripts::start(
        surroundings,
        options.limits,
        &mut ReadOnlyHost {
            inner: full,
            registry,
        },
    )?;
    let files = Files {
        user,
        repository,
        strategy,
    };
    let Layered {
        loaded,
        strategy,
        trusted_agents,
    } = load_files(&mut scripts, files, full, registry)?;
    let facts = Loaded {
        session: session.as_ref(),
        strategy,
        trusted_agents,
    };
    let value = match reach {
        Reach::Full | Reach::Strategy | Reach::Nothing => work(&mut scripts, full, &facts)?,
        Reach::ReadOnly => work(
            &mut scripts,
            &mut ReadOnlyHost {
                inner: full,
                registry,
            },
            &facts,
        )?,
    };
    Ok((value, loaded, notes, scripts))
}

/// The files that load after nodwyn's prompts, read before anything runs.
struct Files {
    /// The person's own prompts.scm.
    user: Option<(PathBuf, String)>,
    /// The repository's prompts.scm.
    repository: Option<strategy::SchemeFile>,
    /// The repository's strategy, approved.
    strategy: Option<strategy::Strategy>,
}

/// Loads `files` in order as layers: the person's with every primitive, the repository's
/// prompts.scm with only those that read, the approved strategy with every primitive. Gives what
/// was loaded, the strategy's layer, and, when the repository's prompts.scm loaded without an
/// approved strategy, the sub-agents declared before it: an unapproved file may shape prompts,
/// never declare what runs (a sub-agent with its tools, model profile and leave to nest).
fn load_files(
    scripts: &mut Scripts,
    files: Files,
    full: &mut dyn Host,
    registry: &Registry,
) -> Result<Layered, Error> {
    let mut loaded = Vec::new();
    let mut trusted_agents = None;
    if let Some((path, text)) = files.user {
        scripts.load(Source::file(&path, text), full)?;
        loaded.push(LoadedFile { kind: "user", path });
    }
    if let Some(file) = files.repository {
        let mut read_only = ReadOnlyHost {
            inner: full,
            registry,
        };
        if files.strategy.is_none() {
            trusted_agents = Some(scripts.agents(&mut read_only)?);
        }
        scripts.load(Source::file(&file.path, file.text), &mut read_only)?;
        loaded.push(LoadedFile {
            kind: "repository",
            path: file.path,
        });
    }
    let mut strategy_layer = None;
    if let Some(strategy) = files.strategy
        && let Some(init) = strategy.files.into_iter().next()
    {
        strategy_layer = Some(scripts.load(Source::file(&init.path, init.text), full)?);
        loaded.push(LoadedFile {
            kind: "strategy",
            path: init.path,
        });
    }
    Ok(Layered {
        loaded,
        strategy: strategy_layer,
        trusted_agents,
    })
}

/// What [`load_files`] loaded.
struct Layered {
    /// The files, in order.
    loaded: Vec<LoadedFile>,
    /// The approved strategy's layer, if it loaded.
    strategy: Option<LayerId>,
    /// The sub-agents declared before an unapproved repository prompts.scm, when one loaded.
    trusted_agents: Option<Vec<Agent>>,
}

/// The repository's strategy if a person approved its content (asking now when it is new);
/// otherwise `None` and a note saying why it did not run.
fn approved_strategy(
    store: &Store,
    session: &Session,
    root: &Path,
    prompts: Option<&strategy::SchemeFile>,
    person: &mut dyn Person,
    notes: &mut Vec<String>,
) -> Result<Option<strategy::Strategy>, Error> {
    let strategy = match strategy::read_strategy(root, prompts) {
        Ok(Some(strategy)) => strategy,
        Ok(None) => return Ok(None),
        Err(sentence) => {
            notes.push(sentence);
            return Ok(None);
        }
    };
    if strategy::is_approved(store, &session.repository, &strategy.sha256)? {
        if session.strategy_in_force.as_deref() != Some(strategy.sha256.as_str()) {
            append(
                &store.find(&session.id.to_string())?.log,
                Event::StrategyLoad {
                    sha256: strategy.sha256.clone(),
                },
            )?;
        }
        return Ok(Some(strategy));
    }
    let init = strategy.files[0].path.clone();
    let id = session.id.to_string();
    let question = StrategyQuestion {
        session: &id,
        files: &strategy.files,
        sha256: &strategy.sha256,
    };
    match person.approve_strategy(&question) {
        Some(true) => {
            strategy::approve(store, &session.repository, &strategy.sha256)?;
            let stored = store.find(&id)?;
            append(
                &stored.log,
                Event::StrategyApprove {
                    path: init,
                    sha256: strategy.sha256.clone(),
                },
            )?;
            Ok(Some(strategy))
        }
        Some(false) => {
            notes.push(format!(
                "{} was not run: you declined it (it is asked about again next time)",
                init.display()
            ));
            Ok(None)
        }
        None => {
            notes.push(format!(
                "{} was not run: a person has not approved this content (sha256 {}) and there is no terminal to ask on; run `nodwyn prompt --session {}` on a terminal to read and approve it",
                init.display(),
                &strategy.sha256[..12],
                session.id.short()
            ));
            Ok(None)
        }
    }
}
