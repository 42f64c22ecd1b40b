//! Who is at the other end of a connection: whether a process descends from this one, or from
//! any other run of nodwyn's own program. An agent's command is the child (or the child's
//! child) of the engine that runs it, this daemon or another (`nodwyn acp`, `chat`, `run`), and
//! an answer from it would approve the agent's own calls; what it asks only a person may ask is
//! refused, and its answers do not count. Where `/proc` cannot tell (a read that fails, as when
//! the daemon has run out of file handles), a process counts as an agent's: the check fails
//! closed.

use std::path::PathBuf;

/// Whether process `pid` descends from this process or from another run of nodwyn's program:
/// an agent's command, whose answers must not count.
pub(crate) fn started_by_agent(pid: i32) -> bool {
    started_by(pid, std::process::id())
        || std::env::current_exe().map_or(true, |program| started_by_program(pid, &program))
}

/// Whether process `pid` is `ancestor` or descends from it, as `/proc` tells now.
pub(crate) fn started_by(pid: i32, ancestor: u32) -> bool {
    let mut current = pid;
    for _ in 0..4096 {
        if current as u32 == ancestor {
            return true;
        }
        match parent_of(current) {
            Some(parent) if parent > 0 && parent != current => current = parent,
            // The top of the tree, and `ancestor` was not on the way.
            Some(_) => return false,
            None => return true,
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
            Some(_) => return false,
            None => return true,
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

/// The process whose TCP connection goes from `remote` to `local` on this machine, by the
/// socket's inode in `/proc/net/tcp` (or `tcp6`) and the process holding it; `None` when
/// `/proc` does not say.
pub(crate) fn tcp_peer(local: std::net::SocketAddr, remote: std::net::SocketAddr) -> Option<i32> {
    let (table, shown) = match (remote.ip(), local.ip()) {
        (std::net::IpAddr::V4(from), std::net::IpAddr::V4(to)) => (
            "/proc/net/tcp",
            (hex_v4(from, remote.port()), hex_v4(to, local.port())),
        ),
        (std::net::IpAddr::V6(from), std::net::IpAddr::V6(to)) => (
            "/proc/net/tcp6",
            (hex_v6(from, remote.port()), hex_v6(to, local.port())),
        ),
        _ => return None,
    };
    let inode = std::fs::read_to_string(table)
        .ok()?
        .lines()
        .skip(1)
        .find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.get(1) == Some(&shown.0.as_str()) && fields.get(2) == Some(&shown.1.as_str()))
                .then(|| fields.get(9).map(|inode| (*inode).to_owned()))
                .flatten()
        })?;
    let wanted = format!("socket:[{inode}]");
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = process
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if std::fs::read_link(fd.path())
                .is_ok_and(|target| target.as_os_str() == wanted.as_str())
            {
                return Some(pid);
            }
        }
    }
    None
}

/// An IPv4 address and port as `/proc/net/tcp` prints them.
fn hex_v4(ip: std::net::Ipv4Addr, port: u16) -> String {
    format!("{:08X}:{port:04X}", u32::from_le_bytes(ip.octets()))
}

/// An IPv6 address and port as `/proc/net/tcp6` prints them.
fn hex_v6(ip: std::net::Ipv6Addr, port: u16) -> String {
    let words: String = ip
        .octets()
        .chunks(4)
        .map(|word| {
            format!(
                "{:08X}",
                u32::from_le_bytes([word[0], word[1], word[2], word[3]])
            )
        })
        .collect();
    format!("{words}:{port:04X}")
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
        // A process `/proc` cannot tell about counts as an agent's.
        assert!(started_by(i32::MAX, me));
        assert!(started_by_program(
            i32::MAX,
            &std::env::current_exe().unwrap()
        ));
    }

    #[test]
    fn a_loopback_connection_is_traced_to_the_process_that_holds_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (_server_side, remote) = listener.accept().unwrap();
        assert_eq!(
            tcp_peer(listener.local_addr().unwrap(), remote),
            Some(std::process::id() as i32)
        );
        drop(client);
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
