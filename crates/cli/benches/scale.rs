//! Benchmark: hundreds of sessions. On a generated repository (`--files`, default 2,000), makes
//! `--sessions` worktree sessions (default 300), a third of them with a change, all closed (a
//! closed worktree with a change stays), and times, side by side in one run: `nodwyn worktree
//! list` (on its own, then with `nodwyn serve` running) against the git loop a person would
//! script (`git worktree list`, then `git status --porcelain` and `git rev-list --count
//! main..BRANCH` for each), `nodwyn worktree prune --dry-run` against `git status --porcelain`
//! for each, and `nodwyn session list`.
//!
//! Run: `cargo bench -p nodwyn --bench scale` (optionally `-- --sessions N --files N --runs N`).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use common::{Bench, arg, change_in, median, ms};

use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let files = arg("--files", 2_000);
    let sessions = arg("--sessions", 300);
    let runs = arg("--runs", 5);
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    eprintln!("building a repository of {files} files and {sessions} sessions...");
    let bench = Bench::new();
    let repo = &bench.generated_repository(files);
    let mut made = Vec::new();
    for i in 0..sessions {
        let out = bench.run(nodwyn, repo, &["worktree", "new", "--json", "--no-hooks"]);
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        let path = PathBuf::from(value["path"].as_str().unwrap());
        if i % 3 == 0 {
            std::fs::write(path.join("src/m000/f00000.rs"), "// edited\n").unwrap();
        }
        made.push((path, value["branch"].as_str().unwrap().to_owned()));
    }
    let git_loop = |with_ahead: bool| {
        let started = Instant::now();
        bench.git(repo, &["worktree", "list", "--porcelain"]);
        for (path, branch) in &made {
            if !path.exists() {
                continue;
            }
            bench.git(path, &["status", "--porcelain"]);
            if with_ahead {
                bench.git(repo, &["rev-list", "--count", &format!("main..{branch}")]);
            }
        }
        started.elapsed()
    };
    // `list` with every session open and its worktree there.
    let (mut git_list, mut nodwyn_list) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        git_list.push(git_loop(true));
        nodwyn_list.push(bench.timed(nodwyn, repo, &["worktree", "list", "--json"]).0);
    }
    // The same with `nodwyn serve` running (see the worktree benchmark): one worktree changed
    // before each run, the first list untimed.
    let daemon = bench.serve(nodwyn);
    bench.run(nodwyn, repo, &["worktree", "list", "--json"]);
    let (mut git_watched, mut nodwyn_watched) = (Vec::new(), Vec::new());
    for run in 0..runs {
        change_in(&made[1].0, run);
        git_watched.push(git_loop(true));
        nodwyn_watched.push(bench.timed(nodwyn, repo, &["worktree", "list", "--json"]).0);
    }
    drop(daemon);
    // Then all closed: the clean worktrees go, those with a change stay for prune to judge.
    bench.run(nodwyn, repo, &["worktree", "close", "--all"]);
    let (mut git_status, mut nodwyn_prune) = (Vec::new(), Vec::new());
    let mut session_list = Vec::new();
    for _ in 0..runs {
        git_status.push(git_loop(false));
        nodwyn_prune.push(
            bench
                .timed(nodwyn, repo, &["worktree", "prune", "--dry-run", "--json"])
                .0,
        );
        session_list.push(bench.timed(nodwyn, repo, &["session", "list", "--json"]).0);
    }
    let kept = made.iter().filter(|(path, _)| path.exists()).count();
    println!(
        "median of {runs} runs, {sessions} sessions ({kept} worktrees left, with a change), repository of {files} files, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let report = |what: &str, ours: Vec<Duration>, theirs: Vec<Duration>, other: &str| {
        let (ours, theirs) = (median(ours), median(theirs));
        println!(
            "{what:<28} nodwyn {:>10}   {other:<32} {:>10}   ratio {:.2}x",
            ms(ours),
            ms(theirs),
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    };
    report(
        &format!("worktree list ({sessions} open)"),
        nodwyn_list,
        git_list,
        "git loop (list+status+rev-list)",
    );
    report(
        "worktree list, serve running",
        nodwyn_watched,
        git_watched,
        "git loop (list+status+rev-list)",
    );
    report(
        "worktree prune --dry-run",
        nodwyn_prune,
        git_status,
        "git loop (list+status)",
    );
    println!(
        "{:<28} nodwyn {:>10}",
        "session list",
        ms(median(session_list))
    );
}
