//! `nodwyn acp`: nodwyn as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains
//! IDEs, Neovim, Emacs). It is a client of an engine in this process, as `nodwyn run` is. And
//! `nodwyn acp install zed|jetbrains`, which adds nodwyn to the editor's agents, merged into its
//! file with everything else kept (the JSON merge `nodwyn mcp install` uses).

use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use nodwyn_mcp::install::{self, Change};
use nodwyn_server::engine::Overrides;
use serde_json::json;

use crate::commands::Invocation;
use crate::environment::user_config_file;
use crate::local_engine::InProcess;
use crate::output;

/// Serve the Agent Client Protocol on stdin and stdout, as an editor's agent: each editor
/// thread is a nodwyn session in a new worktree of the repository holding the thread's folder;
/// every tool call is judged by the guard, and its questions are the editor's permission
/// prompts. stdout carries only the protocol; logs go to stderr.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(super) struct AcpArgs {
    #[command(subcommand)]
    command: Option<AcpCommand>,
    /// How long a permission prompt waits for you before it is declined, in seconds (some
    /// editors never show one: the turn must not hang); default `[acp]
    /// permission_timeout_seconds` of your configuration, else 300.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    permission_timeout: Option<u64>,
    /// Open every thread's session in this repository, whatever folder the editor gives.
    #[arg(long, value_name = "DIR")]
    repo: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
enum AcpCommand {
    /// Add nodwyn to an editor's agents (merged into its file, other entries kept).
    Install(InstallArgs),
}

/// Add nodwyn to Zed's `agent_servers` (`~/.config/zed/settings.json`) or a JetBrains IDE's
/// (`~/.jetbrains/acp.json`), other entries kept; prints what it wrote.
#[derive(Debug, Args)]
struct InstallArgs {
    /// The editor.
    editor: EditorName,
    /// Print what would be written, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum EditorName {
    Zed,
    Jetbrains,
}

pub(super) fn run(args: AcpArgs, invocation: &Invocation) -> anyhow::Result<()> {
    if let Some(AcpCommand::Install(install)) = args.command {
        return install_in(install, invocation);
    }
    let chosen = nodwyn_config::Settings::resolve(user_config_file().as_deref(), None)?.acp;
    let repo = match args.repo {
        Some(dir) if !dir.is_dir() => bail!("--repo {}: there is no such folder", dir.display()),
        Some(dir) => Some(std::path::absolute(&dir)?),
        None => None,
    };
    let engine = Arc::new(InProcess::start(invocation.store()?, Overrides::default())?);
    let connecting = Arc::clone(&engine);
    let connect: nodwyn_acp::Connect = Arc::new(move || connecting.client());
    let options = nodwyn_acp::Options {
        worktree: nodwyn_server::engine::protocol_mode(chosen.worktree),
        permission_timeout: args
            .permission_timeout
            .map_or(chosen.permission_timeout, std::time::Duration::from_secs),
        repo,
    };
    engine.block_on(nodwyn_acp::serve_stdio(connect, options))
}

/// `nodwyn acp install`.
fn install_in(args: InstallArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
        bail!("HOME is not set, so there is no editor configuration to write");
    };
    let home = std::path::PathBuf::from(home);
    let nodwyn = std::env::current_exe().context("could not find nodwyn's own program")?;
    let change = editor_change(args.editor, &home, &nodwyn).map_err(anyhow::Error::msg)?;
    if !args.dry_run {
        install::write(&change).map_err(anyhow::Error::msg)?;
    }
    if invocation.json {
        return output::json(&json!([{
            "path": change.path,
            "content": change.content,
            "written": !args.dry_run,
        }]));
    }
    let verb = if args.dry_run { "would write" } else { "wrote" };
    let mut lines = vec![format!("{verb} {}:", change.path.display())];
    lines.extend(change.content.lines().map(|line| format!("  {line}")));
    lines.push(String::new());
    lines.push(
        "Start a new thread with the agent \"nodwyn\": each thread works in its own worktree."
            .to_owned(),
    );
    output::text(lines.join("\n"))
}

/// The change that adds nodwyn (this program, `acp`) to `editor`'s agents, for `home`.
fn editor_change(
    editor: EditorName,
    home: &std::path::Path,
    nodwyn: &std::path::Path,
) -> Result<Change, String> {
    let mut server = json!({
        "command": nodwyn.display().to_string(),
        "args": ["acp"],
        "env": {},
    });
    let path = match editor {
        EditorName::Zed => {
            server["type"] = "custom".into();
            std::env::var_os("XDG_CONFIG_HOME")
                .filter(|d| !d.is_empty())
                .map_or_else(|| home.join(".config"), std::path::PathBuf::from)
                .join("zed/settings.json")
        }
        EditorName::Jetbrains => home.join(".jetbrains/acp.json"),
    };
    install::json_change(&path, |config| {
        let servers = config
            .as_object_mut()
            .ok_or("not a JSON object")?
            .entry("agent_servers")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .ok_or("`agent_servers` is not an object")?;
        servers.insert("nodwyn".to_owned(), server.clone());
        Ok(())
    })
    .map_err(|e| match editor {
        // Zed's file allows comments and trailing commas, which nodwyn does not rewrite.
        EditorName::Zed if e.contains("is not JSON") => format!(
            "{e}; Zed allows comments in it, which nodwyn does not rewrite: add this under \"agent_servers\" yourself: \"nodwyn\": {server}"
        ),
        _ => e,
    })
}
