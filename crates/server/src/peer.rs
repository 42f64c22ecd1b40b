//! Who is at the other end of a connection: whether a process descends from this one, or from
//! any other run of nodwyn's own program. An agent's command is the child (or the child's
//! child) of the engine that runs it, this daemon or another (`nodwyn acp`, `chat`, `run`), and
//! an answer from it would approve the agent's own calls; what it asks only a person may ask is
//! refused, and its answers do not count.

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

/// Whether an ancestor of process `pid` (not `pid` itself: the person's `nodwyn chat` is a
/// client) runs nodwyn's own program, `program`: the same file, or one of the same path that
/// was rebuilt since it started.
pub(crate) fn started_by_program(pid: i32, program: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let ours = std::fs::metadata(program).ok().map(|m| (m.dev(), m.ino()));
    let mut current = pid;
    for _ in 0..4096 {
        match parent_of(current) {
            Some(parent) if parent > 0 && parent != current => current = parent,
            _ => return false,
        }
        let exe = PathBuf::from(format!("/proc/{current}/exe"));
        let same_file =
            ours.is_some() && std::fs::metadata(&exe).ok().map(|m| (m.dev(), m.ino())) == ours;
        let same_path = std::fs::read_link(&exe).is_ok_and(|target| {
            let shown = target.to_string_lossy();
            std::path::Path::new(shown.trim_end_matches(" (deleted)")) == program
        });
        if same_file || same_path {
            return true;
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

    #[test]
    fn a_child_of_a_run_of_this_program_is_known_by_its_ancestor_and_the_run_itself_is_not() {
        let program = std::env::current_exe().unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        assert!(started_by_program(child.id() as i32, &program));
        assert!(!started_by_program(std::process::id() as i32, &program));
        assert!(!started_by_program(
            child.id() as i32,
            std::path::Path::new("/bin/nothing-like-it")
        ));
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
