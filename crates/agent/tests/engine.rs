//! The agent's contract, as every front-end relies on it: a turn against the stand-in model
//! runs the model's tool calls through the guard, reports each step as a protocol notification in
//! order, asks its questions through the front-end, and ends on a final answer, a limit, or an
//! interrupt (with every tool call answered).

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nodwyn_agent::{Agent, Frontend, Options};
use nodwyn_core::Store;
use nodwyn_core::guard::{AskKind, Decision, Effect};
use nodwyn_core::host::HostSettings;
use nodwyn_core::person::{Question, Reply, StrategyQuestion};
use nodwyn_core::prim::Registry;
use nodwyn_core::turn::SessionRuntime;
use nodwyn_model::{Client, Limits, MAX_TOOL_CALLS, Profile, Provider, Retry};
use nodwyn_protocol::{Item, Notification, TurnEnd, WorktreeMode};
use nodwyn_standin::{StandIn, openai};
use serde_json::json;

/// Keeps every notification, and answers questions as told.
struct Recording {
    seen: Mutex<Vec<Notification>>,
    asked: Mutex<Vec<String>>,
    kinds: Mutex<Vec<AskKind>>,
    answer: Option<bool>,
}

impl Recording {
    fn new(answer: Option<bool>) -> Arc<Self> {
        Arc::new(Self {
            seen: Mutex::new(Vec::new()),
            asked: Mutex::new(Vec::new()),
            kinds: Mutex::new(Vec::new()),
            answer,
        })
    }

