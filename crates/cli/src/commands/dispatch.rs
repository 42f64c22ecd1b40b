//! `nodwyn dispatch github|kubernetes`: tasks fanned out to machines that are not the person's,
//! each a headless session that pushes only its own branch; `nodwyn session import` brings
//! them home.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::bail;
use clap::{Args, Subcommand};
use nodwyn_config::{ModelProvider, Settings};
use nodwyn_core::remote::dispatch::github::{
    KEY_SECRET, WORKFLOW_PATH, dispatch_arguments, workflow,
};
use nodwyn_core::remote::dispatch::kubernetes::{Pods, job};
use nodwyn_core::remote::dispatch::{Plan, RunnerModel, RunnerSandbox};
use serde_json::json;

use crate::commands::{Invocation, RepoArg};
use crate::output;

/// Run tasks as sessions on GitHub Actions runners or in a Kubernetes Job
///
/// Each task becomes `nodwyn run --headless --push-branch --export` on a machine of its own,
/// started from the base commit: nobody can be asked there, so every question is declined, and
/// each pushes only its session's branch. `nodwyn session import` brings the sessions home to be
/// reviewed and landed (`nodwyn land --queue`).
#[derive(Debug, Subcommand)]
pub(crate) enum DispatchCommand {
    /// Through a GitHub Actions workflow (.github/workflows/nodwyn-dispatch.yml), started with
    /// `gh workflow run`; the model key is the repository secret NODWYN_MODEL_KEY.
    Github(DispatchArgs),
    /// As a Kubernetes Indexed Job, created with `kubectl create -f -`; the pods' image, the
    /// model key's Secret, resources and deadline come from `[dispatch]` in your configuration.
    Kubernetes(DispatchArgs),
}

#[derive(Debug, Args)]
pub(crate) struct DispatchArgs {
    #[command(flatten)]
    repo: RepoArg,
    /// The branch the sessions start from, at its tip (default: the branch checked out); it
    /// must be on its remote as it is here, since the runners clone the remote.
    #[arg(long, value_name = "BRANCH")]
    base: Option<String>,
    /// The model profile the runners use (`[models.PROFILE]`; default `[model]`).
    #[arg(long, value_name = "PROFILE")]
    model: Option<String>,
    /// Print what would be started (the workflow, or the Job) and start nothing.
    #[arg(long)]
    dry_run: bool,
    /// The tasks, one session each.
    #[arg(value_name = "TASK", required = true)]
    tasks: Vec<String>,
}

pub(super) fn run(command: DispatchCommand, invocation: &Invocation) -> anyhow::Result<()> {
    match command {
        DispatchCommand::Github(args) => github(args, invocation),
        DispatchCommand::Kubernetes(args) => kubernetes(args, invocation),
    }
}

/// What both dispatchers start from: the repository, the settings, the plan, and where the
/// sessions' branches go.
struct Prepared {
    repository: std::path::PathBuf,
    settings: Settings,
    plan: Plan,
    remote: String,
    remote_url: String,
}

