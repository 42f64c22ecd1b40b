//! Benchmark: what `nodwyn serve` costs and gives.
//!
//! - Events to 8 subscribers: one session's log of N records, sent by the daemon to 8 clients
//!   that subscribe at once (each until it holds the last `seq`), against 8 `nodwyn session
//!   events --json` processes reading the same log, which is what a program without the daemon
//!   would run to follow a session.
//! - Memory: the daemon's resident size before and after it holds 100 idle sessions.
//!
//! Run: `cargo bench -p nodwyn --bench serve` (optionally `-- --records N`, default 20000).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{Bench, arg, ms};
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
    // Sessions are opened for turns, which need a model profile; no model is called.
    std::fs::create_dir_all(bench.root.join("home/.config/nodwyn")).unwrap();
    std::fs::write(
        bench.root.join("home/.config/nodwyn/config.toml"),
        "[model]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nname = \"none\"\n",
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
    let _ = daemon.kill();
    let _ = daemon.wait();
}
