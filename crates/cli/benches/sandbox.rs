//! Benchmark: what confinement costs a command. The same `nodwyn call shell-exec` of a short
//! command, alternating between the sandbox on (the supervisor, the exec step with its user, mount
//! and PID namespaces, Landlock and the filter, the end of the tree), the sandbox on without the
//! namespaces (`[sandbox] namespaces = false`), and `[sandbox] mode = "off"` in the person's
//! configuration, against the command started directly (`sh -c`), the floor with no nodwyn at
//! all. Medians side by side.
//!
//! Run: `cargo bench -p nodwyn --bench sandbox` (optionally `-- --runs N`).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use common::{Bench, arg, median, ms};

fn main() {
    let runs = arg("--runs", 21);
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    let bench = Bench::new();
    let repo = bench.readme_repository();
    std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
    std::fs::write(repo.join(".nodwyn/allow.toml"), "commands = [[\"sh\"]]\n").unwrap();
    let out = bench.run(nodwyn, &repo, &["worktree", "new", "--json"]);
    let made: serde_json::Value = serde_json::from_str(&out).unwrap();
    let id = made["id"].as_str().unwrap().to_owned();
    let config = bench.root.join("home/.config/nodwyn/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let script = "echo hello; ls > /dev/null";
    let args = serde_json::json!({ "argv": ["sh", "-c", script] }).to_string();
    let call = [
        "call",
        "--session",
        id.as_str(),
        "shell-exec",
        args.as_str(),
    ];
    let (mut confined, mut landlock_only, mut unconfined, mut direct) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        std::fs::write(&config, "").unwrap();
        let (t, out) = bench.timed(nodwyn, &repo, &call);
        assert!(out.contains("\"sandbox\": \"on\""), "{out}");
        confined.push(t);

        std::fs::write(&config, "[sandbox]\nnamespaces = false\n").unwrap();
        let (t, out) = bench.timed(nodwyn, &repo, &call);
        assert!(out.contains("\"sandbox\": \"on\""), "{out}");
        landlock_only.push(t);

        std::fs::write(&config, "[sandbox]\nmode = \"off\"\n").unwrap();
        let (t, out) = bench.timed(nodwyn, &repo, &call);
        assert!(out.contains("\"sandbox\": \"off\""), "{out}");
        unconfined.push(t);

        let (t, _) = bench.timed("sh", &repo, &["-c", script]);
        direct.push(t);
    }
    let (confined, landlock_only, unconfined, direct) = (
        median(confined),
        median(landlock_only),
        median(unconfined),
        median(direct),
    );
    println!("one short command, median of {runs} alternating runs:");
    println!("  nodwyn call shell-exec, confined     {:>9}", ms(confined));
    println!(
        "  ... confined without namespaces      {:>9}  (the namespaces cost {})",
        ms(landlock_only),
        ms(confined.saturating_sub(landlock_only))
    );
    println!(
        "  nodwyn call shell-exec, sandbox off  {:>9}  (confinement costs {})",
        ms(unconfined),
        ms(confined.saturating_sub(unconfined))
    );
    println!("  sh -c, directly                      {:>9}", ms(direct));
}
