//! `nodwyn session ...`: the sessions of a repository and their event logs.

pub(super) mod accept_config;
mod dont_ask;
mod events;
mod hand;
mod import;
mod list;

use clap::Subcommand;

use crate::commands::Invocation;

#[derive(Debug, Subcommand)]
pub(super) enum SessionCommand {
    List(list::ListArgs),
    Events(events::EventsArgs),
    DontAsk(dont_ask::DontAskArgs),
    Hand(hand::HandArgs),
    AcceptConfig(accept_config::AcceptConfigArgs),
    Import(import::ImportArgs),
}

pub(super) fn run(command: SessionCommand, invocation: &Invocation) -> anyhow::Result<()> {
    match command {
        SessionCommand::List(args) => list::run(args, invocation),
        SessionCommand::Events(args) => events::run(args, invocation),
        SessionCommand::DontAsk(args) => dont_ask::run(args, invocation),
        SessionCommand::Hand(args) => hand::run(args, invocation),
        SessionCommand::AcceptConfig(args) => accept_config::run(args, invocation),
        SessionCommand::Import(args) => import::run(args, invocation),
    }
}
