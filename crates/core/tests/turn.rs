//! The session runtime and its turns, as a front-end (the agent, later the MCP server and the
//! daemon) uses them: the guard's budget of irreversible actions spans a turn's calls and starts
//! again with the next turn; a turn left open is ended when the next begins; the conversation
//! reads back from the log; a session that began in its checkout moves into its own worktree;
//! questions cross a channel.

mod common;

use common::git;

use std::path::Path;
use std::sync::Arc;

use nodwyn_core::Store;
use nodwyn_core::guard::{AskKind, Decision, Effect};
use nodwyn_core::host::HostSettings;
use nodwyn_core::person::{Answerer, Person, Question, Reply};
use nodwyn_core::prim::{Context, Error, Primitive, Registry};
use nodwyn_core::turn::{SessionRuntime, conversation};
use nodwyn_core::worktree::NewWorktree;
use nodwyn_protocol::{Item, TurnEnd, TurnUsage};
use serde::{Deserialize, Serialize};

/// `ring`: an action that cannot be undone, and does nothing.
struct Ring;

#[derive(Deserialize)]
struct NoArgs {}

#[derive(Serialize)]
struct Rang {}

impl Primitive for Ring {
    type Args = NoArgs;
    type Output = Rang;
    fn name(&self) -> &str {
        "ring"
    }
    fn description(&self) -> &str {
        "Rings a bell that cannot be unrung."
    }
    fn params(&self) -> &[nodwyn_core::prim::Param] {
        &[]
    }
    fn effect(&self, _args: &NoArgs, _ctx: &Context) -> Result<Effect, Error> {
        let mut effect = Effect::named("ring the bell");
        effect.irreversible = true;
        Ok(effect)
    }
    fn run(&self, _: NoArgs, _: &Context, _: &nodwyn_guard::Permit) -> Result<Rang, Error> {
        Ok(Rang {})
    }
}

/// Approves everything, noting what kind of question each was.
#[derive(Default)]
struct Noting(Vec<AskKind>);

impl Person for Noting {
    fn ask(&mut self, question: &Question) -> Option<Reply> {
        if let Decision::Ask(kind) = question.verdict.decision {
            self.0.push(kind);
        }
        Some(Reply::Allow)
    }
}

fn repository(temp: &Path) -> std::path::PathBuf {
    let repo = temp.join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "hello\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    repo
}

fn runtime(temp: &Path) -> (Arc<SessionRuntime>, Store) {
    let repo = repository(temp);
    let store = Store::new(temp.join("data"));
    let id = nodwyn_core::open::open_in_folder(&store, &repo, None)
        .unwrap()
        .id
        .to_string();
    let mut registry = Registry::builtin();
    registry.register(Ring).unwrap();
    let runtime = SessionRuntime::open(
        store.clone(),
        &id,
        Arc::new(registry),
        HostSettings::default(),
        nodwyn_core::services::Services::default(),
    )
    .unwrap();
    (runtime, store)
}

#[test]
fn the_budget_of_irreversible_actions_spans_a_turn_and_refills_with_the_next() {
    let temp = tempfile::tempdir().unwrap();
    let (runtime, _) = runtime(temp.path());
    let mut person = Noting::default();
    let mut turn = runtime.start_turn().unwrap();
    for _ in 0..4 {
        turn.call("ring", &serde_json::json!({}), &mut person)
            .unwrap();
    }
    // Three ordinary confirms, then the turn's budget is spent: a security confirm.
    assert_eq!(
        person.0,
        [
            AskKind::Ordinary,
            AskKind::Ordinary,
            AskKind::Ordinary,
            AskKind::Security
        ]
    );
    turn.end(TurnEnd::Finished, TurnUsage::default(), "")
        .unwrap();

    let mut person = Noting::default();
    let mut turn = runtime.start_turn().unwrap();
    assert_eq!(turn.number(), 2);
    turn.call("ring", &serde_json::json!({}), &mut person)
        .unwrap();
    assert_eq!(person.0, [AskKind::Ordinary]);
}

#[test]
fn a_standing_answer_written_during_a_turn_applies_from_the_next_turn() {
    let temp = tempfile::tempdir().unwrap();
    let (runtime, _) = runtime(temp.path());
    let repo = temp.path().join("repo");
    let write = serde_json::json!({"path": "notes.txt", "content": "hi\n"});
    let mut person = Noting::default();
    let mut turn = runtime.start_turn().unwrap();
    turn.call("fs-write", &write, &mut person).unwrap();
    assert_eq!(
        person.0,
        [AskKind::Ordinary],
        "asked before any standing answer"
    );
    // The person writes a standing answer while the turn runs: the turn's guard read them at
    // its first call, and keeps to what it read.
    std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
    std::fs::write(repo.join(".nodwyn/allow.toml"), "writes = [\"**\"]\n").unwrap();
    turn.call("fs-write", &write, &mut person).unwrap();
    assert_eq!(person.0, [AskKind::Ordinary, AskKind::Ordinary]);
    turn.end(TurnEnd::Finished, TurnUsage::default(), "")
        .unwrap();

    let mut turn = runtime.start_turn().unwrap();
    let called = turn.call("fs-write", &write, &mut person).unwrap();
    assert_eq!(
        person.0,
        [AskKind::Ordinary, AskKind::Ordinary],
        "the next turn's guard reads the standing answer: nothing asked"
    );
    assert_eq!(
        called.decision.decision,
        Decision::Allow,
        "{:?}",
        called.decision
    );
}

