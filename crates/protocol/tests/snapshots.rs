//! The JSON of every message type, snapshot-tested: a changed field shows up as a reviewed diff
//! in `tests/snapshots/`. Each value also reads back as itself.

use nodwyn_protocol::{
    Approval, ApprovalKind, ChangeScope, Decision, Envelope, Hello, Item, ModelCall, Notification,
    PlanStatus, PlanStep, Request, Response, ServerRequest, ToolCallItem, TurnEnd, TurnUsage,
    WorktreeMode,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

fn shown<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(values: &[T]) -> String {
    values
        .iter()
        .map(|value| {
            let text = serde_json::to_string(value).unwrap();
            let back: T = serde_json::from_str(&text).unwrap();
            assert_eq!(&back, value, "{text}");
            text
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn requests() {
    let requests = vec![
        Request::Hello {
            client: "nodwyn-run 0.1.0".into(),
        },
        Request::SessionOpen {
            repo: "/src/app".into(),
            worktree: WorktreeMode::Auto,
            base: Some("main".into()),
            name: None,
        },
        Request::SessionList {
            repo: "/src/app".into(),
        },
        Request::RepositoryList {},
        Request::ApprovalWatch {},
        Request::SessionEvents {
            session: "1968c13a".into(),
            after: Some(41),
        },
        Request::SessionSubscribe {
            session: "1968c13a".into(),
            after: None,
        },
        Request::SessionUnsubscribe {
            session: "1968c13a".into(),
        },
        Request::SessionResume {
            session: "1968c13a".into(),
        },
        Request::SessionClose {
            session: "1968c13a".into(),
        },
        Request::WorktreeOpen {
            repo: "/src/app".into(),
            base: None,
            name: Some("fix".into()),
        },
        Request::WorktreeList {
            repo: "/src/app".into(),
        },
        Request::WorktreeRemove {
            session: "1968c13a".into(),
            force: false,
        },
        Request::WorktreeDiff {
            session: "1968c13a".into(),
        },
        Request::WorktreeChanges {
            session: "1968c13a".into(),
            scope: ChangeScope::LastTurn,
        },
        Request::WorktreeScan {
            session: "1968c13a".into(),
        },
        Request::WorktreeReview {
            session: "1968c13a".into(),
            note: Some("Close.".into()),
            comments: vec![nodwyn_protocol::LineComment {
                path: "src/app.rs".into(),
                line: 12,
                text: "why this?".into(),
                line_text: Some("let total = parts.len();".into()),
            }],
            file_comments: vec![nodwyn_protocol::FileComment {
                path: "README.md".into(),
                text: "mention it".into(),
            }],
        },
        Request::RunStart {
            repo: "/src/app".into(),
            task: "fix the failing test".into(),
            worktree: WorktreeMode::Always,
            model: Some("claude".into()),
        },
        Request::TurnStart {
            session: "1968c13a".into(),
            text: "and land it".into(),
        },
        Request::TurnInterrupt {
            session: "1968c13a".into(),
        },
        Request::SessionStayInCheckout {
            session: "1968c13a".into(),
        },
        Request::SessionLand {
            session: "1968c13a".into(),
            message: "Add the notes".into(),
        },
        Request::SessionDontAsk {
            session: "1968c13a".into(),
            on: true,
        },
    ];
    let enveloped: Vec<Envelope<Request>> = requests
        .into_iter()
        .enumerate()
        .map(|(id, message)| Envelope {
            id: id as u64,
            message,
        })
        .collect();
    insta::assert_snapshot!(shown(&enveloped));
}

#[test]
fn responses() {
    insta::assert_snapshot!(shown(&[
        Envelope {
            id: 0,
            message: Response::Result(
                serde_json::to_value(Hello {
                    protocol: nodwyn_protocol::VERSION,
                    engine: "nodwyn 0.1.0".into(),
                    methods: vec!["hello".into(), "turn.start".into()],
                    data: Some("/home/person/.local/share/nodwyn".into()),
                })
                .unwrap()
            ),
        },
        Envelope {
            id: 1,
            message: Response::Error {
                code: "worktree_dirty".into(),
                message: "the worktree has uncommitted changes".into(),
            },
        },
    ]));
}

#[test]
fn notifications() {
    let usage = TurnUsage {
        model_calls: 2,
        input_tokens: 1200,
        output_tokens: 80,
    };
    insta::assert_snapshot!(shown(&[
        Notification::SessionStarted {
            session: "20261201T000000Z-1968c13a".into(),
            root: "/src/app".into(),
            branch: None,
        },
        Notification::SessionWorktree {
            session: "20261201T000000Z-1968c13a".into(),
            root: "/src/app/.nodwyn/worktrees/1968c13a".into(),
            branch: "nodwyn/1968c13a".into(),
            uncommitted: 2,
        },
        Notification::TurnStarted {
            session: "20261201T000000Z-1968c13a".into(),
            turn: 1,
        },
        Notification::ItemStarted {
            item: "1.1".into(),
            kind: "assistant_message".into(),
            tool: None,
        },
        Notification::ItemDelta {
            item: "1.1".into(),
            text: "Let me ".into(),
        },
        Notification::TurnPlan {
            session: "20261201T000000Z-1968c13a".into(),
            steps: vec![
                PlanStep {
                    step: "Plan with the planner".into(),
                    status: PlanStatus::Completed,
                },
                PlanStep {
                    step: "Implement and run the tests".into(),
                    status: PlanStatus::InProgress,
                },
                PlanStep {
                    step: "Review with the reviewer".into(),
                    status: PlanStatus::Pending,
                },
            ],
        },
        Notification::ItemReasoning {
            item: "1.1".into(),
            text: "The test compares totals in cents; ".into(),
        },
        Notification::ItemCompleted {
            item: "1.1".into(),
            agent: None,
            value: Item::AssistantMessage {
                text: "Let me read it.".into(),
                tool_calls: vec![ToolCallItem {
                    call_id: "call_0".into(),
                    tool: "fs-read".into(),
                    arguments: json!({"path": "src/lib.rs"}),
                }],
            },
        },
        Notification::ItemStarted {
            item: "1.2".into(),
            kind: "tool_call".into(),
            tool: Some("fs-read".into()),
        },
        Notification::ItemCompleted {
            item: "1.2".into(),
            agent: None,
            value: Item::ToolResult {
                call_id: "call_0".into(),
                tool: "fs-read".into(),
                ok: false,
                content: "refused_by_guard: reading .env was refused".into(),
                decision: Some("refuse by rule: .env is a credential file".into()),
            },
        },
        Notification::ItemCompleted {
            item: "1.3".into(),
            agent: None,
            value: Item::UserMessage {
                text: "fix it".into()
            },
        },
        Notification::ItemCompleted {
            item: "1.4".into(),
            agent: None,
            value: Item::Notice {
                text: "switched to worktree".into()
            },
        },
        Notification::ModelCalled(ModelCall {
            model: "qwen at http://127.0.0.1:11434".into(),
            input_tokens: 600,
            output_tokens: 40,
            stop: "tool_use".into(),
            first_output_ms: Some(120),
            tries: 1,
        }),
        Notification::TurnCompleted {
            session: "20261201T000000Z-1968c13a".into(),
            turn: 1,
            end: TurnEnd::Finished,
            usage,
            answer: "Fixed and landed.".into(),
        },
        Notification::TurnCompleted {
            session: "20261201T000000Z-1968c13a".into(),
            turn: 2,
            end: TurnEnd::Limit {
                why: "--max-turns 3 reached".into()
            },
            usage,
            answer: String::new(),
        },
        Notification::TurnCompleted {
            session: "20261201T000000Z-1968c13a".into(),
            turn: 3,
            end: TurnEnd::Interrupted,
            usage,
            answer: String::new(),
        },
        Notification::TurnCompleted {
            session: "20261201T000000Z-1968c13a".into(),
            turn: 4,
            end: TurnEnd::Failed {
                why: "could not reach the model server".into()
            },
            usage,
            answer: String::new(),
        },
        Notification::TurnCompleted {
            session: "20261201T000000Z-1968c13a".into(),
            turn: 5,
            end: TurnEnd::Refused,
            usage,
            answer: "I can't help with that.".into(),
        },
        Notification::SessionRecord {
            record: nodwyn_protocol::record::Record::new(
                "2026-12-01T00:00:00.000Z",
                nodwyn_protocol::record::Event::ApprovalTimedOut {
                    request: "approval-3".into(),
                    action: "fs-write notes.txt".into(),
                    waited_seconds: 600,
                },
            ),
        },
        Notification::ApprovalResolved {
            request: "approval-3".into(),
            decision: Decision::Allow,
            reason: None,
        },
        Notification::ApprovalResolved {
            request: "approval-4".into(),
            decision: Decision::Cancel,
            reason: Some("interrupted".into()),
        },
        Notification::Resync {
            after: 5,
            from: 21,
            why: "30 events follow the cursor, more than the 10 sent again".into(),
        },
    ]));
}

#[test]
fn requests_to_the_client() {
    insta::assert_snapshot!(shown(&[Envelope {
        id: 7,
        message: ServerRequest::ApprovalRequest {
            request: "approval-7".into(),
            session: "20261201T000000Z-1968c13a".into(),
            turn: Some(3),
            call: Some("3.4".into()),
            action: "run `cargo test`".into(),
            effect: json!({"action": "run `cargo test`", "reads": [], "writes": [], "command": {"argv": ["cargo", "test"]}, "irreversible": false}),
            why: "commands ask unless a standing answer allows them".into(),
            kind: ApprovalKind::Ordinary,
            always: Some("`cargo test` with any arguments, for the rest of this session".into()),
        },
    }]));
    insta::assert_snapshot!(shown(
        &[
            Decision::Allow,
            Decision::AllowAlways,
            Decision::Decline,
            Decision::Cancel,
            Decision::NoPerson,
            Decision::Unanswered
        ]
        .map(|decision| Envelope {
            id: 7,
            message: Approval { decision },
        })
    ));
}

#[test]
fn log_records() {
    use nodwyn_protocol::record::{
        Answer, AskKind, DecidedBy, Event, GuardVerdict, IncludeFailure, LandOutcome, Push, Record,
        RemovalSnapshot, RemovedBy, WorktreeFacts,
    };
    let facts = WorktreeFacts {
        repository: "/src/app".into(),
        path: "/src/app/.nodwyn/worktrees/1968c13a".into(),
        branch: "nodwyn/fix-1968c13a".into(),
        name: Some("fix".into()),
        base: "main".into(),
        base_remote: Some("origin".into()),
        base_commit: "aa37182dd43a".into(),
        pull_request: None,
        port: Some(14213),
    };
    let usage = TurnUsage {
        model_calls: 1,
        input_tokens: 10,
        output_tokens: 2,
    };
    let events = vec![
        Event::SessionStart {
            root: "/src/app".into(),
            repository: "/src/app".into(),
            worktree: None,
        },
        Event::WorktreeCreate {
            worktree: facts.clone(),
            uncommitted: 2,
            included: vec![".env.example".into()],
            include_failed: vec![IncludeFailure {
                path: "big.bin".into(),
                error: "too large".into(),
            }],
        },
        Event::WorktreeRestore {
            worktree: facts.clone(),
            branch_reused: true,
            included: vec![],
            include_failed: vec![],
            snapshot: Some("5d1e0f3a9b7c".into()),
        },
        Event::WorktreeRemove {
            path: facts.path.clone(),
            branch: facts.branch.clone(),
            branch_deleted: false,
            branch_kept: Some("it has 1 commit main lacks".into()),
            discarded: vec!["notes.txt".into(), ".env".into()],
            snapshot: Some(RemovalSnapshot {
                reference: "refs/nodwyn/snapshots/1968c13a".into(),
                commit: "5d1e0f3a9b7c".into(),
                left_out: vec![".env".into()],
            }),
            by: RemovedBy::Remove,
        },
        Event::HookRun {
            hook: "post_create".into(),
            from: "repository".into(),
            command: vec!["npm".into(), "ci".into()],
            exit: Some(0),
            timed_out: false,
            duration_ms: 5120,
        },
        Event::WorktreeOnto {
            base: "release".into(),
            base_remote: None,
        },
        Event::WorktreeKeep {
            path: facts.path.clone(),
            branch: facts.branch.clone(),
        },
        Event::SessionClose {
            kept: vec!["uncommitted changes".into()],
        },
        Event::SessionResume {
            root: facts.path.clone(),
        },
        Event::SessionDontAsk {
            on: true,
            by: "ann".into(),
            seal: Some("5eal".into()),
        },
        Event::SessionAllowAlways {
            command: Some(vec!["cargo".into(), "test".into()]),
            write: None,
            allows: "`cargo test` with any arguments, for the rest of this session".into(),
            by: "the person, through the editor".into(),
            seal: Some("5eal".into()),
        },
        Event::SessionAllowAlways {
            command: None,
            write: Some("src/**".into()),
            allows: "writes under `src/`, for the rest of this session".into(),
            by: "the person, at the terminal".into(),
            seal: Some("5eal".into()),
        },
        Event::SessionAllowAlwaysEnded {
            by: "mcp resume".into(),
        },
        Event::SessionConfig {
            fingerprint: [("core.hooksPath".to_owned(), "00ff".to_owned())].into(),
            accepted_by: None,
            seal: Some("5eal".into()),
        },
        Event::PrimitiveCall {
            primitive: "fs-read".into(),
            args: json!({"path": "src/lib.rs"}),
            by: None,
        },
        Event::PrimitiveCall {
            primitive: "fs-read".into(),
            args: json!({"path": "README.md"}),
            by: Some("strategy".into()),
        },
        Event::GuardDecision {
            action: "fs-read src/lib.rs".into(),
            verdict: GuardVerdict {
                answer: Answer::Ask(AskKind::Ordinary),
                by: DecidedBy::DontAsk("ann".into()),
                why: "Don't ask is on".into(),
            },
        },
        Event::PrimitiveResult {
            primitive: "fs-read".into(),
            ok: false,
            error: Some("refused".into()),
            exit: None,
        },
        Event::PrimitiveResult {
            primitive: "shell-exec".into(),
            ok: true,
            error: None,
            exit: Some(1),
        },
        Event::GitPush {
            push: Push {
                remote: "origin".into(),
                urls: vec!["git@example.com:app.git".into()],
                reference: "refs/heads/main".into(),
                old: Some("aa37182dd43a".into()),
                new: "4e1f0c2a9b7d".into(),
            },
        },
        Event::GitLand {
            base: "main".into(),
            strategy: "ff-only".into(),
            landed: "4e1f0c2a9b7d".into(),
            left_out: vec![".env".into()],
            by: "agent".into(),
        },
        Event::LandBegin {
            head: "bbbb".into(),
            strategy: "squash".into(),
        },
        Event::LandBackup {
            reference: "refs/nodwyn/backup/1968c13a/1".into(),
            commit: "bbbb".into(),
        },
        Event::LandRebase {
            onto: "cccc".into(),
            upstream: "aaaa".into(),
        },
        Event::LandMove {
            from: "bbbb".into(),
            to: "dddd".into(),
        },
        Event::LandPush {
            remote: "origin".into(),
            reference: "refs/heads/main".into(),
            commit: "dddd".into(),
        },
        Event::LandEnd {
            outcome: LandOutcome::Refused,
            why: Some("credential".into()),
        },
        Event::ReviewShown {
            tree: "eeee".into(),
            base_commit: "aaaa".into(),
        },
        Event::VersionKeep {
            path: "src/lib.rs".into(),
            version: 3,
        },
        Event::VersionRestore {
            path: "src/lib.rs".into(),
            version: 3,
            kept: Some(4),
        },
        Event::StrategyApprove {
            path: "/src/app/.nodwyn/init.scm".into(),
            sha256: "ab12".into(),
        },
        Event::StrategyLoad {
            sha256: "ab12".into(),
        },
        Event::SchemeEval {
            source: "<expression>".into(),
            ok: true,
            error: None,
        },
        Event::StrategyHook {
            hook: "on-turn".into(),
            ok: false,
            error: Some("not a string".into()),
        },
        Event::TurnStart {
            turn: 1,
            tree: Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".to_owned()),
        },
        Event::ConversationItem {
            turn: 1,
            item_id: Some("1.1".into()),
            agent: None,
            item: Item::UserMessage {
                text: "fix it".into(),
            },
        },
        Event::ModelCall {
            turn: 1,
            call: ModelCall {
                model: "qwen at http://127.0.0.1:11434".into(),
                input_tokens: 10,
                output_tokens: 2,
                stop: "end_turn".into(),
                first_output_ms: Some(80),
                tries: 1,
            },
        },
        Event::TurnEnd {
            turn: 1,
            end: TurnEnd::Finished,
            usage,
            answer: "Done.".into(),
        },
    ];
    let records: Vec<Record> = events
        .into_iter()
        .map(|event| Record::new("2026-12-01T00:00:00.000Z", event))
        .collect();
    insta::assert_snapshot!(shown(&records));
}

#[test]
fn wire_errors() {
    use nodwyn_protocol::rpc::{ErrorData, METHOD_NOT_FOUND, REFUSED, RpcError};
    insta::assert_snapshot!(shown(&[
        RpcError {
            code: METHOD_NOT_FOUND,
            message: "there is no method \"session.explode\"".into(),
            data: Some(ErrorData {
                code: "unknown_method".into(),
                files: vec![],
            }),
        },
        RpcError {
            code: REFUSED,
            message: "the worktree has uncommitted changes".into(),
            data: Some(ErrorData {
                code: "worktree_dirty".into(),
                files: vec!["src/lib.rs".into()],
            }),
        },
    ]));
}
