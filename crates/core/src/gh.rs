//! The GitHub CLI (`gh`), run for a person's command: a pull request's head (`worktree new
//! --pr`), whether one was merged (`prune --merged`), a run's artifacts (`session import
//! --github`). It uses the person's own `gh` login; it never prompts.

use std::path::Path;

/// Why a `gh` call gave nothing.
pub(crate) enum GhFailure {
    /// No `gh` program is on PATH.
    Missing,
    /// It failed: what it said.
    Failed(String),
}

/// How long a `gh` call may take (it asks GitHub over the network).
const GH_DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

/// Runs `gh ARGS` in `dir` (never prompting), and gives what it printed.
pub(crate) fn gh(dir: &Path, args: &[&str]) -> Result<Vec<u8>, GhFailure> {
    let spec = nodwyn_proc::Spec {
        deadline: Some(GH_DEADLINE),
        group: nodwyn_proc::Group::Shared,
        ..nodwyn_proc::Spec::new(
            std::iter::once("gh")
                .chain(args.iter().copied())
                .map(Into::into)
                .collect(),
            dir.to_path_buf(),
            nodwyn_proc::Environment::Inherited {
                removed: Vec::new(),
                set: vec![
                    ("GH_PROMPT_DISABLED".into(), "1".into()),
                    ("GIT_TERMINAL_PROMPT".into(), "0".into()),
                ],
            },
        )
    };
    let ran = nodwyn_proc::run(&spec).map_err(|e| match e {
        nodwyn_proc::Error::Spawn { source, .. }
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            GhFailure::Missing
        }
        other => GhFailure::Failed(other.to_string()),
    })?;
    tracing::debug!(?args, status = ?ran.status, "gh");
    if ran.timed_out {
        return Err(GhFailure::Failed(format!(
            "gh did not answer within {} s",
            GH_DEADLINE.as_secs()
        )));
    }
    if ran.exit.success() {
        Ok(ran.stdout)
    } else {
        Err(GhFailure::Failed(
            String::from_utf8_lossy(&ran.stderr).trim().to_owned(),
        ))
    }
}
