//! `nodwyn worktree switch` and `nodwyn shell-init`: changing the shell's folder to a session's
//! worktree, the checkout, or the worktree before, failing loudly.
//!
//! A program cannot change its shell's folder, so `shell-init` prints a shell function named
//! `nodwyn` that runs the program and, for `worktree switch`, changes into the folder it printed
//! (and only when it succeeded: a mistyped id leaves the shell where it was, with the error).

use anyhow::Context;
use clap::{Args, ValueEnum};
use nodwyn_core::{Session, WorktreeState};

use crate::commands::Invocation;
use crate::output;

/// Go to a session's worktree: print its folder, which the shell function of
/// `nodwyn shell-init` changes into.
///
/// `^` is the checkout of the repository you are in, `-` the folder the last switch left.
/// Without the shell function it only prints the folder, and says so.
#[derive(Debug, Args)]
pub(crate) struct SwitchArgs {
    /// The session (its id, its 8 hex digits or a unique start of them, or its name), `^` for
    /// the checkout, or `-` for the folder the last switch left.
    target: String,
}

/// The variable the shell function keeps the folder a switch left in.
const PREVIOUS: &str = "NODWYN_PREVIOUS_WORKTREE";

/// The variable the shell function sets, so a switch knows the shell will follow.
const FOLLOWED: &str = "NODWYN_SHELL_FOLLOWS";

pub(crate) fn run(args: SwitchArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let folder = match args.target.as_str() {
        "^" => nodwyn_core::repository_of(&here_or_nearest()?)?,
        "-" => match std::env::var_os(PREVIOUS) {
            Some(previous) if std::path::Path::new(&previous).is_dir() => previous.into(),
            _ => {
                return Err(crate::error::coded(
                    "no_previous_worktree",
                    "there is no folder a switch left in this shell to go back to",
                ));
            }
        },
        target => {
            let store = invocation.store()?;
            let session = Session::load(&store.find(target)?)?;
            let Some(facts) = session.active_worktree().filter(|f| f.path.is_dir()) else {
                let why = match (&session.worktree, session.worktree_state) {
                    (None, _) => "it has no worktree".to_owned(),
                    (Some(_), WorktreeState::Kept) => {
                        "its worktree was handed over with `keep`".to_owned()
                    }
                    _ => format!(
                        "its worktree is gone; `nodwyn worktree resume {}` makes it again",
                        session.id.short()
                    ),
                };
                return Err(crate::error::coded(
                    "no_worktree",
                    format!(
                        "session {} cannot be switched to: {why}",
                        session.id.short()
                    ),
                ));
            };
            facts.path.clone()
        }
    };
    if invocation.json {
        return output::json(&serde_json::json!({ "path": folder }));
    }
    if std::env::var_os(FOLLOWED).is_none() {
        output::note(
            "note: only printed; to have the shell go there, add `eval \"$(nodwyn shell-init bash)\"` (or zsh, fish) to your shell's startup file",
        );
    }
    output::text(folder.display().to_string())
}

/// The current folder, or, when it is gone (the worktree the shell stood in was removed), the
/// nearest folder above it that is still there, as the shell's `PWD` names it.
fn here_or_nearest() -> anyhow::Result<std::path::PathBuf> {
    if let Ok(here) = std::env::current_dir() {
        return Ok(here);
    }
    let gone = std::env::var_os("PWD").context("could not read the current folder")?;
    std::path::Path::new(&gone)
        .ancestors()
        .find(|folder| folder.is_dir())
        .map(std::path::Path::to_path_buf)
        .context("could not read the current folder, nor any folder above it")
}

/// Print the shell function that lets `nodwyn worktree switch` change the shell's folder.
///
/// Add `eval "$(nodwyn shell-init bash)"` to `~/.bashrc` (zsh: `~/.zshrc`; fish:
/// `nodwyn shell-init fish | source` in `config.fish`).
#[derive(Debug, Args)]
pub(crate) struct ShellInitArgs {
    /// The shell.
    shell: Shell,
}

/// The shells `shell-init` knows.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

pub(crate) fn run_shell_init(args: ShellInitArgs, invocation: &Invocation) -> anyhow::Result<()> {
    if invocation.json {
        return Err(crate::error::bad_input(
            "usage",
            "shell-init prints a shell function, not JSON: leave out --json",
        ));
    }
    output::text(match args.shell {
        Shell::Bash | Shell::Zsh => POSIX_FUNCTION,
        Shell::Fish => FISH_FUNCTION,
    })
}

/// The function for bash and zsh.
const POSIX_FUNCTION: &str = r#"nodwyn() {
    if [ "$1" = worktree ] && [ "$2" = switch ]; then
        local nodwyn_folder
        nodwyn_folder="$(NODWYN_SHELL_FOLLOWS=1 command nodwyn "$@")" || return
        NODWYN_PREVIOUS_WORKTREE="$PWD"
        export NODWYN_PREVIOUS_WORKTREE
        cd -- "$nodwyn_folder" || return
    else
        command nodwyn "$@"
    fi
}"#;

/// The function for fish.
const FISH_FUNCTION: &str = r#"function nodwyn
    if test (count $argv) -ge 2; and test "$argv[1]" = worktree; and test "$argv[2]" = switch
        set -l nodwyn_folder (env NODWYN_SHELL_FOLLOWS=1 nodwyn $argv); or return
        set -gx NODWYN_PREVIOUS_WORKTREE $PWD
        cd $nodwyn_folder; or return
    else
        command nodwyn $argv
    end
end"#;
