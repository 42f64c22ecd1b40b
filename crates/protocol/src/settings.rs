//! The plain choices of the person's configuration that the engine obeys: how an agent's
//! commands are confined and where new worktrees go. `nodwyn-config` reads them from the
//! configuration files and core acts on them, so both name the same values without the
//! configuration depending on the engine.

use std::path::PathBuf;

/// How an agent's commands are confined (the person's `[sandbox]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxChoice {
    /// `mode`: confine (the default), not at all, or ask each time.
    pub mode: SandboxMode,
    /// Folders commands may write besides the session's own (`writable`).
    pub writable: Vec<PathBuf>,
    /// Whether commands may use the network (`network`, on unless turned off).
    pub network: bool,
    /// Whether commands may create Unix-domain sockets (`unix_sockets`, off unless turned on).
    pub unix_sockets: bool,
    /// Each command's resource limits (`max_processes`, `max_file_mb`, `max_memory_mb`).
    pub limits: CommandLimits,
    /// Whether commands get namespaces of their own (`namespaces`, on unless turned off): off,
    /// the protected paths are granted around by Landlock alone, as where none can be made.
    pub namespaces: bool,
}

impl Default for SandboxChoice {
    /// What nodwyn does when the person chose nothing: confine, with the network, without
    /// Unix sockets, in namespaces, at nodwyn's own limits.
    fn default() -> Self {
        Self {
            mode: SandboxMode::On,
            writable: Vec::new(),
            network: true,
            unix_sockets: false,
            limits: CommandLimits::default(),
            namespaces: true,
        }
    }
}

/// The person's `[sandbox] mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// Confine every command; where the system cannot, each command asks (`"on"`, the default).
    #[default]
    On,
    /// Run commands unconfined, and say so in each result (`"off"`).
    Off,
    /// Run commands unconfined, each only with the person's security confirm (`"ask"`): what
    /// happens anyway where the system cannot confine.
    Ask,
}

/// The resource limits the person set for each command; `None` keeps nodwyn's own for that
/// limit (2,048 processes and threads, files of 16 GiB, half the machine's memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CommandLimits {
    /// Processes and threads at once.
    pub processes: Option<u64>,
    /// The largest file a command may write, in bytes.
    pub file_size: Option<u64>,
    /// The data one process may hold, in bytes.
    pub memory: Option<u64>,
}

/// Where new worktrees are made (`worktrees.location`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WorktreeLocation {
    /// Inside the repository, under `.nodwyn/worktrees/` (the default).
    #[default]
    Repository,
    /// Under the data directory.
    Data,
}

/// The ports worktree sessions are given one of each (`[worktrees] ports`, the person's own
/// file only): `first` to `last`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortRange {
    /// The lowest port given.
    pub first: u16,
    /// The highest port given.
    pub last: u16,
}

impl Default for PortRange {
    fn default() -> Self {
        Self {
            first: 10000,
            last: 19999,
        }
    }
}

impl std::str::FromStr for PortRange {
    type Err = String;

    /// `FIRST-LAST`, such as `10000-19999`: ports from 1024 (below it, binding takes privilege),
    /// the first no higher than the last.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "`{text}` is not a range of ports: write it as FIRST-LAST with ports from 1024 to 65535, such as 10000-19999"
            )
        };
        let (first, last) = text.split_once('-').ok_or_else(bad)?;
        let port = |p: &str| p.trim().parse::<u16>().ok().filter(|p| *p >= 1024);
        match (port(first), port(last)) {
            (Some(first), Some(last)) if first <= last => Ok(Self { first, last }),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for PortRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

/// When a worktree's hooks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    /// After the worktree was made (`worktree new`).
    PostCreate,
    /// After the worktree was opened again (`worktree resume`, `worktree restore`).
    PostResume,
    /// Before the worktree is removed (`worktree remove`); a failure stops the removal.
    PreRemove,
    /// After the session's work landed (`land`).
    PostLand,
}

impl HookEvent {
    /// Its name in `hooks.toml` and in the log.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PostCreate => "post_create",
            HookEvent::PostResume => "post_resume",
            HookEvent::PreRemove => "pre_remove",
            HookEvent::PostLand => "post_land",
        }
    }
}

/// Commands to run at each [`HookEvent`]: each an argv (a program and its arguments, never a
/// shell line unless the program is a shell), in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct HookCommands {
    /// After `worktree new`.
    #[serde(default)]
    pub post_create: Vec<Vec<String>>,
    /// After `worktree resume` or `restore`.
    #[serde(default)]
    pub post_resume: Vec<Vec<String>>,
    /// Before `worktree remove`.
    #[serde(default)]
    pub pre_remove: Vec<Vec<String>>,
    /// After `land`.
    #[serde(default)]
    pub post_land: Vec<Vec<String>>,
}

impl HookCommands {
    /// The commands of `event`.
    pub fn of(&self, event: HookEvent) -> &[Vec<String>] {
        match event {
            HookEvent::PostCreate => &self.post_create,
            HookEvent::PostResume => &self.post_resume,
            HookEvent::PreRemove => &self.pre_remove,
            HookEvent::PostLand => &self.post_land,
        }
    }
}

/// How long a worktree hook may run unless the person says otherwise (`[hooks] timeout_seconds`).
pub const HOOK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// The person's own worktree hooks and how long any hook may run (`[hooks]`, from the person's
/// own file only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookChoice {
    /// The person's own commands, run after the repository's approved ones.
    pub commands: HookCommands,
    /// How long one hook command may run (`timeout_seconds`, default [`HOOK_TIMEOUT`]).
    pub timeout: std::time::Duration,
}

impl Default for HookChoice {
    fn default() -> Self {
        Self {
            commands: HookCommands::default(),
            timeout: HOOK_TIMEOUT,
        }
    }
}
