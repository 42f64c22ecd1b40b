//! Processes working inside a folder (their working directory is in it), read from `/proc`:
//! a dev server a person started in a worktree, which removing the worktree would leave running
//! in a deleted folder. [`reap`] ends those that do not hold a terminal: SIGTERM, then SIGKILL
//! after a grace. A process in the foreground of a terminal, or a terminal's session leader (the
//! person's shell), is never ended: it is the person's, at their keyboard.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};

/// A process whose working directory is inside the folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Inside {
    /// Its process id.
    pub pid: u32,
    /// Its command line (or its name, when the command line cannot be read), for a sentence.
    pub command: String,
    /// Its working directory.
    pub cwd: PathBuf,
    /// Whether it holds a terminal: the foreground of one, or a terminal's session leader.
    pub holds_terminal: bool,
}

/// The processes other than this one whose working directory is `folder` or below it. Processes
/// of other users, and those that ended meanwhile, are not seen.
pub fn processes_inside(folder: &Path) -> Vec<Inside> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found: Vec<Inside> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter_map(|pid| {
            let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
            cwd.starts_with(folder).then(|| Inside {
                pid,
                command: command_of(pid),
                cwd,
                holds_terminal: holds_terminal(pid),
            })
        })
        .collect();
    found.sort_by_key(|p| p.pid);
    found
}

/// Ends each of `processes` that does not hold a terminal: SIGTERM to all, then SIGKILL to those
/// still there after `grace`. Returns the ones ended.
pub fn reap(processes: &[Inside], grace: Duration) -> Vec<Inside> {
    let targets: Vec<&Inside> = processes.iter().filter(|p| !p.holds_terminal).collect();
    for process in &targets {
        signal(process.pid, Signal::TERM);
    }
    let until = Instant::now() + grace;
    while Instant::now() < until && targets.iter().any(|p| alive(p.pid)) {
        std::thread::sleep(Duration::from_millis(50));
    }
    for process in &targets {
        if alive(process.pid) {
            signal(process.pid, Signal::KILL);
        }
    }
    targets.into_iter().cloned().collect()
}

fn signal(pid: u32, signal: Signal) {
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        // ESRCH (it ended meanwhile) is what was wanted.
        let _ = kill_process(pid, signal);
    }
}

/// Whether the process is still there and not a zombie waiting for its parent.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat_fields(&stat).map(|fields| fields.first().copied() != Some("Z")))
        .unwrap_or(false)
}

/// The fields of `/proc/PID/stat` after the command's name (which may hold spaces and
/// parentheses): state, ppid, pgrp, session, tty_nr, tpgid, ...
fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    let after = stat.rsplit_once(')')?.1;
    Some(after.split_whitespace().collect())
}

/// Whether the process has a controlling terminal and is in its foreground process group, or is
/// the session leader of that terminal (a shell).
fn holds_terminal(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let Some(fields) = stat_fields(&stat) else {
        return false;
    };
    let number = |index: usize| fields.get(index).and_then(|f| f.parse::<i64>().ok());
    let (Some(pgrp), Some(session), Some(tty), Some(foreground)) =
        (number(2), number(3), number(4), number(5))
    else {
        return false;
    };
    tty != 0 && (pgrp == foreground || i64::from(pid) == session)
}

fn command_of(pid: u32) -> String {
    let line = std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter(|part| !part.is_empty())
                .map(|part| String::from_utf8_lossy(part).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    if !line.is_empty() {
        return line.chars().take(120).collect();
    }
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|name| name.trim().to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_working_in_the_folder_is_found_and_reaped() {
        let folder = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .current_dir(folder.path())
            .stdin(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let folder = folder.path().canonicalize().unwrap();
        let found = processes_inside(&folder);
        let sleeping = found.iter().find(|p| p.pid == child.id()).expect("found");
        assert!(sleeping.command.starts_with("sleep 30"), "{sleeping:?}");
        assert!(
            !processes_inside(Path::new("/nonexistent-folder"))
                .iter()
                .any(|p| p.pid == child.id())
        );
        let reaped = reap(&found, Duration::from_secs(2));
        assert!(reaped.iter().any(|p| p.pid == child.id()));
        let status = child.wait().unwrap();
        assert!(!status.success(), "ended by a signal");
    }

    #[test]
    fn the_stat_line_is_read_past_a_name_with_spaces_and_parentheses() {
        let stat = "4242 (my (odd) name) S 1 4242 4242 34816 4242 4194560 0";
        let fields = stat_fields(stat).unwrap();
        assert_eq!(fields[0], "S");
        assert_eq!(fields[4], "34816");
    }
}
