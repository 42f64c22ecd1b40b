//! `nodwyn guard ...`: asking the guard directly.

mod check;

use clap::Subcommand;

use crate::commands::Invocation;

#[derive(Debug, Subcommand)]
pub enum GuardCommand {
    Check(check::CheckArgs),
}

pub fn run(command: GuardCommand, invocation: &Invocation) -> anyhow::Result<()> {
    match command {
        GuardCommand::Check(args) => check::run(args, invocation),
    }
}
