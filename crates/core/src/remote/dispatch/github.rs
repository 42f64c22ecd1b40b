//! `nodwyn dispatch github`: a GitHub Actions workflow that runs each task of a dispatch on a
//! runner of its own.
//!
//! The workflow is one file, `.github/workflows/nodwyn-dispatch.yml`, started by
//! `workflow_dispatch` with the tasks (a JSON list: a matrix of one job per task), the base
//! branch and the base commit as inputs, so one committed file serves every dispatch. Each job
//! has a concurrency group of its own, no permission but `contents: write` (a push of its
//! session's branch), installs the person's version of nodwyn, checks out the base commit,
//! writes the runner's configuration, runs the task headless with the task in an environment
//! variable (never pasted into the script, where a task could run as shell), and uploads its
//! export as the artifact `nodwyn-export-<index>`.

use std::path::Path;

use super::{Plan, indented};
use crate::Error;
use crate::remote::import::ARTIFACT_PREFIX;

/// Where the workflow lives in the repository.
pub const WORKFLOW_PATH: &str = ".github/workflows/nodwyn-dispatch.yml";

/// The repository secret the model key is read from.
pub const KEY_SECRET: &str = "NODWYN_MODEL_KEY";

/// The workflow for `plan` (its model, allow list, version and deadline; the tasks and base
/// are the dispatch's inputs).
pub fn workflow(plan: &Plan) -> String {
    let version = &plan.version;
    let key = match &plan.model.api_key_env {
        Some(variable) => format!("\n          {variable}: ${{{{ secrets.{KEY_SECRET} }}}}"),
        None => String::new(),
    };
    let configure = format!(
        "mkdir -p ~/.config/nodwyn .nodwyn\ncat > ~/.config/nodwyn/config.toml <<'NODWYN_CONFIG'\n{}NODWYN_CONFIG\nprintf 'push = [\"https://github.com/%s\"]\\n' \"$REPOSITORY\" > .nodwyn/allow.toml\ncat >> .nodwyn/allow.toml <<'NODWYN_ALLOW'\n{}NODWYN_ALLOW\necho /.nodwyn/allow.toml >> .git/info/exclude\n{}",
        plan.config_toml(),
        plan.allow_toml(),
        Plan::identity_lines(
            "github-actions[bot]",
            "41898282+github-actions[bot]@users.noreply.github.com"
        )
    );
    let run = plan.run_line("$RUNNER_TEMP/nodwyn-export.json", "NODWYN_TASK_INDEX");
    let install = match &plan.install_git {
        Some(url) => format!(
            "cargo install --locked --git {} --tag v{version} nodwyn",
            super::shell_quoted(url)
        ),
        None => format!("cargo install --locked nodwyn --version ={version}"),
    };
    format!(
        r#"# Written by nodwyn {version} (`nodwyn dispatch github`). Each task of a dispatch runs
# `nodwyn run --headless` on a runner of its own, pushes only its session's branch, and uploads
# its export; `nodwyn session import --github RUN_ID` brings the work home to be reviewed and
# landed. The model key is the repository secret {KEY_SECRET}.
name: nodwyn dispatch

on:
  workflow_dispatch:
    inputs:
      tasks:
        description: The tasks, as a JSON list of strings
        required: true
        type: string
      base_branch:
        description: The branch the sessions start from
        required: true
        type: string
      base_commit:
        description: The commit of it they start from
        required: true
        type: string

permissions: {{}}

jobs:
  session:
    name: nodwyn session ${{{{ strategy.job-index }}}}
    runs-on: ubuntu-latest
    timeout-minutes: {timeout}
    permissions:
      contents: write
    strategy:
      fail-fast: false
      matrix:
        task: ${{{{ fromJSON(inputs.tasks) }}}}
    concurrency:
      group: nodwyn-${{{{ github.run_id }}}}-${{{{ strategy.job-index }}}}
      cancel-in-progress: false
    env:
      NODWYN_TASK_INDEX: ${{{{ strategy.job-index }}}}
    steps:
      # Before the checkout, and outside it: a toolchain file of the repository chooses nothing.
      - name: Install nodwyn {version}
        working-directory: ${{{{ runner.temp }}}}
        run: {install}
      - name: Check out the base
        uses: actions/checkout@v4
        with:
          ref: ${{{{ inputs.base_branch }}}}
          fetch-depth: 0
      - name: Start from the base commit
        env:
          BASE_BRANCH: ${{{{ inputs.base_branch }}}}
          BASE_COMMIT: ${{{{ inputs.base_commit }}}}
        run: |
          git checkout -q -B "$BASE_BRANCH" "$BASE_COMMIT"
          git branch -q --set-upstream-to="origin/$BASE_BRANCH"
      - name: Configure nodwyn for this runner
        env:
          REPOSITORY: ${{{{ github.repository }}}}
        run: |
{configure}
      - name: Run the task
        env:
          TASK: ${{{{ matrix.task }}}}{key}
        run: {run}
      - name: Upload the export
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: {ARTIFACT_PREFIX}${{{{ strategy.job-index }}}}
          path: ${{{{ runner.temp }}}}/nodwyn-export.json
          if-no-files-found: ignore
"#,
        timeout = plan.timeout_minutes,
        configure = indented(&configure, 10),
    )
}

