//! Benchmark: what `nodwyn serve` costs and gives.
//!
//! - Events to 8 subscribers: one session's log of N records, sent by the daemon to 8 clients
//!   that subscribe at once (each until it holds the last `seq`), against 8 `nodwyn session
//!   events --json` processes reading the same log, which is what a program without the daemon
//!   would run to follow a session.
//! - Memory: the daemon's resident size before and after it holds 100 idle sessions.
//! - A tool call (`fs-read` of a small file) in a turn, through the daemon's socket and through
//!   the in-process client `nodwyn run` uses, against a `nodwyn call` process of the same
//!   primitive: a model answer with N calls minus a turn with none, divided by N (the stand-in
//!   model's round trip for each answer counts on both sides alike). Medians, alternating.
//!
//! Run: `cargo bench -p nodwyn --bench serve` (optionally `-- --records N --runs N --calls N`).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{Bench, arg, median, ms};
use nodwyn_standin::{StandIn, openai};
use serde_json::{Value, json};

/// One connection, speaking the wire.
struct Wire {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    next: u64,
    /// What arrived while a request waited for its answer (a subscribe's replay comes first).
    held: std::collections::VecDeque<Value>,
}

impl Wire {
    fn connect(socket: &Path) -> Self {
        let started = Instant::now();
        let stream = loop {
            match UnixStream::connect(socket) {
                Ok(stream) => break stream,
                Err(_) if started.elapsed() < Duration::from_secs(30) => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => panic!("the daemon did not start: {e}"),
            }
        };
        Self {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
            next: 0,
            held: std::collections::VecDeque::new(),
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let message =
            json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        writeln!(self.writer, "{message}").unwrap();
        loop {
            let message = self.read_line();
            if message.get("method").is_none() && message["id"] == self.next {
                assert!(message.get("error").is_none(), "{message}");
                return message["result"].clone();
            }
            self.held.push_back(message);
        }
    }

    fn read(&mut self) -> Value {
        match self.held.pop_front() {
            Some(message) => message,
            None => self.read_line(),
        }
    }

    fn read_line(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.reader.read_line(&mut line).unwrap() > 0,
            "the daemon went away"
        );
        serde_json::from_str(&line).unwrap()
    }
}

fn resident_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn main() {
    let records = arg("--records", 20_000);
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    let bench = Bench::new();
    let repo = bench.readme_repository();
    // Sessions are opened for turns, which need a model profile: the stand-in, which only the
    // tool calls' part calls.
    let model = StandIn::start(Vec::new());
    std::fs::create_dir_all(bench.root.join("home/.config/nodwyn")).unwrap();
    std::fs::write(
        bench.root.join("home/.config/nodwyn/config.toml"),
        format!(
            "[model]\nprovider = \"openai\"\nbase_url = \"{}/v1\"\nname = \"standin\"\n",
            model.url()
        ),
    )
    .unwrap();
    let socket = bench.root.join("run/d.sock");
    let mut daemon = bench
        .command(
            nodwyn,
            &repo,
            &["serve", "--socket", socket.to_str().unwrap()],
        )
        .spawn()
        .unwrap();
    let mut client = Wire::connect(&socket);
    let session =
        client.request("session.open", json!({"repo": repo, "worktree": "off"}))["session"]
            .as_str()
            .unwrap()
            .to_owned();
    // The log grows by N records of one kind, written as nodwyn writes them.
    let log = bench
        .root
        .join("data/sessions")
        .read_dir()
        .unwrap()
        .flat_map(|project| project.unwrap().path().read_dir().unwrap())
        .map(|entry| entry.unwrap().path())
        .find(|path| {
            path.to_string_lossy()
                .ends_with(&format!("{session}.jsonl"))
        })
        .expect("the session's log");
    let line = "{\"at\":\"2026-12-01T00:00:00.000Z\",\"type\":\"approval.timed_out\",\"request\":\"approval-1\",\"action\":\"fs-write notes.txt\",\"waited_seconds\":600}\n";
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .unwrap()
        .write_all(line.repeat(records).as_bytes())
        .unwrap();
    let last = client.request(
        "session.events",
        json!({"session": session, "after": u64::MAX}),
    )["last"]
        .as_u64()
        .unwrap();

    let started = Instant::now();
    let subscribers: Vec<_> = (0..8)
        .map(|_| {
            let (socket, session) = (socket.clone(), session.clone());
            std::thread::spawn(move || {
                let mut wire = Wire::connect(&socket);
                wire.request("session.subscribe", json!({"session": session, "after": 0}));
                loop {
                    let message = wire.read();
                    if message["params"]["seq"].as_u64() == Some(last) {
                        break;
                    }
                }
            })
        })
        .collect();
    for subscriber in subscribers {
        subscriber.join().unwrap();
    }
    let through_daemon = started.elapsed();

    let started = Instant::now();
    let readers: Vec<_> = (0..8)
        .map(|_| {
            bench
                .command(nodwyn, &repo, &["session", "events", &session, "--json"])
                .spawn()
                .unwrap()
        })
        .collect();
    for reader in readers {
        assert!(reader.wait_with_output().unwrap().status.success());
    }
    let processes = started.elapsed();
    let events = last * 8;
    println!("{last} events of one session to 8 clients:");
    println!(
        "  subscribed through nodwyn serve       {:>9}  ({:.0} events/s)",
        ms(through_daemon),
        events as f64 / through_daemon.as_secs_f64()
    );
    println!(
        "  8 nodwyn session events --json        {:>9}  ({:.1}x the daemon)",
        ms(processes),
        processes.as_secs_f64() / through_daemon.as_secs_f64().max(1e-9)
    );

    let before = resident_kib(daemon.id());
    for n in 0..100 {
        let folder = bench.root.join(format!("idle/{n}"));
        std::fs::create_dir_all(&folder).unwrap();
        client.request("session.open", json!({"repo": folder, "worktree": "off"}));
    }
    let after = resident_kib(daemon.id());
    println!(
        "the daemon's resident memory: {} MiB, {} MiB holding 100 more idle sessions ({} KiB each)",
        before / 1024,
        after / 1024,
        after.saturating_sub(before) / 100
    );
    tool_calls(&bench, nodwyn, &repo, &mut client, &model);
    let _ = daemon.kill();
    let _ = daemon.wait();
}

