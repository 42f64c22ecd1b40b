//! A worktree's hooks: commands that set a worktree up (`post_create`: install its dependencies),
//! follow it when it is opened again (`post_resume`), tear it down (`pre_remove`) and follow a
//! landing (`post_land`). A repository declares them in `.nodwyn/hooks.toml`, the person in their
//! own configuration (`[hooks]`).
//!
//! A repository's hooks are repository content, so they run only once the person approved that
//! very content, as a strategy is approved: asked on a terminal, the approval kept by the file's
//! hash, asked again when it changes; with nobody to ask they are skipped, saying how to approve
//! them. Every hook, the person's too, runs exactly as an agent's `shell-exec` does: confined to
//! the worktree (credentials, other worktrees and the main checkout out of reach), supervised so
//! nothing outlives it, with `NODWYN_PORT`, within the person's deadline. Each run is recorded
//! (`hook.run`); they run in order and stop at the first that fails.

use std::path::Path;

use nodwyn_prim::builtin::run_confined;
pub use nodwyn_protocol::settings::{HookChoice, HookCommands, HookEvent};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::Error;
use crate::approvals::{Approving, approve, is_approved};
use crate::clock::Timestamp;
use crate::event::{Event, Record};
use crate::host::{HostSettings, context_of};
use crate::person::{HooksQuestion, Person};
use crate::scripts::strategy::{SchemeFile, read_plain};
use crate::session::Session;
use crate::store::Store;

/// Where a repository declares its hooks, relative to the worktree.
pub const HOOKS_FILE: &str = ".nodwyn/hooks.toml";

/// Whose a hook is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HookSource {
    /// The repository's `.nodwyn/hooks.toml`, approved.
    Repository,
    /// The person's own configuration.
    Person,
}

impl HookSource {
    fn name(self) -> &'static str {
        match self {
            HookSource::Repository => "repository",
            HookSource::Person => "person",
        }
    }
}

/// One hook command that ran.
#[derive(Debug, Clone, Serialize)]
pub struct HookRan {
    /// Whose it is.
    pub from: HookSource,
    /// Its argv.
    pub command: Vec<String>,
    /// Its exit code (`None`: ended by a signal or its deadline).
    pub exit: Option<i32>,
    /// Whether its deadline ended it.
    pub timed_out: bool,
    /// How long it ran.
    pub duration_ms: u64,
    /// What it printed (capped as a command's output is).
    pub stdout: String,
    /// What it printed on its error output.
    pub stderr: String,
}

impl HookRan {
    /// Whether it succeeded.
    pub fn ok(&self) -> bool {
        self.exit == Some(0) && !self.timed_out
    }
}

/// What running an event's hooks did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HooksRan {
    /// The hooks that ran, in order; the last is the one that failed, when one did.
    pub ran: Vec<HookRan>,
    /// Why the repository's hooks did not run, when it has some for this event and they did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

impl HooksRan {
    /// The hook that failed, if one did (the hooks stop there).
    pub fn failed(&self) -> Option<&HookRan> {
        self.ran.last().filter(|ran| !ran.ok())
    }
}

/// A repository's hooks file, read and parsed.
#[derive(Debug, Clone)]
pub struct HooksFile {
    /// The file as read.
    pub file: SchemeFile,
    /// Its SHA-256, in hex: what an approval is for.
    pub sha256: String,
    /// Its commands.
    pub commands: HookCommands,
}

/// The hooks file of the checkout or worktree at `root`, if it has one: a plain file, never
/// through a link, parsed; a sentence naming it when it cannot be used.
pub fn read_hooks_file(root: &Path) -> Result<Option<HooksFile>, Error> {
    let path = root.join(HOOKS_FILE);
    let unusable = |why: String| Error::declined("bad_hooks_file", why);
    let Some(text) = read_plain(&path).map_err(unusable)? else {
        return Ok(None);
    };
    let commands: HookCommands = toml::from_str(&text).map_err(|e| {
        // One line: where, and what (toml's own rendering draws the line over several).
        let line = e.span().map_or(1, |span| {
            text[..span.start.min(text.len())].matches('\n').count() + 1
        });
        unusable(format!(
            "{}:{line} is not a hooks file nodwyn reads: {}",
            path.display(),
            e.message()
        ))
    })?;
    for argv in [
        &commands.post_create,
        &commands.post_resume,
        &commands.pre_remove,
        &commands.post_land,
    ]
    .into_iter()
    .flatten()
    {
        if argv.first().is_none_or(|program| program.is_empty()) {
            return Err(unusable(format!(
                "{} has an empty command: each is a list of a program and its arguments, such as [\"npm\", \"ci\"]",
                path.display()
            )));
        }
    }
    let sha256 = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(Some(HooksFile {
        file: SchemeFile {
            path,
            name: HOOKS_FILE,
            text,
        },
        sha256,
        commands,
    }))
}

