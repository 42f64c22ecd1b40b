//! What a supervisor that died leaves behind. The supervisor ends its command's whole tree, but
//! if it is killed itself (by the out-of-memory killer, or by a command on a kernel whose
//! Landlock cannot scope signals), what the command detached would live on under init. So nodwyn
//! is a child subreaper too: such orphans come back to it, and after every confined command it
//! ends those of its children that live in a command's namespace (see `crate::namespace`).
//!
//! A child is told apart by its user namespace: nodwyn makes one only for a confined command, so
//! a child in another namespace than nodwyn's is part of a command's tree. Everything else that
//! comes back to nodwyn (a credential cache or an ssh connection git left running) is left
//! alone, as it would have been under init.

use std::path::PathBuf;
use std::sync::Once;
use std::time::{Duration, Instant};

/// How long ending the orphans may take before nodwyn gives up on them.
const GIVE_UP_AFTER: Duration = Duration::from_secs(5);

/// Makes nodwyn a child subreaper, once.
pub(crate) fn adopt() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Err(e) = rustix::process::set_child_subreaper(Some(rustix::process::getpid())) {
            tracing::warn!(%e, "nodwyn cannot be a child subreaper");
        }
    });
}

/// Kills and reaps every child of nodwyn's that lives in a command's namespace, until none is
/// left; returns how many there were.
pub(crate) fn end() -> usize {
    let Ok(own) = std::fs::read_link("/proc/self/ns/user") else {
        return 0;
    };
    let started = Instant::now();
    let mut ended = 0;
    loop {
        let orphans: Vec<i32> = children()
            .into_iter()
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/ns/user")).is_ok_and(|ns| ns != own)
            })
            .collect();
        if orphans.is_empty() {
            return ended;
        }
        for pid in &orphans {
            let Some(pid) = rustix::process::Pid::from_raw(*pid) else {
                continue;
            };
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            if rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty()).is_ok() {
                ended += 1;
            }
        }
        if started.elapsed() > GIVE_UP_AFTER {
            tracing::warn!("a dead supervisor's processes could not all be ended");
            return ended;
        }
    }
}

/// nodwyn's children, from every thread's list (an orphan comes back to one of its threads).
fn children() -> Vec<i32> {
    let tasks: Vec<PathBuf> = std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
        .map(|task| task.path().join("children"))
        .collect();
    tasks
        .iter()
        .filter_map(|list| std::fs::read_to_string(list).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}
