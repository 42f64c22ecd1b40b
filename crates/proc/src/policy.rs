//! What a confined command may touch: a [`Policy`] names the folders it may write and the paths
//! it may not read; everything else on the system is readable and executable, nothing else is
//! writable. [`read_grants`] turns "everything but these" into the list of folders and files to
//! grant, since Landlock grants access and cannot take it away beneath a grant.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What a confined command may touch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// Folders it may write anywhere beneath (and read): the session's folder, the call's own
    /// temporary folder, the folders the person lists.
    pub writable: Vec<PathBuf>,
    /// Folders it may read even when one of the system's hidden folders holds them (a
    /// repository under `/tmp`); hidden paths beneath them stay hidden.
    #[serde(default)]
    pub readable: Vec<PathBuf>,
    /// Paths it may not read: the person's credential files, nodwyn's data directory. A folder
    /// hides everything beneath it. The system's own secrets are added by [`Policy::hidden`].
    pub hidden: Vec<PathBuf>,
    /// Paths beneath a writable folder that stay read-only: a worktree's `.git` file, a
    /// checkout's git directory, nodwyn's folder. Bound read-only in the command's own mount
    /// namespace (a missing one made as an empty folder first), or granted around where no
    /// namespace can be made (see `crate::confine::Protection`).
    #[serde(default)]
    pub read_only: Vec<PathBuf>,
    /// Credential files beneath a writable folder (a checkout's `.env`): `/dev/null` is bound
    /// over each in the command's own mount namespace, so reading one gives nothing and it cannot
    /// be removed; where no namespace can be made they are granted around, neither read nor
    /// written (see `crate::confine::Protection`).
    #[serde(default)]
    pub masked: Vec<PathBuf>,
    /// Files shown to the command with other content: each path with what it reads there (a
    /// git configuration with its credentials taken out), bound read-only in the command's own
    /// mount namespace; where no namespace can be made they are hidden instead.
    #[serde(default)]
    pub replaced: Vec<(PathBuf, String)>,
    /// The command's resource limits.
    #[serde(default)]
    pub limits: crate::limits::Limits,
    /// Whether the command gets user, mount and PID namespaces of its own (see
    /// `crate::namespace`); without them the protected paths are granted around by Landlock.
    #[serde(default = "yes")]
    pub namespaces: bool,
    /// Whether it may open TCP connections and listen on TCP ports.
    pub network: bool,
    /// Whether it may create Unix-domain sockets (see `crate::seccomp`: through them a command
    /// reaches the person's agents and services at their well-known paths).
    #[serde(default)]
    pub unix_sockets: bool,
}

fn yes() -> bool {
    true
}

/// What every confined command is kept from reading, whatever the policy: the system's password
/// hashes, every device but the harmless ones (see [`DEVICES`]), and the [`UNLISTED`] folders
/// (which are then granted again, without listing).
const SYSTEM_HIDDEN: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/dev",
    "/tmp",
    "/var/tmp",
    "/run/user",
];

/// Folders a confined command may read and run files in by name but not list: the shared
/// temporary folders and the per-user runtime folder, where other programs keep their files
/// (the person's sockets there are out of reach anyway: see `crate::seccomp`).
pub(crate) const UNLISTED: &[&str] = &["/tmp", "/var/tmp", "/run/user"];

/// The devices a confined command may read and write.
pub(crate) const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// `/proc`, whose entries are read one by one: what describes the machine (`cpuinfo`,
/// `meminfo`) is readable, no process's folder is (another process's `environ`, `cmdline` and
/// memory), nor the kernel's own memory and keys.
const PROC: &str = "/proc";

/// Entries of `/proc` that are not a process's folder and still must not be read.
const PROC_HIDDEN: &[&str] = &[
    "self",
    "thread-self",
    "kcore",
    "kmsg",
    "kallsyms",
    "kpagecount",
    "kpageflags",
    "kpagecgroup",
    "keys",
    "key-users",
    "sysrq-trigger",
    "timer_list",
    "slabinfo",
    "vmallocinfo",
];

impl Policy {
    /// Every path the command may not read: the policy's own, the system's secrets (including
    /// the ssh daemon's host keys), each as the kernel will see it (links resolved).
    pub fn hidden(&self) -> Vec<PathBuf> {
        let host_keys = std::fs::read_dir("/etc/ssh")
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("ssh_host_") && n.ends_with("_key"))
            });
        let mut hidden: Vec<PathBuf> = self
            .hidden
            .iter()
            .cloned()
            .chain(SYSTEM_HIDDEN.iter().map(PathBuf::from))
            .chain(host_keys)
            .map(|path| std::fs::canonicalize(&path).unwrap_or(path))
            .collect();
        hidden.sort();
        hidden.dedup();
        hidden
    }

    /// The first writable folder that holds one of `hidden` (as [`Policy::hidden`] gives them),
    /// with that path: such a policy would give back what it hides (Landlock's grants add up),
    /// so it is refused.
    pub fn writable_over(&self, hidden: &[PathBuf]) -> Option<(PathBuf, PathBuf)> {
        self.writable.iter().find_map(|folder| {
            let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.clone());
            hidden
                .iter()
                .find(|h| h.starts_with(&folder))
                .map(|h| (folder.clone(), h.clone()))
        })
    }
}

