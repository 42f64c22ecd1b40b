//! `nodwyn guard ...`: asking the guard directly.

mod check;

use clap::Subcommand;

use crate::commands::Invocation;

#[derive(Debug, Subcommand)]
pub(super) enum GuardCommand {
    Check(check::CheckArgs),
}

/// Returns whether the answer was clean (every path allowed).
pub(super) fn run(command: GuardCommand, invocation: &Invocation) -> anyhow::Result<bool> {
    match command {
        GuardCommand::Check(args) => check::run(args, invocation),
    }
}
