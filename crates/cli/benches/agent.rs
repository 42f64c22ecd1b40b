//! Benchmark: what the engine adds. (1) Its own time per tool call, against `nodwyn call` of the
//! same primitive (`fs-read` of a small file), which a person or an outside agent would otherwise
//! run, a process each time: one model answer with many tool calls, minus a turn with none,
//! divided by the calls. (2) Its time to the first token, against a plain HTTP request to the
//! same stand-in server: the model client alone, and a whole turn (which first composes the
//! system prompt in Scheme), cold and with engines made ahead (`nodwyn_scheme::keep_warm`). (3) What a strategy's `(on-call)` adds to each call: the same calls
//! in a session whose approved strategy defines one that objects to nothing. Medians side by
//! side, alternating.
//!
//! Run: `cargo bench -p nodwyn --bench agent` (optionally `-- --runs N --calls N`).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Bench, arg, median, ms};
use nodwyn_agent::{Agent, Frontend, Options};
use nodwyn_core::person::{Question, Reply};
use nodwyn_core::prim::Registry;
use nodwyn_core::turn::SessionRuntime;
use nodwyn_model::{Client, Model, Profile, Provider, Request, StreamEvent};
use nodwyn_protocol::{Notification, TurnEnd, WorktreeMode};
use nodwyn_standin::{StandIn, openai};
use serde_json::json;

/// Notes when the first text arrived.
struct FirstDelta(Mutex<Option<Instant>>);

impl Frontend for FirstDelta {
    fn notify(&self, notification: &Notification) {
        if let Notification::ItemDelta { .. } = notification {
            self.0.lock().unwrap().get_or_insert_with(Instant::now);
        }
    }
    fn ask(&self, _: &Question) -> Option<Reply> {
        None
    }
}

fn main() {
    let runs = arg("--runs", 15);
    let calls = arg("--calls", 50);
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    let bench = Bench::new();
    let repo = bench.readme_repository();
    let made: serde_json::Value =
        serde_json::from_str(&bench.run(nodwyn, &repo, &["worktree", "new", "--json"])).unwrap();
    let id = made["session"].as_str().unwrap().to_owned();

    let server = StandIn::start(Vec::new());
    let profile = Profile {
        provider: Provider::OpenAi,
        base_url: format!("{}/v1", server.url()),
        name: "standin".to_owned(),
        api_key: None,
        stream_tools: true,
        max_output_tokens: 100,
    };
    let client = Arc::new(Client::new(profile).unwrap());
    let runtime = bench.runtime(&id);
    let engine = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let options = Options {
        worktree: WorktreeMode::Off,
        ..Options::default()
    };
    let first = Arc::new(FirstDelta(Mutex::new(None)));
    let mut agent = Agent::new(
        Arc::clone(&runtime),
        client.clone(),
        options.clone(),
        first.clone(),
    )
    .unwrap();
    let mut judged = judged_agent(
        &bench,
        nodwyn,
        &repo,
        client.clone(),
        options,
        first.clone(),
    );
    let many: Vec<(&str, serde_json::Value)> = (0..calls)
        .map(|_| ("fs-read", json!({"path": "README.md"})))
        .collect();
    let call_args = json!({"path": "README.md"}).to_string();
    let request = Request {
        system: "s".to_owned(),
        messages: vec![nodwyn_model::Message::User {
            text: "hi".to_owned(),
        }],
        tools: Vec::new(),
    };

    let (mut per_call, mut process_call, mut per_judged_call) =
        (Vec::new(), Vec::new(), Vec::new());
    let (mut turn_first, mut client_first, mut plain_first) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        // A turn with no tool call, then one with `calls` of them.
        server.push([openai::text("done")]);
        *first.0.lock().unwrap() = None;
        let started = Instant::now();
        let outcome = engine.block_on(agent.turn("answer"));
        let empty = started.elapsed();
        assert_eq!(outcome.end, TurnEnd::Finished);
        turn_first.push(first.0.lock().unwrap().unwrap() - started);

        server.push([openai::answer("", &many, (10, 10)), openai::text("done")]);
        let started = Instant::now();
        let outcome = engine.block_on(agent.turn("read it many times"));
        assert_eq!(outcome.end, TurnEnd::Finished);
        per_call.push(started.elapsed().saturating_sub(empty) / calls as u32);

        server.push([openai::text("done")]);
        let started = Instant::now();
        engine.block_on(judged.turn("answer"));
        let empty = started.elapsed();
        server.push([openai::answer("", &many, (10, 10)), openai::text("done")]);
        let started = Instant::now();
        let outcome = engine.block_on(judged.turn("read it many times"));
        assert_eq!(outcome.end, TurnEnd::Finished);
        per_judged_call.push(started.elapsed().saturating_sub(empty) / calls as u32);

        let (t, out) = bench.timed(
            nodwyn,
            &repo,
            &["call", "--session", &id, "fs-read", &call_args],
        );
        assert!(out.contains("hello"), "{out}");
        process_call.push(t);

        // The model client alone, then a plain HTTP request, to the same server.
        server.push([openai::text("done")]);
        let started = Instant::now();
        let mut seen = None;
        let mut sink = |_: StreamEvent| {
            seen.get_or_insert_with(Instant::now);
        };
        engine
            .block_on(client.complete(&request, &mut sink))
            .unwrap();
        client_first.push(seen.unwrap() - started);

        server.push([openai::text("done")]);
        plain_first.push(plain_first_token(server.url()));
    }
    let (per_call, process_call, per_judged_call) = (
        median(per_call),
        median(process_call),
        median(per_judged_call),
    );
    // Turns whose engines were made ahead (`nodwyn run` and `chat` keep two ready), each after
    // the pause a person takes between messages; measured last, so the engines made in the
    // background take no time from the measurements above.
    nodwyn_core::scheme::keep_warm(2);
    let mut warm_turn_first = Vec::new();
    for _ in 0..runs {
        std::thread::sleep(Duration::from_millis(400));
        server.push([openai::text("done")]);
        *first.0.lock().unwrap() = None;
        let started = Instant::now();
        engine.block_on(agent.turn("answer"));
        warm_turn_first.push(first.0.lock().unwrap().unwrap() - started);
    }
    let warm_turn_first = median(warm_turn_first);
    let (turn_first, client_first, plain_first) = (
        median(turn_first),
        median(client_first),
        median(plain_first),
    );
    println!("one fs-read tool call, median of {runs} runs ({calls} calls in one answer):");
    println!("  the engine, in process           {:>9}", ms(per_call));
    println!(
        "  nodwyn call, a process each      {:>9}  ({:.0}x the engine)",
        ms(process_call),
        process_call.as_secs_f64() / per_call.as_secs_f64().max(1e-9)
    );
    println!(
        "  the engine, a strategy's (on-call) {:>7}  (+{} a call)",
        ms(per_judged_call),
        ms(per_judged_call.saturating_sub(per_call))
    );
    println!("time to the first token from the stand-in, median of {runs} runs:");
    println!("  a plain HTTP request             {:>9}", ms(plain_first));
    println!(
        "  nodwyn's model client            {:>9}  (+{})",
        ms(client_first),
        ms(client_first.saturating_sub(plain_first))
    );
    println!(
        "  a whole turn (prompt composed)   {:>9}  (+{})",
        ms(turn_first),
        ms(turn_first.saturating_sub(plain_first))
    );
    println!(
        "  the same, its engine made ahead  {:>9}  (+{})",
        ms(warm_turn_first),
        ms(warm_turn_first.saturating_sub(plain_first))
    );
}

