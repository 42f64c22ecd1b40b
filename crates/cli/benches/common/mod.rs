//! What the benchmark programs share: reading their options, taking medians, and a sandbox
//! (temporary home, data directory and git identity) in which both sides of a comparison run.

#![allow(dead_code)] // Each benchmark uses its own part of this module.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A temporary sandbox: `home/` with a git identity, `data/` for nodwyn, and `repo/`, an empty
/// folder for the benchmark's repository. Commands run with only these variables and `PATH`.
pub(crate) struct Bench {
    /// The sandbox's folder.
    pub root: PathBuf,
    /// `root/repo`.
    pub repo: PathBuf,
    _dir: tempfile::TempDir,
}

impl Bench {
    /// A fresh sandbox.
    pub(crate) fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("nodwyn-bench-")
            .tempdir()
            .unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        std::fs::write(
            root.join("home/.gitconfig"),
            "[user]\n\tname = Bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n",
        )
        .unwrap();
        let repo = root.join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        Self {
            root,
            repo,
            _dir: dir,
        }
    }

    /// `program ARGS` in `dir` with the sandbox's environment, not yet run.
    pub(crate) fn command(&self, program: &str, dir: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.join("home"))
            .env("NODWYN_HOME", self.root.join("data"))
            .env("GIT_CONFIG_GLOBAL", self.root.join("home/.gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Runs it, asserts success, and returns stdout.
    pub(crate) fn run(&self, program: &str, dir: &Path, args: &[&str]) -> String {
        let output = self.command(program, dir, args).output().unwrap();
        assert!(
            output.status.success(),
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// Runs it and times it.
    pub(crate) fn timed(&self, program: &str, dir: &Path, args: &[&str]) -> (Duration, String) {
        let started = Instant::now();
        let out = self.run(program, dir, args);
        (started.elapsed(), out)
    }

    /// Runs `git`.
    pub(crate) fn git(&self, dir: &Path, args: &[&str]) -> String {
        self.run("git", dir, args)
    }

    /// `repo/` made a repository of `files` small Rust files, a hundred to a folder, in one
    /// commit.
    pub(crate) fn generated_repository(&self, files: usize) -> PathBuf {
        let repo = self.repo.clone();
        self.git(&repo, &["init", "-q"]);
        for i in 0..files {
            let folder = repo.join(format!("src/m{:03}", i / 100));
            if i % 100 == 0 {
                std::fs::create_dir_all(&folder).unwrap();
            }
            std::fs::write(
                folder.join(format!("f{i:05}.rs")),
                format!("// file {i}\npub fn f{i}() -> usize {{ {i} }}\n"),
            )
            .unwrap();
        }
        self.git(&repo, &["add", "-A"]);
        self.git(&repo, &["commit", "-q", "-m", &format!("{files} files")]);
        repo
    }

    /// Session `id` of the sandbox's data directory, held open for turns as an agent holds it.
    pub(crate) fn runtime(&self, id: &str) -> std::sync::Arc<nodwyn_core::turn::SessionRuntime> {
        nodwyn_core::turn::SessionRuntime::open(
            nodwyn_core::Store::new(self.root.join("data")),
            id,
            std::sync::Arc::new(nodwyn_core::prim::Registry::builtin()),
            nodwyn_core::host::HostSettings::default(),
            nodwyn_core::services::Services::default(),
        )
        .unwrap()
    }

    /// `nodwyn serve` started in the sandbox, once its socket is there; stopped when dropped.
    pub(crate) fn serve(&self, nodwyn: &str) -> Daemon {
        let child = self
            .command(nodwyn, &self.root, &["serve"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let socket = self.root.join("data/run/nodwyn.sock");
        let deadline = Instant::now() + Duration::from_secs(30);
        while !socket.exists() {
            assert!(Instant::now() < deadline, "nodwyn serve did not start");
            std::thread::sleep(Duration::from_millis(10));
        }
        Daemon(child)
    }

    /// `repo/` made a repository with one commit holding `README.md` ("hello"); its folder.
    pub(crate) fn readme_repository(&self) -> PathBuf {
        let repo = self.repo.clone();
        self.git(&repo, &["init", "-q"]);
        std::fs::write(repo.join("README.md"), "hello\n").unwrap();
        self.git(&repo, &["add", "-A"]);
        self.git(&repo, &["commit", "-q", "-m", "first"]);
        repo
    }
}

/// A running `nodwyn serve`, stopped (SIGTERM) when dropped.
pub(crate) struct Daemon(std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let _ = self.0.wait();
    }
}

/// Changes a file of worktree `path` (`src/m001/f00100.rs`, which the generated repositories
/// hold) on even runs and puts it back on odd ones, as an agent at work would between two lists.
pub(crate) fn change_in(path: &Path, run: usize) {
    let file = path.join("src/m001/f00100.rs");
    let text = match run % 2 {
        0 => "// changed between two lists\n".to_owned(),
        _ => "// file 100\npub fn f100() -> usize { 100 }\n".to_owned(),
    };
    std::fs::write(file, text).unwrap();
}

/// A duration in milliseconds, for reports.
pub(crate) fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The median of some timings.
pub(crate) fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The number after `--name` on the command line, or `default`.
pub(crate) fn arg(name: &str, default: usize) -> usize {
    text_arg(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The text after `--name` on the command line.
pub(crate) fn text_arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}
