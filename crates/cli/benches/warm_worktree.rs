//! Benchmark: a warm worktree. A Rust project with three dependencies is built once in its
//! checkout; then, on each file system this machine can offer (the temporary folder's, and btrfs
//! and XFS on loop devices made here when run as root with `mkfs.btrfs` and `mkfs.xfs`), it
//! times making a worktree with its `target/` included by `.worktreeinclude` (nodwyn clones each
//! file where the file system can) against `git worktree add` followed by `cp -R target`, and the
//! first `cargo build` in that worktree against the one in a cold worktree (no `target/`).
//!
//! Run: `cargo bench -p nodwyn --bench warm_worktree` (as root for btrfs and XFS; the
//! dependencies must be in cargo's local registry, as building nodwyn leaves them).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use common::{Bench, ms};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MANIFEST: &str = r#"[package]
name = "warm"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"
regex = "1"
"#;

const MAIN: &str = r#"use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Point { x: i64, y: i64 }

fn main() {
    let re = regex::Regex::new(r"(\d+),(\d+)").unwrap();
    let caps = re.captures("3,4").unwrap();
    let point = Point { x: caps[1].parse().unwrap(), y: caps[2].parse().unwrap() };
    println!("{}", serde_json::to_string(&point).unwrap());
}
"#;

fn main() {
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    let bench = Bench::new();
    let mut places: Vec<(String, PathBuf, Option<Mounted>)> = vec![(
        "ext4 (no reflinks)".to_owned(),
        bench.root.join("plain"),
        None,
    )];
    for (name, mkfs) in [("btrfs", "mkfs.btrfs"), ("xfs", "mkfs.xfs")] {
        match Mounted::make(&bench.root, name, mkfs) {
            Some(mounted) => places.push((
                format!("{name} (reflinks)"),
                mounted.folder.clone(),
                Some(mounted),
            )),
            None => eprintln!(
                "{name}: no loop device could be made here (root and {mkfs} are needed): not measured"
            ),
        }
    }
    println!(
        "a Rust project with serde, serde_json and regex, built once; {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for (name, at, _mounted) in &places {
        measure(&bench, nodwyn, name, at);
    }
}

fn measure(bench: &Bench, nodwyn: &str, name: &str, at: &Path) {
    let repo = at.join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::write(repo.join("src/main.rs"), MAIN).unwrap();
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    bench.git(&repo, &["init", "-q", "-b", "main"]);
    cargo(bench, &repo, &["generate-lockfile", "--offline"]);
    bench.git(&repo, &["add", "-A"]);
    bench.git(&repo, &["commit", "-q", "-m", "warm"]);
    cargo(bench, &repo, &["build", "--offline", "-q"]);
    std::fs::write(repo.join(".worktreeinclude"), "target/\n").unwrap();

    // A worktree with its target/: nodwyn's (cloned where it can) against git's and `cp -R`.
    let plain = at.join("plain-worktree");
    let started = Instant::now();
    bench.git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "plain",
            plain.to_str().unwrap(),
        ],
    );
    bench.run(
        "cp",
        &repo,
        &["-R", "target", plain.join("target").to_str().unwrap()],
    );
    let by_copy = started.elapsed();
    let (by_nodwyn, out) = bench.timed(nodwyn, &repo, &["worktree", "new", "--json"]);
    let made: serde_json::Value = serde_json::from_str(&out).unwrap();
    let warm = PathBuf::from(made["path"].as_str().unwrap());
    let counts = &made["include_counts"];

    // The first build: in the warm worktree, and in a cold one.
    let cold = at.join("cold-worktree");
    bench.git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "cold",
            cold.to_str().unwrap(),
        ],
    );
    let warm_build = timed_cargo(bench, &warm);
    let cold_build = timed_cargo(bench, &cold);

    println!("{name}:");
    println!(
        "  worktree with target/ ({} files, {} by reflink)  nodwyn {:>10}   git worktree add + cp -R {:>10}   ratio {:.2}x",
        counts["files"],
        counts["reflinked"],
        ms(by_nodwyn),
        ms(by_copy),
        by_nodwyn.as_secs_f64() / by_copy.as_secs_f64()
    );
    println!(
        "  first cargo build  warm (included target/) {:>10}   cold {:>10}   {:.1}x faster   (goal: 10x with reflinks)",
        ms(warm_build),
        ms(cold_build),
        cold_build.as_secs_f64() / warm_build.as_secs_f64()
    );
}

/// `cargo ARGS` in `dir`, with the person's cargo and rustup homes (the sandbox's HOME has none).
fn cargo(bench: &Bench, dir: &Path, args: &[&str]) {
    let output = cargo_command(bench, dir, args).output().unwrap();
    assert!(
        output.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn timed_cargo(bench: &Bench, dir: &Path) -> Duration {
    let started = Instant::now();
    cargo(bench, dir, &["build", "--offline", "-q"]);
    started.elapsed()
}

fn cargo_command(bench: &Bench, dir: &Path, args: &[&str]) -> Command {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let mut command = bench.command("cargo", dir, args);
    command
        .env(
            "CARGO_HOME",
            std::env::var_os("CARGO_HOME").unwrap_or_else(|| home.join(".cargo").into()),
        )
        .env(
            "RUSTUP_HOME",
            std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| home.join(".rustup").into()),
        )
        .env_remove("CARGO_TARGET_DIR")
        .stdout(Stdio::null());
    command
}

/// A file system of `kind` on a loop device, unmounted when dropped.
struct Mounted {
    folder: PathBuf,
}

impl Mounted {
    fn make(root: &Path, kind: &str, mkfs: &str) -> Option<Mounted> {
        let image = root.join(format!("{kind}.img"));
        let folder = root.join(kind);
        std::fs::create_dir_all(&folder).ok()?;
        let ok = |program: &str, args: &[&std::ffi::OsStr]| {
            Command::new(program)
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let made = ok(
            "truncate",
            &["-s".as_ref(), "4G".as_ref(), image.as_os_str()],
        ) && ok(mkfs, &["-q".as_ref(), image.as_os_str()])
            && ok(
                "mount",
                &[
                    "-o".as_ref(),
                    "loop".as_ref(),
                    image.as_os_str(),
                    folder.as_os_str(),
                ],
            );
        made.then_some(Mounted { folder })
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.folder).status();
    }
}