/// Whether a person approved the content of `hooks` for `repository`.
pub fn hooks_approved(store: &Store, repository: &Path, hooks: &HooksFile) -> Result<bool, Error> {
    is_approved(store, repository, Approving::Hooks, &hooks.sha256)
}

/// Asks `person` whether the repository's `hooks` may run, unless already approved; remembers a
/// yes. `None` when nobody could be asked.
pub fn approve_hooks(
    store: &Store,
    repository: &Path,
    hooks: &HooksFile,
    session: Option<&str>,
    person: &mut dyn Person,
) -> Result<Option<bool>, Error> {
    if hooks_approved(store, repository, hooks)? {
        return Ok(Some(true));
    }
    let answer = person.approve_hooks(&HooksQuestion {
        session,
        file: &hooks.file,
        sha256: &hooks.sha256,
    });
    if answer == Some(true) {
        approve(store, repository, Approving::Hooks, &hooks.sha256)?;
    }
    Ok(answer)
}

/// Runs `event`'s hooks in session `id`'s worktree: the repository's (once approved), then the
/// person's own (`choice`), each at most its deadline, confined as `host` confines an agent's
/// commands. `shown` is told of each as it ends.
pub fn run_hooks(
    store: &Store,
    id: &str,
    event: HookEvent,
    choice: &HookChoice,
    host: &HostSettings,
    person: &mut dyn Person,
    shown: &mut dyn FnMut(&HookRan),
) -> Result<HooksRan, Error> {
    let stored = store.find(id)?;
    let session = Session::load(&stored)?;
    let Some(facts) = session
        .active_worktree()
        .filter(|facts| facts.path.is_dir())
    else {
        return Ok(HooksRan::default());
    };
    let short = session.id.short().to_owned();
    let mut report = HooksRan::default();
    let mut commands: Vec<(HookSource, Vec<String>)> = Vec::new();
    match read_hooks_file(&facts.path) {
        Ok(Some(hooks)) if !hooks.commands.of(event).is_empty() => {
            match approve_hooks(store, &facts.repository, &hooks, Some(&short), person)? {
                Some(true) if host.sandbox.unconfined_because().is_some() => {
                    report.skipped = Some(format!(
                        "the repository's {} hooks were not run: commands cannot be confined here ({}), and a repository's hooks run only confined",
                        event.name(),
                        host.sandbox.unconfined_because().unwrap_or_default()
                    ));
                }
                Some(true) => commands.extend(
                    hooks
                        .commands
                        .of(event)
                        .iter()
                        .map(|argv| (HookSource::Repository, argv.clone())),
                ),
                Some(false) => {
                    report.skipped = Some(format!(
                        "the repository's {} hooks were not run: you did not approve {}",
                        event.name(),
                        HOOKS_FILE
                    ));
                }
                None => {
                    report.skipped = Some(format!(
                        "the repository's {} hooks were not run: nobody could be asked to approve {} (no terminal); run `nodwyn hooks approve` on a terminal in the repository to read and approve it",
                        event.name(),
                        HOOKS_FILE
                    ));
                }
            }
        }
        Ok(_) => {}
        Err(error) => {
            report.skipped = Some(format!("the repository's hooks were not run: {error}"));
        }
    }
    commands.extend(
        choice
            .commands
            .of(event)
            .iter()
            .filter(|argv| argv.first().is_some_and(|p| !p.is_empty()))
            .map(|argv| (HookSource::Person, argv.clone())),
    );
    if commands.is_empty() {
        return Ok(report);
    }
    // Confined exactly as an agent's command: the person's credential files hidden, those in the
    // worktree masked, git's configuration shown without its credentials.
    let mut ctx = context_of(&session, host);
    let credentials = host
        .home
        .as_deref()
        .map(nodwyn_guard::credential_files)
        .unwrap_or_default();
    ctx.sandbox.hide(&credentials);
    crate::call::keep_credentials_from_commands(&mut ctx, &session, host);
    for (from, argv) in commands {
        let ran = run_confined(
            &ctx,
            argv.iter().map(Into::into).collect(),
            choice.timeout,
            &format!("the {} hook", event.name()),
        )?;
        let hook = HookRan {
            from,
            command: argv,
            exit: ran.status,
            timed_out: ran.timed_out,
            duration_ms: ran.elapsed_ms,
            stdout: ran.stdout,
            stderr: ran.stderr,
        };
        stored.log.append(&Record::new(
            Timestamp::now(),
            Event::HookRun {
                hook: event.name().to_owned(),
                from: from.name().to_owned(),
                command: hook.command.clone(),
                exit: hook.exit,
                timed_out: hook.timed_out,
                duration_ms: hook.duration_ms,
            },
        ))?;
        shown(&hook);
        let failed = !hook.ok();
        report.ran.push(hook);
        if failed {
            break;
        }
    }
    Ok(report)
}
