//! A session's Scheme: composing its system prompt, running Scheme in it, and its strategy.
//!
//! The layers load in this order, later definitions winning: nodwyn's `prompts.scm` (built in),
//! the person's `~/.config/nodwyn/prompts.scm`, the repository's `.nodwyn/prompts.scm` (from the
//! session's worktree, or the repository of the folder outside a session), and, in a session,
//! the repository's `.nodwyn/init.scm` once a person approved its content. Every primitive a
//! script calls goes through the call path ([`host::SessionHost`]); outside a session none runs.

mod host;
pub mod strategy;

use std::path::{Path, PathBuf};

use nodwyn_prim::Registry;
use nodwyn_scheme::{Agent, Evaluated, Host, Limits, NoSession, Scripts, Source, Surroundings};
use serde::Serialize;

use crate::call::{Person, StrategyQuestion, append};
use crate::event::Event;
use crate::host::HostSettings;
use crate::session::Session;
use crate::{Error, Store};

pub use host::{SessionHost, signatures};

/// Where Scheme runs: in a session, or for a folder with no session (no primitive runs).
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// A session, by either form of its id.
    Session(&'a str),
    /// A folder: its repository's `.nodwyn/prompts.scm` applies, if it is in one.
    Folder(&'a Path),
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

/// The system prompt for `target` (or sub-agent `agent`'s), with every override applied.
pub fn compose(
    store: &Store,
    target: Target<'_>,
    registry: &Registry,
    person: &mut dyn Person,
    settings: &HostSettings,
    options: &ScriptOptions,
    agent: Option<&str>,
) -> Result<Composed, Error> {
    with_scripts(
        store,
        target,
        registry,
        person,
        settings,
        options,
        |scripts, host, session| {
            let prompt = match agent {
                Some(name) => scripts.agent_system_prompt(name, host)?,
                None => scripts.system_prompt(host)?,
            };
            Ok(Composed {
                prompt,
                session: session.map(|s| s.id.to_string()),
                loaded: Vec::new(),
                agents: scripts.agents(host)?,
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
    store: &Store,
    target: Target<'_>,
    registry: &Registry,
    person: &mut dyn Person,
    settings: &HostSettings,
    options: &ScriptOptions,
    source: Source,
) -> Result<Ran, Error> {
    let name = source.name.clone();
    let (value, loaded, notes) = with_scripts(
        store,
        target,
        registry,
        person,
        settings,
        options,
        |scripts, host, session| {
            let outcome = scripts.eval(source, host);
            if let Some(session) = session {
                let stored = store.find(&session.id.to_string())?;
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
    store: &Store,
    id: &str,
    registry: &Registry,
    person: &mut dyn Person,
    settings: &HostSettings,
    options: &ScriptOptions,
) -> Result<(Option<Evaluated>, Vec<String>), Error> {
    let session = Session::load(&store.find(id)?)?;
    if strategy::read_init(&session.root).ok().flatten().is_none() {
        return Ok((None, Vec::new()));
    }
    with_scripts(
        store,
        Target::Session(id),
        registry,
        person,
        settings,
        options,
        |scripts, host, _| Ok(scripts.hook("on-session-start", &[], host)?),
    )
    .map(|(ran, _, notes)| (ran, notes))
}

type Prepared<T> = (T, Vec<LoadedFile>, Vec<String>);

/// Starts an engine for `target`, loads the layers, and runs `work` in it.
fn with_scripts<T>(
    store: &Store,
    target: Target<'_>,
    registry: &Registry,
    person: &mut dyn Person,
    settings: &HostSettings,
    options: &ScriptOptions,
    work: impl FnOnce(&mut Scripts, &mut dyn Host, Option<&Session>) -> Result<T, Error>,
) -> Result<Prepared<T>, Error> {
    let (session, root) = match target {
        Target::Session(id) => {
            let session = Session::load(&store.find(id)?)?;
            let root = session.root.clone();
            (Some(session), Some(root))
        }
        Target::Folder(dir) => (None, crate::repository_of(dir).ok()),
    };
    let surroundings = Surroundings {
        primitives: signatures(registry),
        worktree: session
            .as_ref()
            .and_then(Session::active_worktree)
            .map(host::worktree_facts),
    };
    let mut loaded = Vec::new();
    let mut notes = Vec::new();
    let id = session.as_ref().map(|s| s.id.to_string());
    let mut no_session = NoSession {
        reason: "there is no session here; give --session ID to run primitives".to_owned(),
    };
    // The person is asked about init.scm before the host takes them over for primitive calls.
    let init = match (&session, &root) {
        (Some(session), Some(root)) => approved_init(store, session, root, person, &mut notes)?,
        _ => None,
    };
    let mut session_host = id.as_deref().map(|id| SessionHost {
        store,
        id,
        registry,
        person,
        settings,
    });
    let host: &mut dyn Host = match session_host.as_mut() {
        Some(session_host) => session_host,
        None => &mut no_session,
    };
    let mut scripts = Scripts::start(surroundings, options.limits, host)?;
    let mut layer =
        |scripts: &mut Scripts, kind, path: &Path, host: &mut dyn Host| -> Result<(), Error> {
            match strategy::read_plain(path) {
                Ok(Some(text)) => {
                    scripts.load(Source::file(path, text), host)?;
                    loaded.push(LoadedFile {
                        kind,
                        path: path.to_owned(),
                    });
                    Ok(())
                }
                Ok(None) => Ok(()),
                Err(sentence) => Err(Error::Refused(sentence)),
            }
        };
    if let Some(user) = &options.user_prompts {
        layer(&mut scripts, "user", user, host)?;
    }
    if let Some(root) = &root {
        layer(
            &mut scripts,
            "repository",
            &root.join(".nodwyn").join("prompts.scm"),
            host,
        )?;
    }
    if let Some(init) = init {
        scripts.load(Source::file(&init.path, init.text), host)?;
        loaded.push(LoadedFile {
            kind: "strategy",
            path: init.path,
        });
    }
    let value = work(&mut scripts, host, session.as_ref())?;
    Ok((value, loaded, notes))
}

/// The repository's init.scm if a person approved its content (asking now when it is new);
/// otherwise `None` and a note saying why it did not run.
fn approved_init(
    store: &Store,
    session: &Session,
    root: &Path,
    person: &mut dyn Person,
    notes: &mut Vec<String>,
) -> Result<Option<strategy::InitFile>, Error> {
    let init = match strategy::read_init(root) {
        Ok(Some(init)) => init,
        Ok(None) => return Ok(None),
        Err(sentence) => {
            notes.push(sentence);
            return Ok(None);
        }
    };
    if strategy::is_approved(store, &session.repository, &init.sha256)? {
        return Ok(Some(init));
    }
    let id = session.id.to_string();
    let question = StrategyQuestion {
        session: &id,
        path: &init.path,
        sha256: &init.sha256,
        text: &init.text,
    };
    match person.approve_strategy(&question) {
        Some(true) => {
            strategy::approve(store, &session.repository, &init.sha256)?;
            let stored = store.find(&id)?;
            append(
                &stored.log,
                Event::StrategyApprove {
                    path: init.path.clone(),
                    sha256: init.sha256.clone(),
                },
            )?;
            Ok(Some(init))
        }
        Some(false) => {
            notes.push(format!(
                "{} was not run: you declined it (it is asked about again next time)",
                init.path.display()
            ));
            Ok(None)
        }
        None => {
            notes.push(format!(
                "{} was not run: a person has not approved this content (sha256 {}) and there is no terminal to ask on; run `nodwyn prompt --session {}` on a terminal to read and approve it",
                init.path.display(),
                &init.sha256[..12],
                session.id.short()
            ));
            Ok(None)
        }
    }
}
