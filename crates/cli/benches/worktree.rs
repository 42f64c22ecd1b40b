//! Benchmark: `nodwyn worktree new` against plain `git worktree add -b`, `nodwyn worktree
//! remove --force` of a worktree holding a build's output (`--build-files`, ignored) against
//! `git worktree remove --force`, and `nodwyn worktree list` with 30 worktrees against the loop
//! of git commands a person would otherwise run, on its own and with `nodwyn serve` running (whose
//! watcher `list` asks), on a generated repository of 20,000 files. Both sides run in the same
//! process, alternating, and the medians are printed side by side with their ratio.
//!
//! Run: `cargo bench -p nodwyn --bench worktree` (optionally `-- --files N --runs N`).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use common::{Bench, arg, change_in, median, ms};

use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let files = arg("--files", 20_000);
    let runs = arg("--runs", 7);
    let worktrees = arg("--worktrees", 30);
    let build_files = arg("--build-files", 20_000);
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    eprintln!("building a repository of {files} files...");
    let bench = Bench::new();
    let repo = &bench.generated_repository(files);

    // `new` against `git worktree add -b`, alternating; each worktree is removed (untimed).
    let (mut git_new, mut nodwyn_new) = (Vec::new(), Vec::new());
    for i in 0..runs {
        let path = bench.root.join(format!("plain-{i}"));
        let (t, _) = bench.timed(
            "git",
            repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                &format!("plain/{i}"),
                path.to_str().unwrap(),
            ],
        );
        git_new.push(t);
        bench.git(
            repo,
            &["worktree", "remove", "--force", path.to_str().unwrap()],
        );

        let (t, out) = bench.timed(nodwyn, repo, &["worktree", "new", "--json"]);
        nodwyn_new.push(t);
        let made: serde_json::Value = serde_json::from_str(&out).unwrap();
        bench.run(
            nodwyn,
            repo,
            &[
                "worktree",
                "remove",
                "--force",
                made["id"].as_str().unwrap(),
            ],
        );
    }

    // `remove --force` of a worktree with a build's output in it (ignored), against git's: git
    // deletes every file before it returns; nodwyn keeps a snapshot of the changes, moves the
    // folder into its trash and empties that in the background.
    std::fs::write(repo.join(".git/info/exclude"), "target/\n").unwrap();
    let build = |path: &std::path::Path| {
        for i in 0..build_files {
            let folder = path.join(format!("target/debug/deps/d{:03}", i % 200));
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join(format!("f{i}.o")), [0u8; 512]).unwrap();
        }
        std::fs::write(path.join("src/m000/f00000.rs"), "// edited\n").unwrap();
    };
    let (mut git_remove, mut nodwyn_remove) = (Vec::new(), Vec::new());
    for i in 0..runs {
        let path = bench.root.join(format!("built-{i}"));
        bench.git(
            repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                &format!("built/{i}"),
                path.to_str().unwrap(),
            ],
        );
        build(&path);
        let (t, _) = bench.timed(
            "git",
            repo,
            &["worktree", "remove", "--force", path.to_str().unwrap()],
        );
        git_remove.push(t);

        let out = bench.run(nodwyn, repo, &["worktree", "new", "--json"]);
        let made: serde_json::Value = serde_json::from_str(&out).unwrap();
        build(std::path::Path::new(made["path"].as_str().unwrap()));
        let (t, _) = bench.timed(
            nodwyn,
            repo,
            &[
                "worktree",
                "remove",
                "--force",
                made["id"].as_str().unwrap(),
            ],
        );
        nodwyn_remove.push(t);
    }

    // `list` with 30 worktrees against the loop: worktree list, then per worktree its status
    // and its commits ahead of the base.
    let mut made = Vec::new();
    for i in 0..worktrees {
        let out = bench.run(nodwyn, repo, &["worktree", "new", "--json"]);
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        let path = PathBuf::from(value["path"].as_str().unwrap());
        if i % 3 == 0 {
            std::fs::write(path.join("src/m000/f00000.rs"), "// edited\n").unwrap();
        }
        made.push((path, value["branch"].as_str().unwrap().to_owned()));
    }
    // One run of each, alternating: the git loop, then `nodwyn worktree list`.
    let side_by_side = |git_times: &mut Vec<Duration>, nodwyn_times: &mut Vec<Duration>| {
        let started = Instant::now();
        bench.git(repo, &["worktree", "list", "--porcelain"]);
        for (path, branch) in &made {
            bench.git(path, &["status", "--porcelain"]);
            bench.git(repo, &["rev-list", "--count", &format!("main..{branch}")]);
        }
        git_times.push(started.elapsed());
        let (t, out) = bench.timed(nodwyn, repo, &["worktree", "list", "--json"]);
        nodwyn_times.push(t);
        let listed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(listed.as_array().unwrap().len(), worktrees);
    };
    let (mut git_list, mut nodwyn_list) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        side_by_side(&mut git_list, &mut nodwyn_list);
    }
    // The same with `nodwyn serve` running, whose watcher keeps each worktree's answer until
    // something it depends on changes; before each run one worktree's file is changed or put
    // back, so each run checks at least that one again. The first list (every worktree
    // checked) is not timed.
    let daemon = bench.serve(nodwyn);
    bench.run(nodwyn, repo, &["worktree", "list", "--json"]);
    let (mut git_watched, mut nodwyn_watched) = (Vec::new(), Vec::new());
    for run in 0..runs {
        change_in(&made[1].0, run);
        side_by_side(&mut git_watched, &mut nodwyn_watched);
    }
    drop(daemon);

    let report =
        |what: &str, ours: Vec<Duration>, theirs: Vec<Duration>, other: &str, target: &str| {
            let (ours, theirs) = (median(ours), median(theirs));
            println!(
                "{what:<34} nodwyn {:>10}   {other:<34} {:>10}   ratio {:.2}x   (target: {target})",
                ms(ours),
                ms(theirs),
                ours.as_secs_f64() / theirs.as_secs_f64()
            );
        };
    println!(
        "median of {runs} runs, repository of {files} files, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    report(
        "worktree new",
        nodwyn_new,
        git_new,
        "git worktree add -b",
        "<= 1.10x",
    );
    report(
        &format!("worktree remove --force ({build_files} built)"),
        nodwyn_remove,
        git_remove,
        "git worktree remove --force",
        "< 0.50x",
    );
    report(
        &format!("worktree list ({worktrees} worktrees)"),
        nodwyn_list,
        git_list,
        "git loop (list+status+rev-list)",
        "< 1.00x",
    );
    report(
        "worktree list, nodwyn serve running",
        nodwyn_watched,
        git_watched,
        "git loop (list+status+rev-list)",
        "<= 0.30x",
    );
}
