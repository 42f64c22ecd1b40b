//! `nodwyn acp`: nodwyn as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains
//! IDEs, Neovim, Emacs). It is a client of an engine in this process, as `nodwyn run` is.

use std::sync::Arc;

use clap::Args;
use nodwyn_server::engine::Overrides;

use crate::commands::Invocation;
use crate::local_engine::InProcess;

/// Serve the Agent Client Protocol on stdin and stdout, as an editor's agent: each editor
/// thread is a nodwyn session in a new worktree of the repository holding the thread's folder;
/// every tool call is judged by the guard, and its questions are the editor's permission
/// prompts. stdout carries only the protocol; logs go to stderr.
#[derive(Debug, Args)]
pub(super) struct AcpArgs {
    /// How long a permission prompt waits for you before it is declined, in seconds (some
    /// editors never show one: the turn must not hang).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    permission_timeout: u64,
}

pub(super) fn run(args: AcpArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let engine = Arc::new(InProcess::start(invocation.store()?, Overrides::default())?);
    let connecting = Arc::clone(&engine);
    let connect: nodwyn_acp::Connect = Arc::new(move || connecting.client());
    let options = nodwyn_acp::Options {
        permission_timeout: std::time::Duration::from_secs(args.permission_timeout),
        ..nodwyn_acp::Options::default()
    };
    engine.block_on(nodwyn_acp::serve_stdio(connect, options))
}