/// A POST by hand on a fresh connection; the time until the first `data:` line arrives.
/// An agent in a second session of `repo` whose approved strategy's `(on-call)` objects to
/// nothing, so every call pays for asking it.
fn judged_agent(
    bench: &Bench,
    nodwyn: &str,
    repo: &std::path::Path,
    client: Arc<Client>,
    options: Options,
    frontend: Arc<FirstDelta>,
) -> Agent {
    let made: serde_json::Value =
        serde_json::from_str(&bench.run(nodwyn, repo, &["worktree", "new", "--json"])).unwrap();
    let id = made["session"].as_str().unwrap();
    let worktree = std::path::PathBuf::from(made["path"].as_str().unwrap());
    std::fs::create_dir_all(worktree.join(".nodwyn")).unwrap();
    std::fs::write(
        worktree.join(".nodwyn/init.scm"),
        "(define (on-call call) #f)\n",
    )
    .unwrap();
    let store = nodwyn_core::Store::new(bench.root.join("data"));
    let strategy = nodwyn_core::scripts::strategy::read_strategy(&worktree, None)
        .unwrap()
        .unwrap();
    nodwyn_core::scripts::strategy::approve(&store, repo, &strategy.sha256).unwrap();
    let runtime = SessionRuntime::open(
        store,
        id,
        Arc::new(Registry::builtin()),
        nodwyn_core::host::HostSettings::default(),
        nodwyn_core::services::Services::default(),
    )
    .unwrap();
    Agent::new(runtime, client, options, frontend).unwrap()
}

fn plain_first_token(url: &str) -> Duration {
    let address = url.trim_start_matches("http://");
    let body = json!({"model": "standin", "messages": [{"role": "user", "content": "hi"}], "stream": true}).to_string();
    let started = Instant::now();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let read = stream.read(&mut buffer).unwrap();
        assert!(read > 0, "the stand-in closed before any data");
        seen.extend_from_slice(&buffer[..read]);
        if seen.windows(6).any(|w| w == b"data: ") {
            return started.elapsed();
        }
    }
}
