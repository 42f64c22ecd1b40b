//! What an action would do, as the guard judges it: the paths it reads and writes, the command it
//! runs, what it sends off the machine, and whether it can be undone.

use std::path::PathBuf;

use serde::Serialize;

/// A command line an action runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CommandLine {
    /// An argument vector, run without a shell.
    Argv(Vec<String>),
    /// A line a shell will interpret.
    Shell(String),
}

impl CommandLine {
    /// The command as a person reads it: the arguments joined by spaces, or the shell line.
    pub fn text(&self) -> String {
        match self {
            CommandLine::Argv(argv) => argv.join(" "),
            CommandLine::Shell(line) => line.clone(),
        }
    }
}

/// Something sent off the machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Egress {
    /// What kind of sending.
    pub kind: EgressKind,
    /// Where it goes: for a push, every push URL of the remote.
    pub destinations: Vec<String>,
}

/// The kinds of egress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EgressKind {
    /// A git push.
    Push,
    /// Any other upload.
    Upload,
}

/// An action described for the guard.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Effect {
    /// What the action is, in words (`fs-write src/lib.rs`), for records and questions.
    pub action: String,
    /// Paths it reads.
    pub reads: Vec<PathBuf>,
    /// Paths it writes.
    pub writes: Vec<PathBuf>,
    /// The command it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandLine>,
    /// What it sends off the machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub egress: Option<Egress>,
    /// Whether it cannot be undone (a push, a landing).
    pub irreversible: bool,
    /// Why the command would run without confinement, when the person did not choose that
    /// (the system cannot confine it): only a person's security confirm lets it run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconfined: Option<String>,
}

impl Effect {
    /// An effect named `action` that does nothing yet; fill in what it does.
    pub fn named(action: impl Into<String>) -> Self {
        Self {
            action: action.into(),
            ..Self::default()
        }
    }
}
