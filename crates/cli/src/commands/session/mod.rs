//! `nodwyn session ...`: the sessions of a repository and their event logs.

mod dont_ask;
mod events;
mod list;

use clap::Subcommand;

use crate::commands::Invocation;

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    List(list::ListArgs),
    Events(events::EventsArgs),
    DontAsk(dont_ask::DontAskArgs),
}

pub fn run(command: SessionCommand, invocation: &Invocation) -> anyhow::Result<()> {
    match command {
        SessionCommand::List(args) => list::run(args, invocation),
        SessionCommand::Events(args) => events::run(args, invocation),
        SessionCommand::DontAsk(args) => dont_ask::run(args, invocation),
    }
}
