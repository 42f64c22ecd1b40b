//! The command tree. Each subcommand lives in its own file; the doc comment of its arguments
//! struct is its `--help`.

mod acp;
mod allow;
mod call;
mod chat;
mod completions;
pub(crate) mod console;
mod dispatch;
mod doctor;
mod eval;
mod guard;
pub(crate) mod headless;
mod hooks;
mod land;
mod mcp;
mod prompt;
pub(crate) mod run;
mod scan;
pub(crate) mod scheme_options;
mod serve;
mod session;
mod tui;
mod versions;
mod worktree;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};
use nodwyn_core::Store;

use crate::environment;

/// nodwyn hosts coding-agent sessions, each in its own git worktree and branch, so several
/// sessions can work on one repository without seeing each other's half-done edits.
#[derive(Debug, Parser)]
#[command(
    name = "nodwyn",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Flags every command takes.
#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Print one JSON document on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Log what nodwyn does on stderr (-v: info, -vv: debug; or set NODWYN_LOG).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Sessions in their own git worktrees: make, list, review, close, resume, remove, keep, prune.
    #[command(subcommand)]
    Worktree(worktree::WorktreeCommand),
    /// Sessions of a repository and their event logs.
    #[command(subcommand)]
    Session(session::SessionCommand),
    /// Scan files, standard input or a revision range for credentials.
    Scan(scan::ScanArgs),
    /// Ask the guard about paths.
    #[command(subcommand)]
    Guard(guard::GuardCommand),
    /// Land a worktree session's work on its base branch (commit, rebase, scan, push).
    Land(land::LandArgs),
    /// Give a model a task: it works through the primitives, every call judged by the guard.
    Run(run::RunArgs),
    /// Run tasks as sessions elsewhere: GitHub Actions runners or a Kubernetes Job.
    #[command(subcommand)]
    Dispatch(dispatch::DispatchCommand),
    /// Talk with the agent on a terminal, a message a line, with /commands.
    Chat(chat::ChatArgs),
    /// The terminal interface: choose or start a session, talk with the agent, answer its
    /// questions with a key.
    Tui(tui::TuiArgs),
    /// Run one primitive in a session through the guard, as an agent would.
    Call(call::CallArgs),
    /// Serve guarded worktrees and primitives to any agent over the Model Context Protocol.
    Mcp(mcp::McpArgs),
    /// Be an editor's agent over the Agent Client Protocol (Zed, JetBrains IDEs, Neovim, Emacs).
    Acp(acp::AcpArgs),
    /// Serve the engine to many clients on a private Unix socket (JSON-RPC 2.0).
    Serve(serve::ServeArgs),
    /// Print (and on a desktop, open) the web console's address, starting a daemon that serves
    /// it when none runs.
    Console(console::ConsoleArgs),
    /// Kept versions of the files a session's primitives replaced.
    #[command(subcommand)]
    Versions(versions::VersionsCommand),
    /// Print the system prompt an agent gets, with your overrides and the repository's applied.
    Prompt(prompt::PromptArgs),
    /// Run Scheme in a session's context; primitives go through the guard.
    Eval(eval::EvalArgs),
    /// Add a standing answer to the repository's .nodwyn/allow.toml (on a terminal only).
    Allow(allow::AllowArgs),
    /// The repository's worktree hooks (.nodwyn/hooks.toml): approve them on a terminal.
    #[command(subcommand)]
    Hooks(hooks::HooksCommand),
    /// Print shell completions (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Check this machine and your configuration: git, the sandbox, the data directory, the model.
    Doctor(doctor::DoctorArgs),
    /// Print the shell function that lets `nodwyn worktree switch` change your shell's folder.
    ShellInit(worktree::switch::ShellInitArgs),
}

/// How a command ended, when it did not fail: some commands (`scan`) exit 1 on what they find.
pub(crate) enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1, with the output already printed.
    Found,
    /// Exit with this code, everything already said.
    Exit(u8),
}

impl Outcome {
    /// Success when `clean`, else found.
    fn clean_if(clean: bool) -> Self {
        if clean {
            Outcome::Success
        } else {
            Outcome::Found
        }
    }
}

impl Cli {
    /// The exit code of an error: 2 for the checks a hook runs (`scan`, `guard check`), whose
    /// exit 1 means "found", so a hook can tell a finding from a failure; 1 for the rest.
    pub(crate) fn error_exit_code(&self) -> u8 {
        match self.command {
            Command::Scan(_) | Command::Guard(_) => 2,
            _ => 1,
        }
    }
}