    fn methods(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|n| {
                serde_json::to_value(n).unwrap()["method"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    fn results(&self) -> Vec<(bool, String)> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter_map(|n| match n {
                Notification::ItemCompleted {
                    value: Item::ToolResult { ok, content, .. },
                    ..
                } => Some((*ok, content.clone())),
                _ => None,
            })
            .collect()
    }
}

impl Frontend for Recording {
    fn notify(&self, notification: &Notification) {
        self.seen.lock().unwrap().push(notification.clone());
    }
    fn ask(&self, question: &Question) -> Option<Reply> {
        self.asked
            .lock()
            .unwrap()
            .push(question.effect.action.clone());
        if let Decision::Ask(kind) = question.verdict.decision {
            self.kinds.lock().unwrap().push(kind);
        }
        self.answer.map(Reply::from)
    }
    fn approve_strategy(&self, _: &StrategyQuestion<'_>) -> Option<bool> {
        None
    }
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

struct Setup {
    _temp: tempfile::TempDir,
    repo: std::path::PathBuf,
    runtime: Arc<SessionRuntime>,
}

/// `ring`: an action that cannot be undone, and does nothing.
struct Ring;

#[derive(serde::Deserialize)]
struct NoArgs {}

impl nodwyn_core::prim::Primitive for Ring {
    type Args = NoArgs;
    type Output = serde_json::Value;
    fn name(&self) -> &str {
        "ring"
    }
    fn description(&self) -> &str {
        "Rings a bell that cannot be unrung."
    }
    fn params(&self) -> &[nodwyn_core::prim::Param] {
        &[]
    }
    fn effect(
        &self,
        _: &NoArgs,
        _: &nodwyn_core::prim::Context,
    ) -> Result<Effect, nodwyn_core::prim::Error> {
        let mut effect = Effect::named("ring the bell");
        effect.irreversible = true;
        Ok(effect)
    }
    fn run(
        &self,
        _: NoArgs,
        _: &nodwyn_core::prim::Context,
        _: &nodwyn_core::guard::Permit,
    ) -> Result<serde_json::Value, nodwyn_core::prim::Error> {
        Ok(json!("rang"))
    }
}

fn setup() -> Setup {
    let temp = tempfile::tempdir().unwrap();
    let repo = temp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "hello\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let store = Store::new(temp.path().join("data"));
    let id = nodwyn_core::open::open_in_folder(&store, &repo, None)
        .unwrap()
        .id
        .to_string();
    let mut registry = Registry::builtin();
    registry.register(Ring).unwrap();
    let runtime = SessionRuntime::open(
        store,
        &id,
        Arc::new(registry),
        HostSettings::default(),
        nodwyn_core::services::Services::default(),
    )
    .unwrap();
    Setup {
        _temp: temp,
        repo,
        runtime,
    }
}

fn make_agent(
    setup: &Setup,
    server: &StandIn,
    options: Options,
    frontend: Arc<Recording>,
) -> Agent {
    make_agent_with(setup, server, options, frontend, Limits::default())
}

/// An agent whose client holds answers to `limits`.
fn make_agent_with(
    setup: &Setup,
    server: &StandIn,
    options: Options,
    frontend: Arc<Recording>,
    limits: Limits,
) -> Agent {
    let client = Client::new(Profile {
        provider: Provider::OpenAi,
        base_url: format!("{}/v1", server.url()),
        name: "scripted".to_owned(),
        api_key: None,
        stream_tools: true,
        max_output_tokens: 100,
    })
    .unwrap()
    .with_retry(Retry {
        tries: 1,
        ..Retry::default()
    })
    .with_limits(limits);
    Agent::new(
        Arc::clone(&setup.runtime),
        Arc::new(client),
        options,
        frontend,
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_turn_reports_each_step_in_order_and_asks_through_the_front_end() {
    let setup = setup();
    let server = StandIn::start(vec![
        openai::answer(
            "Reading.",
            &[
                ("fs-read", json!({"path": "README.md"})),
                (
                    "fs-write",
                    json!({"path": "NOTES.md", "content": "notes\n"}),
                ),
            ],
            (50, 5),
        ),
        openai::text("Done."),
    ]);
    let frontend = Recording::new(Some(true));
    let mut agent = make_agent(&setup, &server, Options::default(), Arc::clone(&frontend));
    let outcome = agent.turn("take notes").await;
    assert_eq!(outcome.end, TurnEnd::Finished);
    assert_eq!(outcome.answer, "Done.");
    assert_eq!(outcome.usage.model_calls, 2);
    assert_eq!(outcome.usage.input_tokens, 150);
    let methods = frontend.methods();
    assert_eq!(methods[0], "turn.started");
    assert_eq!(methods.last().unwrap(), "turn.completed");
    assert!(
        methods.contains(&"session.worktree".to_owned()),
        "{methods:?}"
    );
    // The write asked the person (through the front-end), after the session moved.
    let asked = frontend.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].starts_with("fs-write"), "{asked:?}");
    let results = frontend.results();
    assert!(
        results[0].0 && results[0].1.contains("hello"),
        "{results:?}"
    );
    assert!(
        results[1].0 && results[1].1.contains("moved into its own worktree"),
        "{results:?}"
    );
    let session = setup.runtime.session().unwrap();
    assert!(session.root.join("NOTES.md").exists());
    assert!(!setup.repo.join("NOTES.md").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_ends_the_turn_and_the_next_turn_sees_a_valid_conversation() {
    let setup = setup();
    let server = StandIn::start(vec![
        openai::text("thinking very hard about this")
            .cut_after(3)
            .hanging(),
        openai::text("Back."),
    ]);
    let frontend = Recording::new(None);
    let options = Options {
        worktree: WorktreeMode::Off,
        ..Options::default()
    };
    let mut agent = make_agent(&setup, &server, options, Arc::clone(&frontend));
    let interrupt = setup.runtime.settings().interrupt.clone();
    // Interrupted once the answer has begun (its first text arrived), however slow the machine.
    let watching = Arc::clone(&frontend);
    let raiser = std::thread::spawn(move || {
        let started = std::time::Instant::now();
        while !watching.methods().iter().any(|m| m == "item.delta") {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no text ever came"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        interrupt.raise();
    });
    let outcome = agent.turn("think").await;
    raiser.join().unwrap();
    assert_eq!(outcome.end, TurnEnd::Interrupted);
    assert!(
        frontend.methods().iter().any(|m| m == "item.delta"),
        "the answer had begun"
    );

    let outcome = agent.turn("go on").await;
    assert_eq!(outcome.end, TurnEnd::Finished);
    assert_eq!(outcome.answer, "Back.");
    let sent = &server.received()[1].body["messages"];
    let roles: Vec<&str> = sent
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "user"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn limits_stop_the_run_and_long_results_are_cut() {
    let setup = setup();
    std::fs::write(setup.repo.join("big.txt"), "x".repeat(5000)).unwrap();
    let server = StandIn::start(
        (0..3)
            .map(|_| openai::call("fs-read", json!({"path": "big.txt"})))
            .collect(),
    );
    let frontend = Recording::new(None);
    let options = Options {
        max_model_calls: Some(2),
        tool_result_chars: 1000,
        ..Options::default()
    };
    let mut agent = make_agent(&setup, &server, options, Arc::clone(&frontend));
    let outcome = agent.turn("read it").await;
    assert!(
        matches!(&outcome.end, TurnEnd::Limit { why } if why.contains("2 model call(s)")),
        "{:?}",
        outcome.end
    );
    assert_eq!(server.received().len(), 2);
    let results = frontend.results();
    assert!(
        results[0]
            .1
            .ends_with("more characters left out; ask for a narrower part]")
    );
    assert!(results[0].1.chars().count() < 1200);

    // The token limit counts what the run used.
    let server = StandIn::start(vec![openai::answer(
        "",
        &[("fs-list", json!({}))],
        (400, 200),
    )]);
    let options = Options {
        max_tokens: Some(500),
        ..Options::default()
    };
    let mut agent = make_agent(&setup, &server, options, Recording::new(None));
    let outcome = agent.turn("list").await;
    assert!(
        matches!(&outcome.end, TurnEnd::Limit { why } if why.contains("500 tokens")),
        "{:?}",
        outcome.end
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scheme_program_spends_the_same_turn_budget_as_tool_calls() {
    let setup = setup();
    let server = StandIn::start(vec![
        openai::answer("", &[("ring", json!({}))], (1, 1)),
        openai::call(
            "scheme",
            json!({"program": "(begin (ring) (ring) (ring) \"rang\")"}),
        ),
        openai::text("Rang four times."),
    ]);
    let frontend = Recording::new(Some(true));
    let options = Options {
        worktree: WorktreeMode::Off,
        ..Options::default()
    };
    let mut agent = make_agent(&setup, &server, options, Arc::clone(&frontend));
    let outcome = agent.turn("ring four times").await;
    assert_eq!(outcome.end, TurnEnd::Finished, "{:?}", frontend.results());
    // The fourth irreversible action of the turn, inside a Scheme program, is a security confirm.
    assert_eq!(
        *frontend.kinds.lock().unwrap(),
        [
            AskKind::Ordinary,
            AskKind::Ordinary,
            AskKind::Ordinary,
            AskKind::Security
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_limits_are_checked_before_each_tool_call() {
    let setup = setup();
    let off = || Options {
        worktree: WorktreeMode::Off,
        ..Options::default()
    };
    let not_run = |frontend: &Recording, expected: usize, why: &str| {
        let results = frontend.results();
        assert_eq!(results.len(), expected, "{results:?}");
        for (ok, content) in results {
            assert!(
                !ok && content.starts_with("not run: ") && content.contains(why),
                "{content}"
            );
        }
    };

    // One model call allowed: the calls of its answer would have results the model never reads.
    let server = StandIn::start(vec![openai::answer(
        "",
        &vec![("fs-list", json!({})); 5],
        (10, 10),
    )]);
    let frontend = Recording::new(None);
    let options = Options {
        max_model_calls: Some(1),
        ..off()
    };
    let mut agent = make_agent(&setup, &server, options, Arc::clone(&frontend));
    let outcome = agent.turn("list").await;
    assert!(
        matches!(&outcome.end, TurnEnd::Limit { why } if why.contains("1 model call(s)")),
        "{:?}",
        outcome.end
    );
    not_run(&frontend, 5, "1 model call(s) (--max-model-calls)");

    // More calls in one answer than an answer may make, from a model that let them through.
    let server = StandIn::start(vec![openai::answer(
        "",
        &vec![("fs-list", json!({})); MAX_TOOL_CALLS + 1],
        (10, 10),
    )]);
    let frontend = Recording::new(None);
    let lenient = Limits {
        tool_calls: 10_000,
        ..Limits::default()
    };
    let mut agent = make_agent_with(&setup, &server, off(), Arc::clone(&frontend), lenient);
    let outcome = agent.turn("list").await;
    assert!(
        matches!(&outcome.end, TurnEnd::Limit { why } if why.contains("129 tool calls")),
        "{:?}",
        outcome.end
    );
    not_run(&frontend, MAX_TOOL_CALLS + 1, "more than the 128");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_token_limit_counts_what_arrived_not_only_what_the_server_reported() {
    let setup = setup();
    let options = || Options {
        worktree: WorktreeMode::Off,
        max_tokens: Some(500),
        ..Options::default()
    };
    // 4 KiB of arguments (about a thousand tokens) reported as one token.
    let server = StandIn::start(vec![
        openai::answer(
            "",
            &[("fs-list", json!({"path": ".", "note": "x".repeat(4096)}))],
            (1, 1),
        ),
        openai::text("done"),
    ]);
    let frontend = Recording::new(None);
    let mut agent = make_agent(&setup, &server, options(), Arc::clone(&frontend));
    let outcome = agent.turn("list").await;
    assert!(
        matches!(&outcome.end, TurnEnd::Limit { why } if why.contains("500 tokens")),
        "{:?}",
        outcome.end
    );
    assert_eq!(server.received().len(), 1);
    let results = frontend.results();
    assert!(
        results.len() == 1 && !results[0].0 && results[0].1.starts_with("not run: "),
        "{results:?}"
    );

    // Text alone, streaming on past the limit while reporting one token: stopped as it comes.
    let long = "word ".repeat(2000);
    let server = StandIn::start(vec![
        openai::answer(&long, &[], (1, 1)).paced(Duration::from_millis(2)),
    ]);
    let frontend = Recording::new(None);
    let mut agent = make_agent(&setup, &server, options(), Arc::clone(&frontend));
    let outcome = agent.turn("talk").await;
    assert!(
        matches!(&outcome.end, TurnEnd::Limit { why } if why.contains("500 tokens")),
        "{:?}",
        outcome.end
    );
    let shown: usize = frontend
        .seen
        .lock()
        .unwrap()
        .iter()
        .filter_map(|n| match n {
            Notification::ItemDelta { text, .. } => Some(text.len()),
            _ => None,
        })
        .sum();
    assert!(shown < long.len(), "all {shown} bytes were streamed");
}