#[test]
fn a_turn_left_open_is_ended_when_the_next_begins_and_the_conversation_reads_back() {
    let temp = tempfile::tempdir().unwrap();
    let (runtime, store) = runtime(temp.path());
    let turn = runtime.start_turn().unwrap();
    turn.record(Item::UserMessage {
        text: "hello".to_owned(),
    })
    .unwrap();
    drop(turn); // the run crashed: no turn.end
    assert_eq!(runtime.session().unwrap().open_turn, Some(1));
    let turn = runtime.start_turn().unwrap();
    assert_eq!(turn.number(), 2);
    let session = runtime.session().unwrap();
    assert_eq!(session.open_turn, Some(2));
    assert_eq!(session.turns, 2);
    let log = std::fs::read_to_string(store.find(&runtime.id()).unwrap().log.path()).unwrap();
    let ended: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|record| record["type"] == "turn.end")
        .collect();
    assert_eq!(ended.len(), 1, "{log}");
    assert_eq!(
        (&ended[0]["turn"], &ended[0]["reason"]),
        (&1.into(), &"interrupted".into())
    );
    assert_eq!(
        conversation(&store, &runtime.id()).unwrap(),
        [(
            1,
            Item::UserMessage {
                text: "hello".to_owned()
            }
        )]
    );
}

#[test]
fn a_session_that_began_in_its_checkout_moves_into_its_own_worktree() {
    let temp = tempfile::tempdir().unwrap();
    let (runtime, _) = runtime(temp.path());
    let before = runtime.session().unwrap();
    assert!(before.worktree.is_none());
    let created = runtime
        .move_to_worktree(&NewWorktree {
            name: Some("moved".to_owned()),
            ..NewWorktree::default()
        })
        .unwrap();
    let after = runtime.session().unwrap();
    assert_eq!(after.id, before.id);
    assert_eq!(after.root, created.worktree.path);
    assert_eq!(
        created.worktree.branch,
        format!("nodwyn/moved-{}", after.id.short())
    );
    assert!(after.root.join("README.md").exists());
    let again = runtime
        .move_to_worktree(&NewWorktree::default())
        .unwrap_err();
    assert!(
        again.to_string().contains("has a worktree already"),
        "{again}"
    );
}

#[test]
fn a_question_crosses_a_channel_and_its_answer_comes_back() {
    let temp = tempfile::tempdir().unwrap();
    let (runtime, _) = runtime(temp.path());
    let (mut answerer, questions) = Answerer::new();
    let client = std::thread::spawn(move || {
        let mut asked = Vec::new();
        for question in questions {
            asked.push(question.question.effect.action.clone());
            question
                .reply
                .send(Some(Reply::from(asked.len() == 1)))
                .unwrap();
        }
        asked
    });
    let mut turn = runtime.start_turn().unwrap();
    turn.call("ring", &serde_json::json!({}), &mut answerer)
        .unwrap();
    let declined = turn
        .call("ring", &serde_json::json!({}), &mut answerer)
        .unwrap_err();
    assert_eq!(declined.code(), "declined");
    drop(turn);
    drop(answerer);
    assert_eq!(client.join().unwrap(), ["ring the bell", "ring the bell"]);
}

#[test]
fn the_conversation_the_log_keeps_holds_no_secret() {
    let temp = tempfile::tempdir().unwrap();
    let (runtime, store) = runtime(temp.path());
    let token = "ghp_Xk9mQ2vR7tL4wN8pZ3cB6yH1dF5gJ0sA2eUq";
    let turn = runtime.start_turn().unwrap();
    turn.record(Item::UserMessage {
        text: format!("use {token} to push"),
    })
    .unwrap();
    turn.record(Item::AssistantMessage {
        text: format!("I will write {token} into the config."),
        tool_calls: vec![nodwyn_protocol::ToolCallItem {
            call_id: "1".to_owned(),
            tool: "fs-write".to_owned(),
            arguments: serde_json::json!({"path": "config.ini", "content": format!("token = {token}\n")}),
        }],
    })
    .unwrap();
    let log = std::fs::read_to_string(store.find(&runtime.id()).unwrap().log.path()).unwrap();
    assert!(!log.contains(token), "{log}");
    assert!(log.contains("config.ini"), "{log}");
    assert!(log.contains("[nodwyn: redacted"), "{log}");
}
