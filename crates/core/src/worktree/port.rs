//! A port per worktree session: a dev server started in the worktree listens on its own port
//! instead of fighting the main checkout's for the usual one. The port comes from the branch's
//! name (the same branch asks for the same port), is recorded in the worktree's facts when the
//! session is made (so it stays the same when the session is resumed), and is never one that
//! another session of the repository whose worktree is still there holds, nor one something on
//! this machine listens on when it is chosen.

use std::collections::BTreeSet;

pub use nodwyn_protocol::settings::PortRange;

use crate::session::{Session, WorktreeState};

/// The variable a worktree session's commands and hooks find its port in.
pub const PORT_VARIABLE: &str = "NODWYN_PORT";

/// The ports `sessions` (a repository's) hold: those whose worktree nodwyn still has (open or
/// closed, since a closed one can be resumed).
pub(crate) fn held_ports(sessions: &[Session]) -> BTreeSet<u16> {
    sessions
        .iter()
        .filter(|s| s.worktree_state == WorktreeState::Active)
        .filter_map(|s| s.worktree.as_ref()?.port)
        .collect()
}

/// The port for `branch`: where its name falls in `range`, else the next one (wrapping round)
/// that is neither `held` nor in use on this machine; `None` when the whole range is taken.
pub(crate) fn choose(branch: &str, range: PortRange, held: &BTreeSet<u16>) -> Option<u16> {
    choose_with(branch, range, held, free_here)
}

fn choose_with(
    branch: &str,
    range: PortRange,
    held: &BTreeSet<u16>,
    free: impl Fn(u16) -> bool,
) -> Option<u16> {
    let size = u64::from(range.last - range.first) + 1;
    let start = fnv1a(branch.as_bytes()) % size;
    (0..size)
        .map(|step| range.first + ((start + step) % size) as u16)
        .find(|port| !held.contains(port) && free(*port))
}

/// Whether nothing listens on `port` on this machine's loopback now (binding it succeeds).
fn free_here(port: u16) -> bool {
    std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// 64-bit FNV-1a: a stable hash of the branch's name (the standard library's is seeded).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_branch_asks_for_the_same_port_every_time_and_within_the_range() {
        let range = PortRange {
            first: 10000,
            last: 19999,
        };
        let held = BTreeSet::new();
        let port = choose_with("nodwyn/fix-1968c13a", range, &held, |_| true).unwrap();
        assert!((10000..=19999).contains(&port));
        assert_eq!(
            choose_with("nodwyn/fix-1968c13a", range, &held, |_| true),
            Some(port)
        );
        assert_ne!(
            choose_with("nodwyn/other-2b7e4c1d", range, &held, |_| true),
            Some(port)
        );
    }

    #[test]
    fn a_held_port_or_one_in_use_is_passed_over_wrapping_round() {
        let range = PortRange {
            first: 20000,
            last: 20002,
        };
        let wanted = choose_with("b", range, &BTreeSet::new(), |_| true).unwrap();
        let held = BTreeSet::from([wanted]);
        let next = choose_with("b", range, &held, |_| true).unwrap();
        assert_ne!(next, wanted);
        let in_use = |port: u16| port != next;
        let third = choose_with("b", range, &held, in_use).unwrap();
        assert!(third != wanted && third != next);
        let all = BTreeSet::from([20000, 20001, 20002]);
        assert_eq!(choose_with("b", range, &all, |_| true), None);
    }

    #[test]
    fn ranges_are_read_and_bad_ones_said() {
        assert_eq!(
            "10000-10009".parse::<PortRange>(),
            Ok(PortRange {
                first: 10000,
                last: 10009
            })
        );
        for bad in ["80-90", "20000-10000", "10000", "a-b", "10000-70000"] {
            let error = bad.parse::<PortRange>().unwrap_err();
            assert!(error.contains("FIRST-LAST"), "{error}");
        }
    }
}
