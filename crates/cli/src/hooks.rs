//! Running a worktree's hooks from a command (`worktree new`, `resume`, `restore`, `remove`,
//! `land`): the person's configuration read for their own hooks and the deadline, the commands
//! confined as `nodwyn call` confines an agent's, each hook shown on stderr as it ends (stdout
//! stays the command's own), and a note when the repository's hooks were skipped.

use nodwyn_core::Store;
use nodwyn_core::worktree::hooks::{HookEvent, HookRan, HookSource, HooksRan, run_hooks};

use crate::environment;
use crate::output;
use crate::person::Terminal;

/// Runs `event`'s hooks in session `id`'s worktree, unless `skip` (`--no-hooks`).
pub(crate) fn run(
    store: &Store,
    id: &str,
    event: HookEvent,
    skip: bool,
) -> anyhow::Result<HooksRan> {
    if skip {
        return Ok(HooksRan::default());
    }
    let config =
        nodwyn_config::Settings::resolve(environment::user_config_file().as_deref(), None)?;
    let host = environment::host_settings_confined();
    let report = run_hooks(
        store,
        id,
        event,
        &config.hooks,
        &host,
        &mut Terminal,
        &mut |ran| show(event, ran),
    )?;
    if let Some(why) = &report.skipped {
        output::note(format!("note: {why}"));
    }
    Ok(report)
}

/// Runs the hooks that follow what a command did (`post_create`, `post_resume`, `post_land`),
/// unless `skip`; a hook that failed is the command's error, after `what_happened` (which says
/// what the command did, and stands: the worktree is kept, the work is landed).
pub(crate) fn run_after(
    store: &Store,
    id: &str,
    event: HookEvent,
    skip: bool,
    what_happened: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    match run(store, id, event, skip)?.failed() {
        Some(failed) => Err(failure(event, failed, &what_happened())),
        None => Ok(()),
    }
}

/// The error of a hook that failed: which one, whose, and how it ended; `what_happened` says
/// what the command did before it (`the worktree was made ...`).
pub(crate) fn failure(event: HookEvent, failed: &HookRan, what_happened: &str) -> anyhow::Error {
    crate::error::coded(
        "hook_failed",
        format!(
            "{what_happened}, but its {} hook `{}` ({}) {}",
            event.name(),
            failed.command.join(" "),
            whose(failed),
            ended(failed)
        ),
    )
}

fn ended(ran: &HookRan) -> String {
    match (ran.timed_out, ran.exit) {
        (true, _) => format!("was stopped at its deadline after {} ms", ran.duration_ms),
        (false, Some(0)) => format!("succeeded in {} ms", ran.duration_ms),
        (false, Some(code)) => format!("failed with exit code {code}"),
        (false, None) => "was ended by a signal".to_owned(),
    }
}

fn show(event: HookEvent, ran: &HookRan) {
    output::note(format!(
        "hook {} ({}): {}",
        event.name(),
        whose(ran),
        ran.command.join(" ")
    ));
    for text in [&ran.stdout, &ran.stderr] {
        for line in text.lines() {
            output::note(format!("  | {line}"));
        }
    }
    output::note(format!("  {}", ended(ran)));
}

fn whose(ran: &HookRan) -> &'static str {
    match ran.from {
        HookSource::Repository => "the repository's",
        HookSource::Person => "yours",
    }
}
