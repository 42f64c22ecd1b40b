//! Landlock: confining the calling process (and everything it starts afterwards) to a
//! [`Policy`]. Reads are granted on everything but the hidden paths, writes only beneath the
//! writable folders, TCP only when the policy allows the network; signals and abstract sockets
//! cannot reach outside the sandbox, nor can ptrace (so no other process's memory or
//! environment). Confinement cannot be undone by the confined process.

use crate::Error;
use crate::policy::Policy;

/// Whether commands can be confined on this system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// Landlock is there, with this ABI version.
    Available {
        /// The ABI version the kernel offers (as far as nodwyn knows them).
        abi: u8,
    },
    /// It is not, and why, in words.
    Unavailable(String),
}

/// How the policy's read-only paths beneath a writable folder are kept read-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protection {
    /// Bound read-only in the command's own mount namespace: the writable folders are granted
    /// whole.
    Mounts,
    /// No namespace could be made: a writable folder holding one is granted entry by entry
    /// around it, so nothing can be made or removed directly in that folder.
    Landlock,
}

impl Availability {
    /// Whether commands can be confined.
    pub fn is_available(&self) -> bool {
        matches!(self, Availability::Available { .. })
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::path::Path;

    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
        RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
    };

    use super::{Availability, Protection};
    use crate::Error;
    use crate::policy::{DEVICES, Policy, UNLISTED, read_grants};

    /// The newest ABI nodwyn asks for; older kernels give what they have (see [`confine`]).
    const ABI_WANTED: ABI = ABI::V6;

    /// The first ABI that can refuse TCP.
    const ABI_NETWORK: ABI = ABI::V4;

    pub(super) fn availability() -> Availability {
        if !crate::seccomp::BUILT {
            return Availability::Unavailable(
                "nodwyn's socket filter is built for x86-64 and arm64 only".to_owned(),
            );
        }
        // Each ABI's ruleset is created as a hard requirement: the first the kernel accepts,
        // newest first, is the one it offers.
        for (abi, number) in [
            (ABI::V6, 6),
            (ABI::V5, 5),
            (ABI::V4, 4),
            (ABI::V3, 3),
            (ABI::V2, 2),
            (ABI::V1, 1),
        ] {
            let created = Ruleset::default()
                .set_compatibility(CompatLevel::HardRequirement)
                .handle_access(AccessFs::from_all(abi))
                .and_then(|ruleset| ruleset.create());
            if created.is_ok() {
                return Availability::Available { abi: number };
            }
        }
        Availability::Unavailable(
            "this kernel does not offer Landlock (Linux 5.13 or later, with Landlock enabled)"
                .to_owned(),
        )
    }

