//! How `shell-exec` confines what it runs: the person's choice (their own configuration) and
//! what the system offers, decided once by the host and handed to every call; and the policy of
//! one call, built from the session's folders.

use std::path::{Path, PathBuf};

pub use nodwyn_proc::{
    Availability, EXEC_ARG, Limits, SUPERVISOR_ARG, availability, exec_confined, not_dumpable,
    supervise,
};

/// How commands are confined in this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sandbox {
    /// Each command runs confined under `supervisor` (nodwyn's own binary).
    On {
        /// The supervisor's program.
        supervisor: PathBuf,
        /// Folders the person allows writing besides the session's own (`[sandbox] writable`).
        writable: Vec<PathBuf>,
        /// Paths no command may read: nodwyn's data directory, and the person's credential files
        /// (as the denylist knows them), which the host adds when a call runs (see
        /// [`Sandbox::hide`]).
        hidden: Vec<PathBuf>,
        /// Folders readable even when beneath a hidden one: the repository, the home folder,
        /// the folders of `PATH`.
        readable: Vec<PathBuf>,
        /// Paths in the session's folder that stay read-only: the repository's git directory and
        /// nodwyn's folder, when the session works in the checkout itself.
        read_only: Vec<PathBuf>,
        /// Credential files inside the session's folder, masked for every command.
        masked: Vec<PathBuf>,
        /// Files shown to commands with other content (see [`Sandbox::replace`]).
        replaced: Vec<(PathBuf, String)>,
        /// Whether commands may use the network (`[sandbox] network`).
        network: bool,
        /// Whether commands may create Unix-domain sockets (`[sandbox] unix_sockets`).
        unix_sockets: bool,
        /// Each command's resource limits.
        limits: Limits,
        /// Whether commands get namespaces of their own (`[sandbox] namespaces`).
        namespaces: bool,
    },
    /// Confinement is not available here, for this reason: every command runs only with a
    /// person's security confirm.
    Unavailable(String),
    /// The person turned confinement off in their own configuration (`[sandbox] mode = "off"`).
    Off,
}

impl Default for Sandbox {
    /// Nothing set up confinement: treated as unavailable, so commands ask (fail closed).
    fn default() -> Self {
        Sandbox::Unavailable("no sandbox was set up for this session".to_owned())
    }
}

impl Sandbox {
    /// Why a command would run unconfined without the person having chosen it, if it would.
    pub fn unconfined_because(&self) -> Option<&str> {
        match self {
            Sandbox::Unavailable(why) => Some(why),
            Sandbox::On { .. } | Sandbox::Off => None,
        }
    }

    /// The name recorded with each command: `on`, `off` or `unavailable`.
    pub fn mode(&self) -> &'static str {
        match self {
            Sandbox::On { .. } => "on",
            Sandbox::Off => "off",
            Sandbox::Unavailable(_) => "unavailable",
        }
    }

    /// Keeps `paths` (the person's credential files, found once per call for the guard too) from
    /// every command.
    pub fn hide(&mut self, paths: &[PathBuf]) {
        if let Sandbox::On { hidden, .. } = self {
            hidden.extend_from_slice(paths);
        }
    }

    /// Shows each file of `files` to commands with the content beside it (a git configuration
    /// with its credentials taken out).
    pub fn replace(&mut self, files: Vec<(PathBuf, String)>) {
        if let Sandbox::On { replaced, .. } = self {
            replaced.extend(files);
        }
    }

    /// Masks `files`, credential files inside the session's own folder (which commands may
    /// write, so they cannot be hidden as the home folder's are).
    pub fn mask(&mut self, files: &[PathBuf]) {
        if let Sandbox::On { masked, .. } = self {
            masked.extend_from_slice(files);
        }
    }

    /// The policy of one call in `root` with its own temporary folder `tmp`, and the supervisor
    /// to run it under; `None` when commands run unconfined.
    pub fn policy_for(&self, root: &Path, tmp: &Path) -> Option<(PathBuf, nodwyn_proc::Policy)> {
        let Sandbox::On {
            supervisor,
            writable,
            hidden,
            readable,
            read_only,
            masked,
            replaced,
            network,
            unix_sockets,
            limits,
            namespaces,
        } = self
        else {
            return None;
        };
        let policy = nodwyn_proc::Policy {
            writable: [root.to_path_buf(), tmp.to_path_buf()]
                .into_iter()
                .chain(writable.iter().cloned())
                .collect(),
            readable: readable.clone(),
            hidden: hidden.clone(),
            read_only: read_only.clone(),
            masked: masked.clone(),
            replaced: replaced.clone(),
            network: *network,
            unix_sockets: *unix_sockets,
            limits: *limits,
            namespaces: *namespaces,
        };
        Some((supervisor.clone(), policy))
    }
}
