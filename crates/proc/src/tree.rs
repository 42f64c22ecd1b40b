//! Ending everything a command started. The supervisor is a child subreaper: whatever its
//! command leaves behind, however detached (`setsid`, a double fork, `nohup`), is reparented to
//! it rather than to init, so its own list of children is the whole tree left. That list is read
//! from `/proc/<pid>/task/<pid>/children`, opened before confinement (a confined process may not
//! open anything under `/proc/<pid>`).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions};

/// How long ending a tree may take before the supervisor gives up (a tree forking faster than
/// it can be killed); what is left then is reported by the caller's own group kill.
const GIVE_UP_AFTER: Duration = Duration::from_secs(5);

/// The supervisor's list of its own children.
pub(crate) struct Children(File);

impl Children {
    /// Opens the list; call before confinement.
    pub(crate) fn open() -> std::io::Result<Self> {
        let pid = std::process::id();
        File::open(format!("/proc/{pid}/task/{pid}/children")).map(Self)
    }

    fn list(&mut self) -> Vec<Pid> {
        let mut text = String::new();
        if self.0.seek(SeekFrom::Start(0)).is_err() || self.0.read_to_string(&mut text).is_err() {
            return Vec::new();
        }
        text.split_whitespace()
            .filter_map(|pid| pid.parse().ok())
            .filter_map(Pid::from_raw)
            .collect()
    }

    /// Kills every process still in the tree and reaps it, until none is left: each round kills
    /// the children there are, and what they had started comes back as children in the next.
    pub(crate) fn end_all(&mut self) {
        let started = Instant::now();
        loop {
            let children = self.list();
            for pid in &children {
                // ESRCH: it ended on its own meanwhile.
                let _ = rustix::process::kill_process(*pid, Signal::KILL);
            }
            let mut reaped = false;
            loop {
                match rustix::process::wait(WaitOptions::NOHANG) {
                    Ok(Some(_)) => reaped = true,
                    Ok(None) => break,
                    // No child at all: the tree is gone.
                    Err(_) if children.is_empty() => return,
                    Err(_) => break,
                }
            }
            if started.elapsed() > GIVE_UP_AFTER {
                tracing::warn!("a command's processes could not all be ended");
                return;
            }
            if !reaped {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}