fn prepare(args: &DispatchArgs) -> anyhow::Result<Prepared> {
    let repository = args.repo.repository()?;
    let settings = crate::commands::run::settings_for(Some(&repository))?;
    let profile = crate::commands::run::chosen_model(&settings, args.model.as_deref())?;
    let base_branch = match &args.base {
        Some(branch) => branch.clone(),
        None => current_branch(&repository)?,
    };
    let (remote, base_commit) = base_on_remote(&repository, &base_branch)?;
    let remote_url = git(&repository, &["remote", "get-url", "--push", &remote])?;
    let (standing, _) = nodwyn_core::host::standing_answers(&repository)?;
    let plan = Plan {
        tasks: args.tasks.clone(),
        base_branch,
        base_commit,
        model: RunnerModel {
            provider: match profile.provider {
                ModelProvider::OpenAi => "openai",
                ModelProvider::Anthropic => "anthropic",
            }
            .to_owned(),
            base_url: profile.base_url.clone(),
            name: profile.name.clone(),
            api_key_env: profile.api_key_env.clone(),
        },
        sandbox: RunnerSandbox {
            network: settings.sandbox.network,
            max_processes: settings.sandbox.limits.processes,
            max_file_mb: settings.sandbox.limits.file_size.map(|b| b >> 20),
            max_memory_mb: settings.sandbox.limits.memory.map(|b| b >> 20),
        },
        commands: standing.commands().to_vec(),
        writes: standing.write_globs().to_vec(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        install_git: settings.dispatch.install_git.clone(),
        timeout_minutes: settings.dispatch.timeout_minutes,
    };
    plan.check()?;
    Ok(Prepared {
        repository,
        settings,
        plan,
        remote,
        remote_url,
    })
}

/// Says, for each task, what its job will push, and nothing else.
fn tell_pushes(prepared: &Prepared) {
    for (index, task) in prepared.plan.tasks.iter().enumerate() {
        output::note(format!(
            "task {index}: {} → pushes only its own branch nodwyn/task-{index}-… to {} ({})",
            output::printable(&summary(task)),
            prepared.remote,
            output::printable(&prepared.remote_url)
        ));
    }
}

fn github(args: DispatchArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let prepared = prepare(&args)?;
    let rendered = workflow(&prepared.plan);
    let gh_args = dispatch_arguments(&prepared.plan);
    let json = invocation.json;
    if args.dry_run {
        shown(
            json,
            rendered.trim_end(),
            json!({"workflow": rendered, "path": WORKFLOW_PATH, "gh": gh_args, "tasks": prepared.plan.tasks}),
        )?;
        tell_pushes(&prepared);
        output::note(format!(
            "dry run: nothing was started; without --dry-run this runs `gh {}`",
            gh_args.join(" ")
        ));
        return Ok(());
    }
    let path = prepared.repository.join(WORKFLOW_PATH);
    match std::fs::read_to_string(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
            std::fs::write(&path, &rendered)?;
            output::note(format!(
                "wrote {WORKFLOW_PATH}: commit it and push it to {} (GitHub runs only a workflow it has), set the model key with `gh secret set {KEY_SECRET}`, then run this again; nothing was started",
                prepared.plan.base_branch
            ));
            if json {
                return output::json(&json!({"written": WORKFLOW_PATH, "run": null}));
            }
            return Ok(());
        }
        Err(e) => return Err(e.into()),
        Ok(existing) if existing != rendered => {
            bail!(crate::error::coded(
                "workflow_differs",
                format!(
                    "{WORKFLOW_PATH} is not the workflow this nodwyn renders for your configuration (`nodwyn dispatch github --dry-run` prints it); replace it, commit and push it, then run this again; nothing was started"
                ),
            ));
        }
        Ok(_) => {}
    }
    let before = newest_run(&prepared.repository)?;
    let started = program(&prepared.repository, "gh", &gh_args, None)?;
    tell_pushes(&prepared);
    if !started.trim().is_empty() {
        output::note(started.trim());
    }
    // GitHub lists a dispatched run a moment after it accepted it: the newest run not listed
    // before is this one.
    let mut run = serde_json::Value::Null;
    for _ in 0..10 {
        let newest = newest_run(&prepared.repository)?;
        if !newest.is_null() && newest["databaseId"] != before["databaseId"] {
            run = newest;
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    let url = run["url"].as_str().unwrap_or_default();
    let document = json!({"run": run["databaseId"], "url": run["url"]});
    match run["databaseId"].as_u64() {
        Some(id) => shown(
            json,
            &format!(
                "{id}\n`nodwyn session import --github {id}` brings the sessions home once the run ends ({url})"
            ),
            document,
        ),
        None => shown(
            json,
            "started; `gh run list --workflow nodwyn-dispatch.yml` shows the run",
            document,
        ),
    }
}

/// `text` on stdout, or with `--json` the `document`.
fn shown(json: bool, text: &str, document: serde_json::Value) -> anyhow::Result<()> {
    if json {
        output::json(&document)
    } else {
        output::text(text)
    }
}

fn kubernetes(args: DispatchArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let prepared = prepare(&args)?;
    let chosen = &prepared.settings.dispatch;
    let Some(image) = chosen.image.clone() else {
        bail!(crate::error::coded(
            "no_image",
            "a Kubernetes dispatch needs the pods' image: set `image` under [dispatch] in your configuration (an image with nodwyn, git, and credentials that may push to the repository)",
        ));
    };
    let pods = Pods {
        job_name: format!(
            "nodwyn-dispatch-{}",
            nodwyn_core::clock::Timestamp::now()
                .rfc3339()
                .chars()
                .filter(char::is_ascii_digit)
                .take(14)
                .collect::<String>()
        ),
        image,
        secret: chosen.secret.clone(),
        secret_key: chosen.secret_key.clone(),
        cpu: chosen.cpu.clone(),
        memory: chosen.memory.clone(),
        repository_url: prepared.remote_url.clone(),
    };
    let rendered = job(&prepared.plan, &pods);
    if args.dry_run {
        shown(
            invocation.json,
            rendered.trim_end(),
            json!({"job": rendered, "tasks": prepared.plan.tasks}),
        )?;
        tell_pushes(&prepared);
        output::note(
            "dry run: nothing was started; without --dry-run this runs `kubectl create -f -`",
        );
        return Ok(());
    }
    let created = program(
        &prepared.repository,
        "kubectl",
        &["create", "-o", "name", "-f", "-"].map(str::to_owned),
        Some(&rendered),
    )?;
    tell_pushes(&prepared);
    shown(
        invocation.json,
        created.trim(),
        json!({"created": created.trim()}),
    )
}

/// The newest run of the dispatch workflow `gh run list` shows (`null` when none).
fn newest_run(repository: &Path) -> anyhow::Result<serde_json::Value> {
    let listed = program(
        repository,
        "gh",
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
        ]
        .map(str::to_owned),
        None,
    )?;
    let runs: serde_json::Value = serde_json::from_str(&listed).unwrap_or_default();
    Ok(runs[0].clone())
}

/// The branch checked out in `repository`.
pub(crate) fn current_branch(repository: &Path) -> anyhow::Result<String> {
    match git(repository, &["symbolic-ref", "--quiet", "--short", "HEAD"]) {
        // No git at all is said as such, not as a detached HEAD.
        Err(error) if error.to_string().contains("is on PATH") => Err(error),
        Err(_) => Err(crate::error::coded(
            "no_base",
            "the repository is on no branch (a detached HEAD): name the base with --base BRANCH",
        )),
        Ok(branch) => Ok(branch),
    }
}

/// The remote `branch` tracks and its tip, refused unless the remote's branch holds it (the
/// runners clone the remote, so a commit only here would not be there).
fn base_on_remote(repository: &Path, branch: &str) -> anyhow::Result<(String, String)> {
    if branch.starts_with('-') {
        bail!(crate::error::coded(
            "bad_base",
            format!("--base {branch} could be read as an option"),
        ));
    }
    let tip = git(
        repository,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{branch}^{{commit}}"),
        ],
    )
    .map_err(|_| crate::error::coded("bad_base", format!("{branch} is not a branch here")))?;
    let remote = git(repository, &["config", &format!("branch.{branch}.remote")]).map_err(|_| {
        crate::error::coded(
            "no_remote",
            format!(
                "{branch} tracks no remote branch, and the runners clone the remote: push it with `git push -u origin {branch}` first"
            ),
        )
    })?;
    let on_remote = git(
        repository,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/remotes/{remote}/{branch}^{{commit}}"),
        ],
    )
    .unwrap_or_default();
    let pushed = !on_remote.is_empty()
        && git(
            repository,
            &["merge-base", "--is-ancestor", &tip, &on_remote],
        )
        .is_ok();
    if !pushed {
        bail!(crate::error::coded(
            "base_not_pushed",
            format!(
                "{branch} has commits {remote} does not (as last fetched), and the runners clone {remote}: push {branch} first"
            ),
        ));
    }
    Ok((remote, tip))
}

