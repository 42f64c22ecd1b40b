//! Benchmark: a primitive call over MCP against the same call through a `nodwyn call` process.
//! One `nodwyn mcp` server, spoken to in JSON-RPC on its stdin and stdout as an MCP client would
//! (initialize, `worktree_create`, then `fs_read` again and again), against `nodwyn call fs-read`
//! of the same file in the same session, a process each time. Medians side by side.
//!
//! Run: `cargo bench -p nodwyn --bench mcp` (optionally `-- --runs N`; `-- --allow-toml` gives
//! the repository a `.nodwyn/allow.toml`, which every call judges against).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Stdio};
use std::time::Instant;

use common::{Bench, arg, median, ms};
use serde_json::{Value, json};

/// A JSON-RPC conversation with the server.
struct Client {
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let message =
            json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "the server went away"
            );
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == self.next {
                return reply;
            }
        }
    }

    fn notify(&mut self, method: &str) {
        writeln!(
            self.input,
            "{}",
            json!({"jsonrpc": "2.0", "method": method})
        )
        .unwrap();
        self.input.flush().unwrap();
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(reply["result"]["isError"] != true, "{reply}");
        reply
    }
}

fn main() {
    let runs = arg("--runs", 50);
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    let bench = Bench::new();
    let repo = bench.readme_repository();
    let with_allow_toml = std::env::args().any(|a| a == "--allow-toml");
    if with_allow_toml {
        std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
        std::fs::write(repo.join(".nodwyn/allow.toml"), "writes = [\"docs/**\"]\n").unwrap();
    }

    let mut server = bench
        .command(nodwyn, &repo, &["mcp"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut client = Client {
        input: server.stdin.take().unwrap(),
        output: BufReader::new(server.stdout.take().unwrap()),
        next: 0,
    };
    client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}),
    );
    client.notify("notifications/initialized");
    let created = client.call("worktree_create", json!({}));
    let text = created["result"]["content"][0]["text"].as_str().unwrap();
    let id = serde_json::from_str::<Value>(text).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let args = json!({"path": "README.md"}).to_string();

    let (mut over_mcp, mut processes) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let started = Instant::now();
        let reply = client.call("fs_read", json!({"path": "README.md"}));
        over_mcp.push(started.elapsed());
        assert!(reply.to_string().contains("hello"));

        let (t, out) = bench.timed(nodwyn, &repo, &["call", "--session", &id, "fs-read", &args]);
        assert!(out.contains("hello"), "{out}");
        processes.push(t);
    }
    drop(client);
    let _ = server.wait();
    let (over_mcp, processes) = (median(over_mcp), median(processes));
    let standing = if with_allow_toml {
        ", with an allow.toml"
    } else {
        ""
    };
    println!("one fs-read call{standing}, median of {runs} alternating runs:");
    println!("  over MCP (one nodwyn mcp server)   {:>9}", ms(over_mcp));
    println!(
        "  nodwyn call, a process each        {:>9}  ({:.0}x the MCP call)",
        ms(processes),
        processes.as_secs_f64() / over_mcp.as_secs_f64().max(1e-9)
    );
}
