//! Who is at the other end of a connection: whether a process descends from this one. An
//! agent's command is this process's child (or its child's), and an answer from it would
//! approve the agent's own calls; its answers do not count.

use std::path::PathBuf;

/// Whether process `pid` is `ancestor` or descends from it, as `/proc` tells now.
pub(crate) fn started_by(pid: i32, ancestor: u32) -> bool {
    let mut current = pid;
    for _ in 0..4096 {
        if current as u32 == ancestor {
            return true;
        }
        match parent_of(current) {
            Some(parent) if parent > 0 && parent != current => current = parent,
            _ => return false,
        }
    }
    false
}

/// The parent of process `pid` (`PPid` of `/proc/PID/status`).
fn parent_of(pid: i32) -> Option<i32> {
    let status = std::fs::read_to_string(PathBuf::from(format!("/proc/{pid}/status"))).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("PPid:"))
        .and_then(|value| value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_descends_from_its_parent_and_not_the_other_way() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let me = std::process::id();
        assert!(started_by(child.id() as i32, me));
        assert!(!started_by(me as i32, child.id()));
        assert!(!started_by(1, me));
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
