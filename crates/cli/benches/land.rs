//! Benchmark: `nodwyn land` against the same steps typed by hand with `git` (add, commit, fetch,
//! rebase onto the fetched main, push, fast-forward the local main), on a generated repository
//! with a bare remote. Each side lands one changed file per run, alternating, so every landing
//! rebases onto the other side's last push. The medians are printed side by side with their ratio.
//! nodwyn does more than the typed steps (it leaves credential files out, scans what leaves, and
//! moves main only safely); the ratio is the price of that.
//!
//! Run: `cargo bench -p nodwyn --bench land` (optionally `-- --files N --runs N`).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use common::{Bench, arg, median, ms};

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let files = arg("--files", 2_000);
    let runs = arg("--runs", 9);
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    eprintln!("building a repository of {files} files with a bare remote...");
    let bench = Bench::new();
    let repo = bench.repo.clone();
    bench.git(&repo, &["init", "-q"]);
    for i in 0..files {
        let folder = repo.join(format!("src/m{:03}", i / 100));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("f{i:05}.rs")), format!("// file {i}\n")).unwrap();
    }
    bench.git(&repo, &["add", "-A"]);
    bench.git(&repo, &["commit", "-q", "-m", "files"]);
    let remote = bench.root.join("remote.git");
    bench.git(
        &bench.root,
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    bench.git(
        &repo,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    bench.git(&repo, &["push", "-q", "-u", "origin", "main"]);

    let (mut by_hand, mut landed) = (Vec::new(), Vec::new());
    for i in 0..runs {
        // By hand: a worktree on a branch of its own (untimed), one change, then the steps.
        let path = bench.root.join(format!("hand-{i}"));
        let branch = format!("hand/{i}");
        bench.git(
            &repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                &branch,
                path.to_str().unwrap(),
            ],
        );
        std::fs::write(path.join(format!("hand-{i}.txt")), "by hand\n").unwrap();
        let started = Instant::now();
        bench.git(&path, &["add", "-A"]);
        bench.git(&path, &["commit", "-q", "-m", "by hand"]);
        bench.git(&path, &["fetch", "-q", "origin", "main"]);
        bench.git(&path, &["rebase", "-q", "origin/main"]);
        bench.git(&path, &["push", "-q", "origin", "HEAD:main"]);
        bench.git(&repo, &["merge", "-q", "--ff-only", &branch]);
        by_hand.push(started.elapsed());

        // nodwyn: a session (untimed), one change, then `nodwyn land`.
        let out = bench.run(nodwyn, &repo, &["worktree", "new", "--json"]);
        let made: serde_json::Value = serde_json::from_str(&out).unwrap();
        let path = PathBuf::from(made["path"].as_str().unwrap());
        std::fs::write(path.join(format!("nodwyn-{i}.txt")), "by nodwyn\n").unwrap();
        let id = made["id"].as_str().unwrap();
        let (t, _) = bench.timed(nodwyn, &repo, &["land", id, "-m", "by nodwyn"]);
        landed.push(t);
    }
    let pushed = bench.git(&remote, &["rev-list", "--count", "main"]);
    assert_eq!(
        pushed.trim(),
        (1 + 2 * runs).to_string(),
        "every landing reached the remote"
    );

    let (ours, theirs) = (median(landed), median(by_hand));
    println!(
        "median of {runs} runs, repository of {files} files, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "{:<34} nodwyn {:>10}   {:<34} {:>10}   ratio {:.2}x",
        "land (commit, rebase, push, main)",
        ms(ours),
        "git add/commit/fetch/rebase/push/merge",
        ms(theirs),
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
}
