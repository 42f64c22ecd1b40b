//! The resource limits of a confined command: how many processes and threads its tree may have,
//! how large a file it may write, how much memory one of its processes may take. Each is a
//! `setrlimit` the exec step makes before the command starts, so everything it starts inherits
//! them.
//!
//! The process count is the kernel's `RLIMIT_NPROC`, which counts per user namespace: inside the
//! namespace of the command's own (see `crate::namespace`) it counts only the command's tree, and
//! holds even for root. Where no namespace could be made it counts every process of the person's
//! user, so it is a ceiling against a fork bomb rather than a budget.

use serde::{Deserialize, Serialize};

/// The limits of one command; `None` leaves a limit as nodwyn's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Processes and threads at once (`RLIMIT_NPROC`).
    #[serde(default)]
    pub processes: Option<u64>,
    /// The largest file it may write, in bytes (`RLIMIT_FSIZE`: a write past it fails, and the
    /// writer gets `SIGXFSZ`).
    #[serde(default)]
    pub file_size: Option<u64>,
    /// The data one process may hold, in bytes (`RLIMIT_DATA`: heap and private writable
    /// mappings, not the address space a runtime reserves and never touches).
    #[serde(default)]
    pub memory: Option<u64>,
}

impl Limits {
    /// The limits every command gets unless the person sets others: 2,048 processes and threads,
    /// files of 16 GiB, and half the machine's memory for one process.
    pub fn defaults() -> Self {
        Self {
            processes: Some(2048),
            file_size: Some(16 << 30),
            memory: physical_memory().map(|bytes| bytes / 2),
        }
    }

    /// Sets each limit on the calling process (and so on what it starts). A limit above the
    /// process's own hard limit is lowered to it.
    pub(crate) fn apply(&self) -> Result<(), String> {
        use rustix::process::{Resource, getrlimit, setrlimit};
        for (resource, value, name) in [
            (Resource::Nproc, self.processes, "processes"),
            (Resource::Fsize, self.file_size, "file size"),
            (Resource::Data, self.memory, "memory"),
        ] {
            let Some(value) = value else { continue };
            let mut limit = getrlimit(resource);
            let value = limit.maximum.map_or(value, |hard| hard.min(value));
            limit.current = Some(value);
            limit.maximum = Some(value);
            setrlimit(resource, limit).map_err(|e| format!("the {name} limit: {e}"))?;
        }
        Ok(())
    }
}

/// The machine's memory, from `/proc/meminfo`.
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_bound_processes_files_and_memory() {
        let limits = Limits::defaults();
        assert_eq!(limits.processes, Some(2048));
        assert_eq!(limits.file_size, Some(16 << 30));
        assert!(limits.memory.is_some_and(|m| m > 1 << 20), "{limits:?}");
    }
}