/// The folders and files to grant read access to so that everything under `root` is readable
/// except `hidden` (canonical paths, see [`Policy::hidden`]) and the processes in `/proc`. A
/// folder with nothing hidden beneath it is one grant; a folder with something hidden beneath is
/// read and each entry judged on its own. Links are not followed: what a link leads to is
/// reachable through its own grant, and a link to a hidden file stays hidden.
pub fn read_grants(root: &Path, hidden: &[PathBuf]) -> Grants {
    let mut grants = Grants::default();
    walk(root, hidden, &mut grants);
    grants
}

/// What [`read_grants`] found: what to grant whole, and the folders it read entry by entry
/// (which may still be listed: a name is not its content).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Grants {
    /// Folders and files readable with everything beneath them.
    pub whole: Vec<PathBuf>,
    /// Folders that hold something hidden: listable, their entries granted one by one.
    pub listed: Vec<PathBuf>,
}

fn walk(path: &Path, hidden: &[PathBuf], grants: &mut Grants) {
    if hidden.iter().any(|h| h == path) || is_hidden_in_proc(path) {
        return;
    }
    let holds_hidden = path == Path::new(PROC)
        || hidden
            .iter()
            .any(|h| h.starts_with(path) && h.as_path() != path);
    if !holds_hidden {
        grants.whole.push(path.to_path_buf());
        return;
    }
    grants.listed.push(path.to_path_buf());
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_symlink()) {
            continue;
        }
        walk(&entry.path(), hidden, grants);
    }
}

fn is_hidden_in_proc(path: &Path) -> bool {
    path.parent() == Some(Path::new(PROC))
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|name| {
                name.bytes().all(|b| b.is_ascii_digit()) || PROC_HIDDEN.contains(&name)
            })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_but_the_hidden_paths_is_granted_and_links_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for folder in ["home/.ssh", "home/src/app", "etc"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        for file in [
            "home/.ssh/id_ed25519",
            "home/.ssh/config",
            "home/.bashrc",
            "etc/hosts",
        ] {
            std::fs::write(root.join(file), "x").unwrap();
        }
        std::os::unix::fs::symlink(
            root.join("home/.ssh/id_ed25519"),
            root.join("home/innocent"),
        )
        .unwrap();
        let hidden = vec![root.join("home/.ssh/id_ed25519")];
        let found = read_grants(&root, &hidden);
        let mut listed = found.listed.clone();
        listed.sort();
        assert_eq!(
            listed,
            [root.clone(), root.join("home"), root.join("home/.ssh")]
        );
        let mut grants = found.whole;
        grants.sort();
        let expected: Vec<PathBuf> = ["etc", "home/.bashrc", "home/.ssh/config", "home/src"]
            .iter()
            .map(|p| root.join(p))
            .collect();
        assert_eq!(grants, expected);
    }

    #[test]
    fn no_process_folder_in_proc_is_granted() {
        let grants = read_grants(Path::new("/proc"), &[]).whole;
        assert!(
            grants.contains(&PathBuf::from("/proc/cpuinfo")),
            "{grants:?}"
        );
        for grant in &grants {
            let name = grant.file_name().unwrap().to_str().unwrap();
            assert!(!name.bytes().all(|b| b.is_ascii_digit()), "{grant:?}");
            assert!(!PROC_HIDDEN.contains(&name), "{grant:?}");
        }
    }

    #[test]
    fn a_writable_folder_over_a_hidden_file_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let home = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(home.join(".cargo/registry")).unwrap();
        std::fs::write(home.join(".cargo/credentials.toml"), "x").unwrap();
        let mut policy = Policy {
            writable: vec![home.join(".cargo/registry")],
            readable: Vec::new(),
            hidden: vec![home.join(".cargo/credentials.toml")],
            network: true,
            unix_sockets: false,
            read_only: Vec::new(),
            masked: Vec::new(),
            replaced: Vec::new(),
            limits: Default::default(),
            namespaces: true,
        };
        assert_eq!(policy.writable_over(&policy.hidden()), None);
        policy.writable.push(home.join(".cargo"));
        assert_eq!(
            policy.writable_over(&policy.hidden()),
            Some((home.join(".cargo"), home.join(".cargo/credentials.toml")))
        );
    }
}
