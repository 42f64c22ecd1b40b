//! What the commands that run Scheme share: where they run, the Scheme options, and the one way
//! their surroundings (`Scripting`) are put together.

use std::time::Duration;

use anyhow::Context;
use clap::Args;
use nodwyn_core::Store;
use nodwyn_core::prim::Registry;
use nodwyn_core::scheme::Limits;
use nodwyn_core::scripts::{ScriptOptions, Scripting, Target};
use nodwyn_core::services::Services;

use crate::commands::Invocation;
use crate::environment;

/// `--session` and `--time-limit`.
#[derive(Debug, Args)]
pub(crate) struct SchemeArgs {
    /// The session, by its full id, its 8 hex digits (or a unique start of them) or its name
    /// (default: the session whose worktree holds the current folder; elsewhere no session, the
    /// current folder's repository, and no primitive runs).
    #[arg(long)]
    session: Option<String>,
    /// Seconds of Scheme time a script may take before it is stopped; time spent inside
    /// primitives (a test run) does not count.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    time_limit: f64,
}

impl SchemeArgs {
    /// The options from the environment and the flags.
    pub(crate) fn options(&self) -> anyhow::Result<ScriptOptions> {
        script_options(Some(self.time_limit))
    }

    /// Runs `work` with what Scheme needs and the target: the session, or the current folder.
    pub(crate) fn run<T>(
        &self,
        invocation: &Invocation,
        work: impl FnOnce(&Scripting<'_>, Target<'_>) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let store = invocation.store()?;
        let options = self.options()?;
        let here = std::env::current_dir().context("could not read the current folder")?;
        // Inside a session's worktree, that session is the one meant.
        let session = match &self.session {
            Some(id) => Some(id.clone()),
            None => nodwyn_core::session_at(&store, &here)?.map(|id| id.to_string()),
        };
        with_scripting(&store, &options, |scripting| match &session {
            Some(id) => work(scripting, Target::Session(id)),
            None => work(scripting, Target::Folder(&here)),
        })
    }
}

/// Scheme's options: the person's prompts file, and `time_limit` seconds of Scheme time a
/// script may take (10 when not given).
pub(crate) fn script_options(time_limit: Option<f64>) -> anyhow::Result<ScriptOptions> {
    let time_limit = time_limit.unwrap_or(10.0);
    if !(time_limit.is_finite() && time_limit > 0.0 && time_limit <= 86_400.0) {
        anyhow::bail!(
            "--time-limit {time_limit}: give a number of seconds above 0 and at most 86400"
        );
    }
    Ok(ScriptOptions {
        user_prompts: environment::user_prompts_file(),
        limits: Limits {
            time: Duration::from_secs_f64(time_limit),
            ..Limits::default()
        },
    })
}

/// Runs `work` with Scheme's surroundings: `store`, `options`, the built-in primitives, what
/// they take from the person's environment, and the repository's strategy judging their calls.
pub(crate) fn with_scripting<T>(
    store: &Store,
    options: &ScriptOptions,
    work: impl FnOnce(&Scripting<'_>) -> T,
) -> T {
    work(&Scripting {
        store,
        registry: &Registry::builtin(),
        settings: &environment::host_settings_confined(),
        judges: &Services::default(),
        options,
        spent: None,
        only: None,
    })
}
