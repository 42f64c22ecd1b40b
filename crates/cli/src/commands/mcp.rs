//! `nodwyn mcp`: nodwyn as an MCP server on stdio, for the agents people already run.

use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use nodwyn_config::Settings;
use nodwyn_core::prim::Registry;

use crate::commands::scheme_options::script_options;
use crate::commands::{Invocation, RepoArg};
use crate::environment;

/// Serve the Model Context Protocol on stdin and stdout: an agent (Claude Code, Codex, Gemini
/// CLI, Cursor) gets its own worktree (`worktree_create`), works through nodwyn's primitives as
/// tools, every call judged by the guard and logged, and lands with `worktree_land`. The guard's
/// questions reach you through the agent's own interface when it supports elicitation. stdout
/// carries only the protocol; logs go to stderr.
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    repo: RepoArg,
}

pub fn run(args: McpArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let dir = args.repo.dir()?;
    let repository = nodwyn_core::repository_of(&dir).ok();
    let settings = Settings::resolve(
        environment::user_config_file().as_deref(),
        repository.as_deref(),
    )?;
    let options = nodwyn_mcp::Options {
        repo: dir,
        store: invocation.store()?,
        registry: Arc::new(Registry::builtin()),
        settings: environment::host_settings_confined(),
        location: settings.worktree_location,
        scripts: script_options(None)?,
    };
    let engine = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the server's runtime")?;
    let served = engine.block_on(nodwyn_mcp::serve_stdio(options));
    // A call still running was interrupted when the client went away; it gets a moment to end
    // (its command's tree ends, a landing stops at a step it can name), then nodwyn goes.
    engine.shutdown_timeout(std::time::Duration::from_secs(10));
    served.map_err(anyhow::Error::msg)
}