/// Fills `home` as a developer's is: keys and cloud logins, a GnuPG folder, gcloud's, browser
/// profiles, and folders of other tools.
fn a_developers_home(home: &Path) {
    let files: &[(&str, usize)] = &[
        (".ssh", 6),
        (".aws", 3),
        (".gnupg/private-keys-v1.d", 12),
        (".config/gcloud/logs/2026.12.01", 60),
        (".config/gcloud/configurations", 4),
        (".config/google-chrome/Default", 120),
        (".mozilla/firefox/abcd.default-release", 120),
        (".cargo", 8),
        (".docker", 3),
        (".kube/cache/discovery", 80),
    ];
    for (folder, count) in files {
        let folder = home.join(folder);
        std::fs::create_dir_all(&folder).unwrap();
        for n in 0..*count {
            std::fs::write(folder.join(format!("file-{n}")), "x\n").unwrap();
        }
    }
    for name in [".ssh/id_ed25519", ".aws/credentials", ".docker/config.json"] {
        std::fs::write(home.join(name), "secret\n").unwrap();
    }
    for n in 0..40 {
        std::fs::create_dir_all(home.join(format!(".config/tool-{n}"))).unwrap();
        std::fs::write(home.join(format!(".config/tool-{n}/settings.json")), "{}").unwrap();
    }
}

/// Works one turn of `session` with `text` through `turn` (which starts it and waits for its
/// end), the model answering `answers`; how long it took.
fn timed_turn(
    model: &StandIn,
    answers: Vec<nodwyn_standin::Reply>,
    turn: &mut dyn FnMut() -> Value,
) -> Duration {
    // Each turn composes its prompt in a Scheme engine made ahead in the background; a pause
    // (a person's between messages) lets it be made, so it takes no time from the calls.
    std::thread::sleep(Duration::from_millis(400));
    model.push(answers);
    let started = Instant::now();
    let completed = turn();
    assert_eq!(
        completed["params"]["end"]["reason"], "finished",
        "{completed}"
    );
    started.elapsed()
}

