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
    KEY_SECRET, WORKFLOW_PATH, dispatch_arguments, start, workflow,
};
use nodwyn_core::remote::dispatch::kubernetes::{Pods, job};
use nodwyn_core::remote::dispatch::{
    Base, Plan, RunnerModel, RunnerSandbox, base_on_remote, checked_out_branch,
};
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
    base: Base,
}

fn prepare(args: &DispatchArgs) -> anyhow::Result<Prepared> {
    let repository = args.repo.repository()?;
    let settings = crate::commands::run::settings_for(Some(&repository))?;
    let profile = crate::commands::run::chosen_model(&settings, args.model.as_deref())?;
    let branch = match &args.base {
        Some(branch) => branch.clone(),
        None => checked_out_branch(&repository)?,
    };
    let base = base_on_remote(&repository, &branch)?;
    let (standing, _) = nodwyn_core::host::standing_answers(&repository)?;
    let plan = Plan {
        tasks: args.tasks.clone(),
        base_branch: base.branch.clone(),
        base_commit: base.commit.clone(),
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
        base,
    })
}

/// Says, for each task, what its job will push, and nothing else.
fn tell_pushes(prepared: &Prepared) {
    for (index, task) in prepared.plan.tasks.iter().enumerate() {
        output::note(format!(
            "task {index}: {} → pushes only its own branch nodwyn/task-{index}-… to {} ({})",
            output::printable(&summary(task)),
            prepared.base.remote,
            output::printable(&prepared.base.remote_url)
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
    let run = start(&prepared.repository, &prepared.plan)?;
    tell_pushes(&prepared);
    let document = json!({"run": run.id, "url": run.url});
    match run.id {
        Some(id) => shown(
            json,
            &format!(
                "{id}\n`nodwyn session import --github {id}` brings the sessions home once the run ends ({})",
                run.url.as_deref().unwrap_or_default()
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
        repository_url: prepared.base.remote_url.clone(),
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
    let created = kubectl_create(&prepared.repository, &rendered)?;
    tell_pushes(&prepared);
    shown(
        invocation.json,
        created.trim(),
        json!({"created": created.trim()}),
    )
}

/// `kubectl create -o name -f -` in `dir` with `job` on its standard input: the name of what it
/// created, or a sentence with what it said.
fn kubectl_create(dir: &Path, job: &str) -> anyhow::Result<String> {
    let mut child = Command::new("kubectl")
        .args(["create", "-o", "name", "-f", "-"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => crate::error::coded(
                "no_kubectl",
                "no `kubectl` program is on PATH, and this dispatch needs it",
            ),
            _ => e.into(),
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(job.as_bytes())?;
    }
    let output = child.wait_with_output()?;
    if !output.status.success() {
        bail!(crate::error::coded(
            "kubectl_failed",
            format!(
                "`kubectl create` failed: {}",
                output::printable(String::from_utf8_lossy(&output.stderr).trim())
            ),
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// A task's first line, shortened.
fn summary(task: &str) -> String {
    format!(
        "«{}»",
        nodwyn_text::shortened(task.lines().next().unwrap_or_default(), 60)
    )
}
