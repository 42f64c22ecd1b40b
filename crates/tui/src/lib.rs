//! `nodwyn tui`: a terminal interface over the engine's protocol. The conversation is written into
//! the terminal's own scrollback (the person scrolls, searches and copies with their terminal),
//! under which a live pane of a few lines holds the status, a question when one waits, and the
//! composer. It begins with a chooser (a new session in a new worktree first, then the folder
//! itself, then the repository's sessions), unless told what to open. Everything it does is a
//! request of the protocol, to an engine in this process or to a running `nodwyn serve`; it
//! decides nothing the engine decides.

mod chooser;
mod composer;
mod keys;
mod pane;
mod session;
mod terminal;
mod transcript;
mod words;

use std::path::PathBuf;

use nodwyn_server::client::Client;

pub use chooser::{Choice, Row};
pub use session::Left;

/// What to open, and how to reach the engine.
pub struct Options {
    /// The folder the chooser offers (a repository's top or any folder in it).
    pub folder: PathBuf,
    /// Open a new session in a new worktree, without the chooser.
    pub worktree: bool,
    /// Resume this session, without the chooser.
    pub resume: Option<String>,
    /// Whether the engine is a daemon (a lost connection is made again) rather than this
    /// process's.
    pub daemon: bool,
    /// Whether the terminal may show colours (`NO_COLOR` unset).
    pub color: bool,
}

/// How the interface reaches the engine again after the daemon went away (`None` for an engine
/// in this process, which cannot go away under it).
pub type Reconnect = Box<dyn FnMut() -> anyhow::Result<Client>>;

/// Runs the interface on this terminal until the person leaves: what they left.
pub fn run(
    options: &Options,
    client: Client,
    reconnect: Option<Reconnect>,
) -> anyhow::Result<Left> {
    let mut screen = terminal::Screen::open(options.color)?;
    let outcome = session::Interface::new(options, client, reconnect).run(&mut screen);
    screen.close();
    outcome
}
