//! `nodwyn-git`: everything nodwyn does with git.
//!
//! Two engines, one rule. libgit2 (`git2`) answers reads: discovery, HEAD, refs, ancestry,
//! quick status. The `git` program does everything that must run the person's own configuration
//! (hooks, filters, transports) and answers where libgit2 would differ from git; it is only ever
//! started through [`GitCommand`], with fixed arguments and a scrubbed environment, and for a
//! read with no repository attributes, so repository content cannot choose a program to run. This crate
//! depends on no other nodwyn crate and never prints.

pub mod base;
mod command;
pub mod commit;
pub mod config;
pub mod diff;
pub mod dirty_watch;
mod error;
pub mod fingerprint;
pub mod gitdir;
pub mod graph;
pub mod landed;
pub mod lfs;
pub mod push;
mod quick_dirty;
pub mod quote;
pub mod rebase;
pub mod refs;
pub mod repair;
pub mod replay;
pub mod repo;
pub mod status;
pub mod switch;
#[cfg(test)]
mod testing;
pub mod turns;
pub mod untracked;
pub mod worktree;

pub use command::{GitCommand, Network};
pub use error::Error;
pub use repo::{Checkout, Head, discover};
