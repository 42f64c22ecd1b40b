//! `nodwyn completions`: shell completions, written by clap's own generator from the same
//! definitions that parse the command line, so they never drift from it.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::commands::Cli;

/// Print shell completions for nodwyn.
///
/// For bash: `nodwyn completions bash > ~/.local/share/bash-completion/completions/nodwyn`;
/// zsh: `nodwyn completions zsh > ~/.zfunc/_nodwyn` (with `~/.zfunc` on `fpath`); fish:
/// `nodwyn completions fish > ~/.config/fish/completions/nodwyn.fish`.
#[derive(Debug, Args)]
pub(super) struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    shell: Shell,
}

pub(super) fn run(
    args: CompletionsArgs,
    invocation: &crate::commands::Invocation,
) -> anyhow::Result<()> {
    if invocation.json {
        return Err(crate::error::bad_input(
            "usage",
            "completions are a shell script, not JSON: leave out --json",
        ));
    }
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "nodwyn", &mut out);
    crate::output::bytes(&out)
}