/// Runs the parsed command.
pub(crate) fn run(cli: Cli) -> anyhow::Result<Outcome> {
    let context = Invocation {
        json: cli.global.json,
    };
    match cli.command {
        Command::Worktree(command) => worktree::run(command, &context),
        Command::Session(command) => session::run(command, &context).map(|()| Outcome::Success),
        Command::Scan(args) => scan::run(args, &context).map(Outcome::clean_if),
        Command::Guard(command) => guard::run(command, &context).map(Outcome::clean_if),
        Command::Land(args) => land::run(args, &context).map(|()| Outcome::Success),
        Command::Dispatch(command) => dispatch::run(command, &context).map(|()| Outcome::Success),
        Command::Run(args) => run::run(args, &context),
        Command::Chat(args) => chat::run(args, &context).map(|()| Outcome::Success),
        Command::Tui(args) => tui::run(args, &context).map(|()| Outcome::Success),
        Command::Call(args) => call::run(args, &context).map(|()| Outcome::Success),
        Command::Mcp(args) => mcp::run(args, &context).map(|()| Outcome::Success),
        Command::Acp(args) => acp::run(args, &context).map(|()| Outcome::Success),
        Command::Serve(args) => serve::run(args, &context).map(|()| Outcome::Success),
        Command::Console(args) => console::run(args, &context).map(|()| Outcome::Success),
        Command::Versions(command) => versions::run(command, &context).map(|()| Outcome::Success),
        Command::Prompt(args) => prompt::run(args, &context).map(|()| Outcome::Success),
        Command::Eval(args) => eval::run(args, &context).map(|()| Outcome::Success),
        Command::Completions(args) => completions::run(args, &context).map(|()| Outcome::Success),
        Command::Doctor(args) => doctor::run(args, &context),
        Command::ShellInit(args) => {
            worktree::switch::run_shell_init(args, &context).map(|()| Outcome::Success)
        }
        Command::Allow(args) => allow::run(args, &context).map(|()| Outcome::Success),
        Command::Hooks(command) => hooks::run(command, &context).map(|()| Outcome::Success),
    }
}

/// What every command needs besides its own arguments.
pub(crate) struct Invocation {
    /// `--json`.
    pub json: bool,
}

impl Invocation {
    /// The store in the data directory, looking ids and names up in the repository of the
    /// current folder first.
    pub(crate) fn store(&self) -> anyhow::Result<Store> {
        let here = std::env::current_dir()
            .ok()
            .and_then(|dir| nodwyn_core::repository_of(&dir).ok());
        Ok(Store::new(environment::data_dir()?).preferring(here))
    }
}

/// The session a command means: the one `given` names, or, when none is given, the session whose
/// worktree holds the current folder.
pub(crate) fn session_or_here(given: Option<String>, store: &Store) -> anyhow::Result<String> {
    if let Some(given) = given {
        return Ok(given);
    }
    let here = std::env::current_dir()?;
    match nodwyn_core::session_at(store, &here)? {
        Some(id) => Ok(id.to_string()),
        None => Err(crate::error::bad_input(
            "no_session_here",
            format!(
                "{} is not in a session's worktree, so give the session: its id (8 hex digits, or a unique start of them) or its name",
                here.display()
            ),
        )),
    }
}

/// `given` itself, or standard input read whole when it is `-`; `what` names it in an error.
pub(crate) fn text_or_standard_input(given: String, what: &str) -> anyhow::Result<String> {
    if given != "-" {
        return Ok(given);
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .with_context(|| format!("could not read {what} from standard input"))?;
    Ok(text)
}

/// `--repo DIR`, defaulting to the current folder; it must be an existing folder.
#[derive(Debug, Args)]
pub(crate) struct RepoArg {
    /// The repository, or any checkout of it (default: the current folder).
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
}

impl RepoArg {
    /// The folder given, checked to exist.
    pub(crate) fn dir(&self) -> anyhow::Result<PathBuf> {
        let dir = match &self.repo {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().context("could not read the current folder")?,
        };
        existing_folder(&dir)?;
        Ok(dir)
    }

    /// The repository (main worktree) the folder belongs to. Outside any, the sentence says how
    /// to name one.
    pub(crate) fn repository(&self) -> anyhow::Result<PathBuf> {
        let dir = self.dir()?;
        nodwyn_core::repository_of(&dir).map_err(|error| match error.code() {
            "not_a_git_repo" if self.repo.is_none() => crate::error::coded(
                "not_a_git_repo",
                format!(
                    "{} is not in a git repository: run this inside one, or name it with --repo DIR",
                    dir.display()
                ),
            ),
            _ => error.into(),
        })
    }
}

fn existing_folder(dir: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => bail!("--repo {}: not a folder", dir.display()),
        Err(_) => bail!("--repo {}: no such folder", dir.display()),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap checks the whole command tree (unique names, valid defaults) only when asked, or when
    /// a command runs: ask once for every subcommand, so a clash fails here and not for a user.
    #[test]
    fn the_command_tree_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
