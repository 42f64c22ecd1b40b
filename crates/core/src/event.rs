//! The records of a session's event log. Their types are the protocol's
//! ([`nodwyn_protocol::record`]): core writes them, every front-end reads them. Here are the
//! conversions from what the guard and the primitives report into those records.

pub use nodwyn_protocol::record::{
    Answer, AskKind, DecidedBy, Event, GuardVerdict, IncludeFailure, LandOutcome, Push, RanOn,
    Record, RemovalSnapshot, RemovedBy, WorktreeFacts,
};

use crate::clock::Timestamp;

impl From<Timestamp> for String {
    fn from(at: Timestamp) -> String {
        at.rfc3339()
    }
}

/// The guard's verdict as `guard.decision` keeps it.
pub(crate) fn verdict_record(verdict: &nodwyn_guard::Verdict) -> GuardVerdict {
    GuardVerdict {
        answer: match verdict.decision {
            nodwyn_guard::Decision::Allow => Answer::Allow,
            nodwyn_guard::Decision::Ask(nodwyn_guard::AskKind::Ordinary) => {
                Answer::Ask(AskKind::Ordinary)
            }
            nodwyn_guard::Decision::Ask(nodwyn_guard::AskKind::Security) => {
                Answer::Ask(AskKind::Security)
            }
            nodwyn_guard::Decision::Refuse => Answer::Refuse,
        },
        by: match &verdict.by {
            nodwyn_guard::DecidedBy::Rule => DecidedBy::Rule,
            nodwyn_guard::DecidedBy::StandingAnswer => DecidedBy::StandingAnswer,
            nodwyn_guard::DecidedBy::DontAsk(who) => DecidedBy::DontAsk(who.clone()),
            nodwyn_guard::DecidedBy::Judge => DecidedBy::Judge,
            nodwyn_guard::DecidedBy::Person => DecidedBy::Person,
        },
        why: verdict.why.clone(),
    }
}

/// A push a primitive made, as `git.push` keeps it.
pub(crate) fn push_record(push: nodwyn_prim::Push) -> Push {
    Push {
        remote: push.remote,
        urls: push.urls,
        reference: push.reference,
        old: push.old,
        new: push.new,
    }
}

/// How a landing ended, as `land.end` keeps it.
pub(crate) fn outcome_record(outcome: nodwyn_prim::LandOutcome) -> LandOutcome {
    match outcome {
        nodwyn_prim::LandOutcome::Landed => LandOutcome::Landed,
        nodwyn_prim::LandOutcome::Refused => LandOutcome::Refused,
        nodwyn_prim::LandOutcome::Failed => LandOutcome::Failed,
        nodwyn_prim::LandOutcome::Interrupted => LandOutcome::Interrupted,
        nodwyn_prim::LandOutcome::Aborted => LandOutcome::Aborted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_with_their_type_names() {
        let record = Record::new(
            Timestamp::from_unix_millis(0),
            Event::WorktreeKeep {
                path: "/r/.nodwyn/worktrees/1968c13a".into(),
                branch: "nodwyn/1968c13a".into(),
            },
        );
        let line = serde_json::to_string(&record).unwrap();
        assert_eq!(
            line,
            r#"{"at":"1970-01-01T00:00:00.000Z","type":"worktree.keep","path":"/r/.nodwyn/worktrees/1968c13a","branch":"nodwyn/1968c13a"}"#
        );
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), record);
    }

    #[test]
    fn a_guard_decision_round_trips_flat() {
        use nodwyn_guard::{AskKind, DecidedBy, Decision, Verdict};
        let record = Record::new(
            Timestamp::from_unix_millis(0),
            Event::GuardDecision {
                action: "git-land nodwyn/1968c13a onto main".into(),
                verdict: verdict_record(&Verdict {
                    decision: Decision::Ask(AskKind::Security),
                    by: DecidedBy::DontAsk("ann".into()),
                    why: "pushes".into(),
                }),
            },
        );
        let line = serde_json::to_string(&record).unwrap();
        assert_eq!(
            line,
            r#"{"at":"1970-01-01T00:00:00.000Z","type":"guard.decision","action":"git-land nodwyn/1968c13a onto main","answer":"ask","kind":"security","by":"dont_ask","who":"ann","why":"pushes"}"#
        );
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), record);
    }

    #[test]
    fn the_landing_journal_round_trips_with_its_names() {
        let records = [
            (
                Event::LandBegin {
                    head: "aaaa".into(),
                    strategy: "squash".into(),
                },
                r#"{"at":"1970-01-01T00:00:00.000Z","type":"land.begin","head":"aaaa","strategy":"squash"}"#,
            ),
            (
                Event::LandBackup {
                    reference: "refs/nodwyn/backup/1968c13a/1".into(),
                    commit: "bbbb".into(),
                },
                r#"{"at":"1970-01-01T00:00:00.000Z","type":"land.backup","ref":"refs/nodwyn/backup/1968c13a/1","commit":"bbbb"}"#,
            ),
            (
                Event::LandMove {
                    from: "bbbb".into(),
                    to: "cccc".into(),
                },
                r#"{"at":"1970-01-01T00:00:00.000Z","type":"land.move","from":"bbbb","to":"cccc"}"#,
            ),
            (
                Event::LandEnd {
                    outcome: LandOutcome::Interrupted,
                    why: None,
                },
                r#"{"at":"1970-01-01T00:00:00.000Z","type":"land.end","outcome":"interrupted"}"#,
            ),
            (
                Event::WorktreeOnto {
                    base: "main".into(),
                    base_remote: Some("origin".into()),
                },
                r#"{"at":"1970-01-01T00:00:00.000Z","type":"worktree.onto","base":"main","base_remote":"origin"}"#,
            ),
        ];
        for (event, expected) in records {
            let record = Record::new(Timestamp::from_unix_millis(0), event);
            let line = serde_json::to_string(&record).unwrap();
            assert_eq!(line, expected);
            assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), record);
        }
    }

    #[test]
    fn unknown_kinds_are_read_as_other() {
        let line = r#"{"type":"agent.dream","at":"2026-10-02T05:44:07.000Z","answer":"allow"}"#;
        let record: Record = serde_json::from_str(line).unwrap();
        assert_eq!(record.event, Event::Other);
    }
}