/// `git ARGS` in `repository`: its output, trimmed, or the error.
fn git(repository: &Path, args: &[&str]) -> anyhow::Result<String> {
    program(
        repository,
        "git",
        &args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>(),
        None,
    )
    .map(|out| out.trim().to_owned())
}

/// Runs `name ARGS` in `dir` (with `input` on its standard input): what it printed, or a
/// sentence with what it said.
fn program(dir: &Path, name: &str, args: &[String], input: Option<&str>) -> anyhow::Result<String> {
    let mut child = Command::new(name)
        .args(args)
        .current_dir(dir)
        .env("GH_PROMPT_DISABLED", "1")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => crate::error::coded_owned(
                format!("no_{name}"),
                format!("no `{name}` program is on PATH, and this dispatch needs it"),
            ),
            _ => e.into(),
        })?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(text.as_bytes())?;
    }
    let output = child.wait_with_output()?;
    if !output.status.success() {
        bail!(crate::error::coded_owned(
            format!("{name}_failed"),
            format!(
                "`{name} {}` failed: {}",
                args.first().map_or("", String::as_str),
                output::printable(String::from_utf8_lossy(&output.stderr).trim())
            ),
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A task's first line, shortened.
fn summary(task: &str) -> String {
    let line = task.lines().next().unwrap_or_default().trim();
    let mut short: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        short.push('…');
    }
    format!("«{short}»")
}
