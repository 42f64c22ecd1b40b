//! `nodwyn run --headless`: what a run with nobody to ask adds to a run. It refuses to start
//! where commands cannot be confined, pushes the session's branch (`--push-branch`), writes its
//! export (`--export`), and exits 3 when anything needed a person.

use std::path::Path;

use nodwyn_config::Settings;
use nodwyn_protocol::settings::SandboxMode;

use crate::commands::{Invocation, Outcome};
use crate::environment;
use crate::output;

/// The exit code of a headless run that met something only a person could allow.
pub(crate) const NEEDED_A_PERSON: u8 = 3;

/// Refuses, before a session opens or a model is called, a headless run whose commands would
/// not be confined: the person's configuration turned the sandbox off (or to asking), or the
/// system cannot confine (no Landlock). A runner without a sandbox fails closed.
pub(crate) fn refuse_unconfined(settings: &Settings) -> anyhow::Result<()> {
    if settings.sandbox.mode != SandboxMode::On {
        return Err(crate::error::coded(
            "no_sandbox",
            "nodwyn run --headless runs an agent's commands only confined, and your configuration's [sandbox] mode is not \"on\"; nothing was run",
        ));
    }
    if let nodwyn_core::prim::sandbox::Availability::Unavailable(why) =
        nodwyn_core::prim::sandbox::availability()
    {
        return Err(crate::error::coded_owned(
            "no_sandbox".to_owned(),
            format!(
                "nodwyn run --headless runs an agent's commands only confined, and this machine cannot confine them ({why}); nothing was run"
            ),
        ));
    }
    Ok(())
}

/// How pushing the branch went: `Err` holds the code of what stopped it.
pub(crate) type PushResult = Result<(), &'static str>;

/// Pushes session `session`'s branch with a commit message made from `task`; says what happened.
pub(crate) fn push_branch(invocation: &Invocation, session: &str, task: &str) -> PushResult {
    let pushed = (|| -> anyhow::Result<_> {
        let store = invocation.store()?;
        let settings = environment::host_settings_interruptible()?;
        let message = commit_message(task);
        Ok(nodwyn_core::remote::push::push_branch(
            &store, session, &message, &settings,
        )?)
    })();
    let done = match pushed {
        Ok(done) => done,
        Err(error) => {
            output::note(format!("nodwyn: {}", output::printable(&error.to_string())));
            return Err(crate::error::kind(&error));
        }
    };
    match &done.push {
        Some(push) => output::note(format!(
            "nodwyn: pushed {} ({}) to {} ({})",
            done.branch,
            &done.head[..done.head.len().min(10)],
            push.remote,
            output::printable(&push.urls.join(", "))
        )),
        None => output::note(format!(
            "nodwyn: the session changed nothing, so {} was not pushed",
            done.branch
        )),
    }
    Ok(())
}

/// The commit message of a headless run's uncommitted work: the task's first line.
fn commit_message(task: &str) -> String {
    let line = task
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("work");
    format!("nodwyn: {}", nodwyn_text::shortened(line, 68))
}

/// Writes session `session`'s export to `path`; says where, or why not.
pub(crate) fn export(invocation: &Invocation, session: &str, path: &Path) -> bool {
    let written = invocation
        .store()
        .map_err(|e| e.to_string())
        .and_then(|store| {
            nodwyn_core::remote::export::export(&store, session, path).map_err(|e| e.to_string())
        });
    match written {
        Ok(_) => {
            output::note(format!(
                "nodwyn: wrote the session's export to {}",
                output::printable(&path.display().to_string())
            ));
            true
        }
        Err(sentence) => {
            output::note(format!("nodwyn: {}", output::printable(&sentence)));
            false
        }
    }
}

/// A headless run's exit: the run's own when it did not finish; else 3 when a question could
/// not be asked or the push needed a person's allowance, 1 when the push or the export failed
/// otherwise, 0 when all went.
pub(crate) fn outcome(
    run: Outcome,
    unasked: usize,
    pushed: Option<PushResult>,
    exported: Option<bool>,
) -> Outcome {
    if unasked > 0 {
        output::note(format!(
            "nodwyn: {unasked} question{} could not be asked (nobody is here), so each was declined; `nodwyn session events` shows them",
            if unasked == 1 { "" } else { "s" }
        ));
    }
    if !matches!(run, Outcome::Success) {
        return run;
    }
    let push_needed_a_person = matches!(pushed, Some(Err(code)) if code == "push_not_allowed");
    let failed =
        matches!(&pushed, Some(Err(_))) && !push_needed_a_person || exported == Some(false);
    if failed {
        Outcome::Exit(1)
    } else if unasked > 0 || push_needed_a_person {
        Outcome::Exit(NEEDED_A_PERSON)
    } else {
        Outcome::Success
    }
}
