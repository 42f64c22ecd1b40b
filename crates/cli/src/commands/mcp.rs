//! `nodwyn mcp`: nodwyn as an MCP server on stdio, for the agents people already run; and
//! `nodwyn mcp install`, which configures those agents to use it.

use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use nodwyn_config::Settings;
use nodwyn_core::prim::Registry;
use nodwyn_mcp::install::{self, Agent, Scope};

use crate::commands::scheme_options::script_options;
use crate::commands::{Invocation, RepoArg};
use crate::environment;
use crate::output;

/// Serve the Model Context Protocol on stdin and stdout: an agent (Claude Code, Codex, Gemini
/// CLI, Cursor) gets its own worktree (`worktree_create`), works through nodwyn's primitives as
/// tools, every call judged by the guard and logged, and lands with `worktree_land`. The guard's
/// questions reach you through the agent's own interface when it supports elicitation. stdout
/// carries only the protocol; logs go to stderr.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(super) struct McpArgs {
    #[command(subcommand)]
    command: Option<McpCommand>,
    #[command(flatten)]
    repo: RepoArg,
}

#[derive(Debug, Subcommand)]
enum McpCommand {
    /// Configure an agent to use nodwyn's MCP server (merged into its configuration files).
    Install(InstallArgs),
}

/// Write an agent's configuration so it starts `nodwyn mcp` for this repository: merged into
/// the files it reads, other entries kept, files written with mode 0600. For Claude Code, its
/// built-in Bash, Edit, Write, MultiEdit and NotebookEdit are denied and nodwyn's tools allowed.
#[derive(Debug, Args)]
struct InstallArgs {
    /// The agent.
    agent: AgentName,
    /// The repository's files (`project`) or yours, for every repository (`user`).
    #[arg(long, value_enum, default_value = "project")]
    scope: ScopeName,
    /// Print what would be written, and write nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    repo: RepoArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum AgentName {
    Claude,
    Codex,
    Gemini,
    Cursor,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ScopeName {
    Project,
    User,
}

pub(super) fn run(args: McpArgs, invocation: &Invocation) -> anyhow::Result<()> {
    match args.command {
        Some(McpCommand::Install(install)) => install_agent(install, invocation),
        None => serve(&args.repo, invocation),
    }
}

fn serve(repo: &RepoArg, invocation: &Invocation) -> anyhow::Result<()> {
    let dir = repo.dir()?;
    let repository = nodwyn_core::repository_of(&dir).ok();
    let settings = Settings::resolve(
        environment::user_config_file().as_deref(),
        repository.as_deref(),
    )?;
    let engine = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the server's runtime")?;
    let store = invocation.store()?;
    // The person's judge model, if they configured one, answers before they are asked.
    let host = environment::host_settings_confined();
    let judge = nodwyn_server::engine::judge_model(
        &host,
        &settings,
        &store,
        &super::scheme_options::script_options(None)?,
        engine.handle(),
    )?;
    let options = nodwyn_mcp::Options {
        repo: dir,
        store,
        registry: Arc::new(Registry::builtin()),
        settings: host,
        services: nodwyn_core::services::Services::new(judge),
        location: settings.worktree_location,
        ports: settings.worktree_ports,
        scripts: script_options(None)?,
    };
    let served = engine.block_on(nodwyn_mcp::serve_stdio(options));
    // A call still running was interrupted when the client went away; it gets a moment to end
    // (its command's tree ends, a landing stops at a step it can name), then nodwyn goes.
    engine.shutdown_timeout(std::time::Duration::from_secs(10));
    served.map_err(anyhow::Error::msg)
}

fn install_agent(args: InstallArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let top = args.repo.repository()?;
    let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
        bail!("HOME is not set, so there is no user configuration to write");
    };
    let nodwyn = std::env::current_exe().context("could not find nodwyn's own program")?;
    let agent = match args.agent {
        AgentName::Claude => Agent::Claude,
        AgentName::Codex => Agent::Codex,
        AgentName::Gemini => Agent::Gemini,
        AgentName::Cursor => Agent::Cursor,
    };
    let scope = match args.scope {
        ScopeName::Project => Scope::Project,
        ScopeName::User => Scope::User,
    };
    let on_path = nodwyn_on_path(&nodwyn);
    let changes = install::changes(
        agent,
        scope,
        &top,
        std::path::Path::new(&home),
        &nodwyn,
        on_path,
    )
    .map_err(anyhow::Error::msg)?;
    if !args.dry_run {
        for change in &changes {
            install::write(change).map_err(anyhow::Error::msg)?;
        }
        if agent == Agent::Claude && scope == Scope::Project {
            // The person's own settings stay out of the repository's commits.
            nodwyn_core::exclude_from_git(
                &top,
                "/.claude/settings.local.json",
                "the person's own Claude Code settings, never committed",
            )?;
        }
    }
    if invocation.json {
        let written: Vec<serde_json::Value> = changes
            .iter()
            .map(|c| serde_json::json!({"path": c.path, "content": c.content, "written": !args.dry_run}))
            .collect();
        return output::json(&written);
    }
    let mut lines = Vec::new();
    for change in &changes {
        let verb = if args.dry_run { "would write" } else { "wrote" };
        lines.push(format!("{verb} {}:", change.path.display()));
        lines.extend(change.content.lines().map(|line| format!("  {line}")));
    }
    if agent == Agent::Claude {
        lines.push(String::new());
        lines.push(
            "Start Claude Code with nodwyn's servers only, its permission questions judged by nodwyn's guard:"
                .to_owned(),
        );
        let config = match scope {
            Scope::Project => " --mcp-config .mcp.json",
            Scope::User => "",
        };
        lines.push(format!(
            "  claude --strict-mcp-config{config} --permission-prompt-tool mcp__nodwyn__permission_prompt"
        ));
        lines.push(
            "(--permission-prompt-tool is used in print mode, claude -p; interactively Claude Code asks you itself. Its own Bash, edits and reads are denied either way, so its work goes through nodwyn.)"
                .to_owned(),
        );
        if scope == Scope::Project && !on_path {
            lines.push(format!(
                "note: nodwyn is not on your PATH, so .mcp.json names {} and works on this machine only; put nodwyn on the PATH (cargo install puts it in ~/.cargo/bin) and install again to name it portably",
                nodwyn.display()
            ));
        }
        if scope == Scope::User {
            lines.push(
                "note: user scope denies Claude Code's own shell, edits and reads in every project on this machine, not only this one; --scope project keeps it to this repository"
                    .to_owned(),
            );
        }
    }
    if agent == Agent::Codex && scope == Scope::Project {
        lines.push(
            "note: Codex reads a project's .codex/config.toml only in a project you have marked trusted"
                .to_owned(),
        );
    }
    output::text(lines.join("\n"))
}

/// Whether `nodwyn` found on the `PATH` is this very program.
fn nodwyn_on_path(nodwyn: &std::path::Path) -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    let this = nodwyn.canonicalize().ok();
    std::env::split_paths(&path)
        .map(|folder| folder.join("nodwyn"))
        .find(|candidate| candidate.is_file())
        .and_then(|found| found.canonicalize().ok())
        .is_some_and(|found| Some(found) == this)
}