/// A run a dispatch started, as `gh run list` shows it: `null` fields when GitHub did not list it
/// in time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StartedRun {
    /// The run's id (`nodwyn session import --github ID`).
    pub id: Option<u64>,
    /// Its page.
    pub url: Option<String>,
}

/// Starts a dispatch of `plan` with the workflow (`gh workflow run`), and finds the run it
/// started: GitHub lists a dispatched run a moment after it accepted it, so the newest run of
/// the workflow not listed before is this one (asked for up to ten seconds).
pub fn start(repository: &Path, plan: &Plan) -> Result<StartedRun, Error> {
    let before = newest_run(repository)?;
    let arguments = dispatch_arguments(plan);
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    gh(repository, &arguments)?;
    for _ in 0..10 {
        let newest = newest_run(repository)?;
        if newest.id.is_some() && newest.id != before.id {
            return Ok(newest);
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    Ok(StartedRun::default())
}

/// The newest run of the dispatch workflow `gh run list` shows (none when there is none).
fn newest_run(repository: &Path) -> Result<StartedRun, Error> {
    let listed = gh(
        repository,
        &[
            "run",
            "list",
            "--workflow",
            "nodwyn-dispatch.yml",
            "--event",
            "workflow_dispatch",
            "--limit",
            "1",
            "--json",
            "databaseId,url",
        ],
    )?;
    let runs: serde_json::Value = serde_json::from_slice(&listed).unwrap_or_default();
    Ok(StartedRun {
        id: runs[0]["databaseId"].as_u64(),
        url: runs[0]["url"].as_str().map(str::to_owned),
    })
}

/// `gh ARGS` in `repository`, its failure in one sentence.
fn gh(repository: &Path, arguments: &[&str]) -> Result<Vec<u8>, Error> {
    crate::gh::gh(repository, arguments).map_err(|failure| match failure {
        crate::gh::GhFailure::Missing => Error::declined(
            "no_gh",
            "a GitHub dispatch needs the GitHub CLI, and no `gh` program is on PATH; install it (https://cli.github.com) and run `gh auth login`",
        ),
        crate::gh::GhFailure::Failed(said) => Error::declined(
            "gh_failed",
            format!("`gh {}` failed: {said}", arguments.first().unwrap_or(&"")),
        ),
    })
}

/// The arguments of `gh` that start a dispatch of `plan` with the workflow.
pub fn dispatch_arguments(plan: &Plan) -> Vec<String> {
    let tasks = serde_json::to_string(&plan.tasks).unwrap_or_else(|_| "[]".to_owned());
    vec![
        "workflow".to_owned(),
        "run".to_owned(),
        "nodwyn-dispatch.yml".to_owned(),
        "--ref".to_owned(),
        plan.base_branch.clone(),
        "-f".to_owned(),
        format!("tasks={tasks}"),
        "-f".to_owned(),
        format!("base_branch={}", plan.base_branch),
        "-f".to_owned(),
        format!("base_commit={}", plan.base_commit),
    ]
}
