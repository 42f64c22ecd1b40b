//! Benchmark: what a turn's beginning costs in a worktree session, now that it keeps a snapshot
//! of the worktree's files (for a review of what the turn changed): `start_turn` in a worktree
//! of a generated repository of 20,000 files, with 50 files changed and 50 new, against
//! `git status --porcelain` in the same worktree, which a person would run to see where the
//! work stands. Medians side by side, alternating.
//!
//! Run: `cargo bench -p nodwyn --bench turn_start` (optionally `-- --files N --runs N`).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use std::time::Instant;

use common::{Bench, arg, median, ms};

fn main() {
    let files = arg("--files", 20_000);
    let runs = arg("--runs", 15);
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    eprintln!("building a repository of {files} files...");
    let bench = Bench::new();
    let repo = bench.generated_repository(files);
    let made: serde_json::Value =
        serde_json::from_str(&bench.run(nodwyn, &repo, &["worktree", "new", "--json"])).unwrap();
    let id = made["session"].as_str().unwrap().to_owned();
    let worktree = std::path::PathBuf::from(made["path"].as_str().unwrap());
    for i in 0..50 {
        let changed = worktree.join(format!("src/m{:03}/f{:05}.rs", i, i * 100));
        std::fs::write(&changed, format!("// changed {i}\n")).unwrap();
        std::fs::write(worktree.join(format!("new-{i}.txt")), format!("new {i}\n")).unwrap();
    }
    let runtime = bench.runtime(&id);
    let (mut snapshot, mut status) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let started = Instant::now();
        drop(runtime.start_turn().unwrap());
        snapshot.push(started.elapsed());
        let (t, _) = bench.timed("git", &worktree, &["status", "--porcelain"]);
        status.push(t);
    }
    let (snapshot, status) = (median(snapshot), median(status));
    println!("median of {runs} runs, repository of {files} files, 50 changed and 50 new");
    println!(
        "turn start in a worktree  nodwyn {:>9}   git status --porcelain {:>9}   ratio {:.2}x",
        ms(snapshot),
        ms(status),
        snapshot.as_secs_f64() / status.as_secs_f64()
    );
}