/// The tool calls' part: per call through the daemon, through the in-process client, and as a
/// `nodwyn call` process.
fn tool_calls(bench: &Bench, nodwyn: &str, repo: &Path, daemon: &mut Wire, model: &StandIn) {
    let (runs, calls) = (arg("--runs", 7), arg("--calls", 50));
    let home = bench.root.join("home");
    a_developers_home(&home);
    // What a call read of the person's files before a turn kept it: their credential files (a
    // walk of their home) and their standing answers.
    let mut learning = Vec::new();
    for _ in 0..25 {
        let started = Instant::now();
        let found = nodwyn_guard::credential_files(&home);
        nodwyn_core::host::standing_answers(repo).unwrap();
        learning.push(started.elapsed());
        assert!(found.len() >= 4, "{found:?}");
    }
    let learning = median(learning);
    let many: Vec<(&str, Value)> = (0..calls)
        .map(|_| ("fs-read", json!({"path": "README.md"})))
        .collect();
    let many_answers = || vec![openai::answer("", &many, (10, 10)), openai::text("done")];
    // Through the socket: one session, subscribed, each turn followed to its end.
    let on_daemon =
        daemon.request("session.open", json!({"repo": repo, "worktree": "off"}))["session"]
            .as_str()
            .unwrap()
            .to_owned();
    daemon.request("session.subscribe", json!({"session": on_daemon}));
    let mut daemon_turn = |text: &str| {
        daemon.request("turn.start", json!({"session": on_daemon, "text": text}));
        loop {
            let message = daemon.read();
            if message["method"] == "turn.completed" {
                return message;
            }
        }
    };
    // In-process: an engine of this process, reached as `nodwyn run` reaches its own (which,
    // as the daemon does, makes a turn's Scheme engine ahead).
    nodwyn_core::scheme::keep_warm(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let engine = nodwyn_server::Engine {
        store: nodwyn_core::Store::new(bench.root.join("data")),
        registry: std::sync::Arc::new(nodwyn_core::prim::Registry::builtin()),
        // The daemon's environment: the sandbox's home (the guard reads the person's files
        // there), nothing else.
        host: {
            let mut host = nodwyn_core::host::HostSettings::from_environment([
                ("HOME".into(), bench.root.join("home").into_os_string()),
                ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
            ]);
            host.choose_sandbox(
                &nodwyn_core::host::SandboxChoice::default(),
                Some(nodwyn.into()),
                &bench.root.join("data"),
            );
            host
        },
        services: nodwyn_core::services::Services::default(),
        user_config: Some(bench.root.join("home/.config/nodwyn/config.toml")),
        scripts: nodwyn_core::scripts::ScriptOptions::default(),
        overrides: nodwyn_server::engine::Overrides::default(),
    };
    let server = nodwyn_server::Server::new(
        engine,
        nodwyn_server::Limits::default(),
        Duration::from_secs(600),
        runtime.handle().clone(),
    );
    let mut local = nodwyn_server::client::Client::in_process(server, runtime.handle().clone());
    let in_process = local
        .request("session.open", json!({"repo": repo, "worktree": "off"}))
        .unwrap()["session"]
        .as_str()
        .unwrap()
        .to_owned();
    local
        .request("session.subscribe", json!({"session": in_process}))
        .unwrap();
    let mut local_turn = |text: &str| {
        local
            .request("turn.start", json!({"session": in_process, "text": text}))
            .unwrap();
        loop {
            if let Some(message) = local.next(Duration::from_secs(30)).unwrap()
                && message["method"] == "turn.completed"
            {
                return message;
            }
        }
    };
    let call_args = json!({"path": "README.md"}).to_string();
    let (mut through_daemon, mut through_client, mut processes) =
        (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let empty = timed_turn(model, vec![openai::text("done")], &mut || {
            daemon_turn("answer")
        });
        let full = timed_turn(model, many_answers(), &mut || daemon_turn("read it"));
        through_daemon.push(full.saturating_sub(empty) / calls as u32);

        let empty = timed_turn(model, vec![openai::text("done")], &mut || {
            local_turn("answer")
        });
        let full = timed_turn(model, many_answers(), &mut || local_turn("read it"));
        through_client.push(full.saturating_sub(empty) / calls as u32);

        let (took, out) = bench.timed(
            nodwyn,
            repo,
            &["call", "--session", &in_process, "fs-read", &call_args],
        );
        assert!(out.contains("hello"), "{out}");
        processes.push(took);
    }
    let (daemon, client, process) = (
        median(through_daemon),
        median(through_client),
        median(processes),
    );
    println!("a tool call (fs-read of a small file) in a turn, median of {runs} turns of {calls}:");
    let fine = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0);
    println!(
        "  through nodwyn serve's socket         {:>9}",
        fine(daemon)
    );
    println!(
        "  through the in-process client         {:>9}  ({:.2}x the daemon)",
        fine(client),
        client.as_secs_f64() / daemon.as_secs_f64().max(1e-9)
    );
    println!(
        "  a nodwyn call process                 {:>9}  ({:.0}x the daemon)",
        fine(process),
        process.as_secs_f64() / daemon.as_secs_f64().max(1e-9)
    );
    println!(
        "  reading the person's credential files and standing answers {} (once a turn; each call did it before)",
        fine(learning)
    );
    drop(local);
    runtime.shutdown_background();
}
