//! Benchmark: a strategy that reads many files, written three ways. One `nodwyn eval` script
//! calls `fs-read` N times (each call judged by the guard and logged); N `nodwyn call fs-read`
//! processes do the same one by one (what a shell script driving nodwyn would run); and `cat` of
//! the N files, the floor with no guard and no log. Also the time `nodwyn prompt` takes to
//! compose the default prompt (mostly starting the Scheme engine). Medians side by side.
//!
//! Run: `cargo bench -p nodwyn --bench scheme` (optionally `-- --files N --runs N`).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use common::{Bench, arg, median, ms};

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let files = arg("--files", 50);
    let runs = arg("--runs", 7);
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    let bench = Bench::new();
    let repo = bench.repo.clone();
    bench.git(&repo, &["init", "-q"]);
    let names: Vec<String> = (0..files).map(|i| format!("notes/n{i:03}.txt")).collect();
    std::fs::create_dir_all(repo.join("notes")).unwrap();
    for (i, name) in names.iter().enumerate() {
        std::fs::write(repo.join(name), format!("note {i}\n").repeat(20)).unwrap();
    }
    bench.git(&repo, &["add", "-A"]);
    bench.git(&repo, &["commit", "-q", "-m", "notes"]);
    let out = bench.run(nodwyn, &repo, &["worktree", "new", "--json"]);
    let made: serde_json::Value = serde_json::from_str(&out).unwrap();
    let id = made["id"].as_str().unwrap().to_owned();
    let worktree = PathBuf::from(made["path"].as_str().unwrap());
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let script = format!(
        "(apply + (map (lambda (path) (string-length (field (fs-read path) \"content\"))) (list {})))",
        quoted.join(" ")
    );
    let (mut scripted, mut called, mut plain, mut prompt) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let (t, out) = bench.timed(nodwyn, &repo, &["eval", "--session", &id, &script]);
        assert!(out.trim().parse::<usize>().unwrap() > 0);
        scripted.push(t);

        let started = Instant::now();
        for name in &names {
            let args = serde_json::json!({ "path": name }).to_string();
            bench.run(nodwyn, &repo, &["call", "--session", &id, "fs-read", &args]);
        }
        called.push(started.elapsed());

        let mut cat_args = vec![];
        cat_args.extend(names.iter().map(String::as_str));
        let (t, _) = bench.timed("cat", &worktree, &cat_args);
        plain.push(t);

        let (t, _) = bench.timed(nodwyn, &repo, &["prompt", "--session", &id]);
        prompt.push(t);
    }
    let (scripted, called, plain, prompt) = (
        median(scripted),
        median(called),
        median(plain),
        median(prompt),
    );
    println!("reading {files} files, median of {runs} runs:");
    println!("  nodwyn eval, one script      {:>9}", ms(scripted));
    println!(
        "  nodwyn call, one per file    {:>9}  ({:.1}x the script)",
        ms(called),
        called.as_secs_f64() / scripted.as_secs_f64()
    );
    println!(
        "  cat (no guard, no log)       {:>9}  (the script is {:.0}x cat)",
        ms(plain),
        scripted.as_secs_f64() / plain.as_secs_f64()
    );
    println!(
        "nodwyn prompt (default prompt, engine start included): {}",
        ms(prompt)
    );
}
