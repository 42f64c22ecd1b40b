//! What the Scheme layer asks of the program embedding it: the [`Host`] through which every
//! primitive call passes, and the facts `(worktree)` and `(primitives)` report.
//!
//! nodwyn-scheme knows nothing of sessions, logs or the guard. nodwyn-core implements [`Host`]
//! with its one call path, so a primitive called from Scheme is judged, asked about and logged
//! exactly like one called by a model or by `nodwyn call`.

use serde_json::Value;

/// Runs primitives on behalf of a script.
pub trait Host {
    /// Runs primitive `name` with its arguments in parameter order. A refusal or a failure comes
    /// back as the one sentence that says why; the script receives it as a Scheme error it can
    /// catch.
    fn call(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String>;
}

/// A host with nothing to run primitives in: every call is refused with `reason`.
#[derive(Debug, Clone)]
pub struct NoSession {
    /// Why nothing can run, as one sentence.
    pub reason: String,
}

impl Host for NoSession {
    fn call(&mut self, name: &str, _args: Vec<Value>) -> Result<Value, String> {
        Err(format!("{name} cannot run: {}", self.reason))
    }
}

/// One primitive as Scheme sees it: bound under its name, described by `(primitives)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrimitiveSignature {
    /// The name, which is also the Scheme procedure's name (`fs-read`).
    pub name: String,
    /// One line on what it does.
    pub description: String,
    /// Its parameters in order; optional ones are written `[name]`.
    pub params: Vec<String>,
    /// Its first parameter is a list of strings (`shell-exec`'s argv): when every argument of a
    /// Scheme call is a string, they are gathered into that list, so `(shell-exec "cargo"
    /// "test")` means argv `["cargo", "test"]`. A call whose first argument is a list passes its
    /// arguments in parameter order as usual.
    pub gathers_strings: bool,
    /// It runs only in a worktree session (`git-land`).
    pub worktree_only: bool,
}

/// The worktree a session works in, for `(worktree)` and the prompt's worktree section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeFacts {
    /// The repository's main checkout.
    pub repository: String,
    /// The session's branch.
    pub branch: String,
    /// The session's name (`""` when it has none).
    pub name: String,
    /// The branch it lands on (`""` when it has none).
    pub base: String,
    /// The commit of the base it started from.
    pub base_commit: String,
    /// The worktree's folder.
    pub path: String,
    /// The port the session's commands find in `NODWYN_PORT`, if it has one.
    pub port: Option<u16>,
}

/// What an engine is made with: the primitives to bind, the session's worktree, if any, and the
/// repository's instructions for agents.
#[derive(Debug, Clone, Default)]
pub struct Surroundings {
    /// Every primitive of the registry, built-in or custom; each is bound by its name.
    pub primitives: Vec<PrimitiveSignature>,
    /// The session's worktree; `None` outside a worktree session.
    pub worktree: Option<WorktreeFacts>,
    /// The repository's instructions for agents (`AGENTS.md`), as `(project-instructions)`
    /// gives them.
    pub instructions: Vec<Instructions>,
}

/// One file of instructions for agents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instructions {
    /// The file, relative to the session's folder (`AGENTS.md`).
    pub path: String,
    /// Its text, cut to the size a prompt may carry.
    pub text: String,
    /// How many characters were cut off (0 for none).
    pub left_out: usize,
}