    /// The paths of `paths` that exist, as the kernel sees them (links resolved).
    fn existing<'a>(
        paths: impl IntoIterator<Item = &'a std::path::PathBuf>,
    ) -> Vec<std::path::PathBuf> {
        paths
            .into_iter()
            .filter_map(|path| std::fs::canonicalize(path).ok())
            .collect()
    }

    pub(super) fn confine(policy: &Policy, protection: Protection) -> Result<(), Error> {
        let sandbox = |e: &dyn std::fmt::Display| Error::Sandbox(e.to_string());
        let mut hidden = policy.hidden();
        if let Some((folder, over)) = policy.writable_over(&hidden) {
            return Err(Error::Sandbox(format!(
                "the writable folder {} holds {}, which must stay hidden",
                folder.display(),
                over.display()
            )));
        }
        // Masked files are the namespace's to hide; without one, they are hidden as the rest
        // are (and granted around below, where a writable folder holds them).
        let masked: Vec<std::path::PathBuf> = match protection {
            Protection::Mounts => Vec::new(),
            Protection::Landlock => existing(&policy.masked),
        };
        hidden.extend(masked.iter().cloned());
        // A file shown with other content is readable, as shown, in the namespace; without one,
        // it is hidden whole.
        if protection == Protection::Mounts {
            let shown = existing(policy.replaced.iter().map(|(path, _)| path));
            hidden.retain(|path| !shown.contains(path));
        }
        if protection == Protection::Landlock {
            hidden.extend(existing(policy.replaced.iter().map(|(path, _)| path)));
        }
        let all = AccessFs::from_all(ABI_WANTED);
        let read = AccessFs::from_read(ABI_WANTED);
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(all)
            .map_err(|e| sandbox(&e))?;
        if !policy.network {
            // The seccomp filter refuses every network socket; Landlock, where the kernel has
            // it, also refuses TCP.
            ruleset = ruleset
                .handle_access(AccessNet::from_all(ABI_NETWORK))
                .map_err(|e| sandbox(&e))?;
        }
        let mut created = ruleset
            .scope(Scope::from_all(ABI_WANTED))
            .map_err(|e| sandbox(&e))?
            .create()
            .map_err(|e| sandbox(&e))?;
        let grant = |created: landlock::RulesetCreated,
                     path: &Path,
                     access: landlock::BitFlags<AccessFs>| {
            match PathFd::new(path) {
                Ok(fd) => created
                    .add_rule(PathBeneath::new(fd, access))
                    .map_err(|e| Error::Sandbox(format!("{}: {e}", path.display()))),
                // Gone since it was listed: nothing to grant.
                Err(_) => Ok(created),
            }
        };
        let readable = policy
            .readable
            .iter()
            .filter_map(|folder| std::fs::canonicalize(folder).ok());
        for root in std::iter::once(std::path::PathBuf::from("/")).chain(readable) {
            let grants = read_grants(&root, &hidden);
            for path in &grants.whole {
                created = grant(created, path, read)?;
            }
            // A folder holding a hidden file can still be listed (a name is not its content),
            // unless it holds a folder that must not be listed: listing is granted to everything
            // beneath, so `/` itself stays unlisted for `/tmp`'s sake, and `/proc` for its pids.
            let never_listed = || UNLISTED.iter().chain(std::iter::once(&"/proc"));
            for folder in grants
                .listed
                .iter()
                .filter(|folder| !never_listed().any(|u| Path::new(u).starts_with(folder)))
            {
                created = grant(created, folder, AccessFs::ReadDir.into())?;
            }
        }
        let by_name = AccessFs::ReadFile | AccessFs::Execute;
        for folder in UNLISTED
            .iter()
            .filter_map(|f| std::fs::canonicalize(f).ok())
        {
            let others: Vec<std::path::PathBuf> =
                hidden.iter().filter(|h| **h != folder).cloned().collect();
            // Entries by name only: these folders are never listed.
            for path in read_grants(&folder, &others).whole {
                created = grant(created, &path, by_name)?;
            }
        }
        for device in DEVICES {
            created = grant(
                created,
                Path::new(device),
                AccessFs::ReadFile | AccessFs::WriteFile,
            )?;
        }
        let read_only: Vec<std::path::PathBuf> = match protection {
            Protection::Mounts => Vec::new(),
            Protection::Landlock => existing(policy.read_only.iter().chain(&masked)),
        };
        for folder in &policy.writable {
            let canonical = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.clone());
            let kept: Vec<std::path::PathBuf> = read_only
                .iter()
                .filter(|path| path.starts_with(&canonical))
                .cloned()
                .collect();
            if kept.is_empty() {
                created = grant(created, folder, all)?;
                continue;
            }
            // Landlock gives a folder's rights to everything beneath it, so a folder holding a
            // read-only path is granted around it, entry by entry: what is in it can be written,
            // but nothing is made or removed directly in it (that right would reach the
            // read-only path too).
            for path in read_grants(&canonical, &kept).whole {
                created = grant(created, &path, all)?;
            }
            // The read-only paths themselves stay readable (the folder may be beneath a hidden
            // one, as a worktree beneath its main checkout), all but the hidden ones.
            for path in kept.iter().filter(|path| !hidden.contains(path)) {
                created = grant(created, path, read)?;
            }
        }
        let status = created.restrict_self().map_err(|e| sandbox(&e))?;
        if status.ruleset == RulesetStatus::NotEnforced {
            return Err(Error::Sandbox(
                "this kernel does not enforce Landlock".to_owned(),
            ));
        }
        if !(policy.unix_sockets && policy.network) {
            crate::seccomp::install(crate::seccomp::Sockets {
                unix: policy.unix_sockets,
                network: policy.network,
            })?;
        }
        Ok(())
    }
}

/// Whether commands can be confined here (Linux with Landlock).
pub fn availability() -> Availability {
    #[cfg(target_os = "linux")]
    {
        linux::availability()
    }
    #[cfg(not(target_os = "linux"))]
    {
        Availability::Unavailable("confinement is built on Linux's Landlock".to_owned())
    }
}

/// Confines the calling thread, and every process it starts from now on, to `policy`, its
/// read-only paths kept so by `protection`. Call it from a process with one thread (the exec
/// step does, before it becomes the command).
pub(crate) fn confine(policy: &Policy, protection: Protection) -> Result<(), Error> {
    #[cfg(target_os = "linux")]
    {
        linux::confine(policy, protection)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (policy, protection);
        Err(Error::Sandbox(
            "confinement is built on Linux's Landlock".to_owned(),
        ))
    }
}
