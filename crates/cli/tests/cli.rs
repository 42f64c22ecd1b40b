//! Command-line contract checks of the `nodwyn` binary itself. Having an integration test here
//! also makes `cargo test --workspace` build `target/<profile>/nodwyn` before any test runs,
//! which the end-to-end suite in `tests/` then uses.

use std::process::Command;

fn nodwyn(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_nodwyn"))
        .args(args)
        .env(
            "NODWYN_HOME",
            std::env::temp_dir().join("nodwyn-cli-contract"),
        )
        .output()
        .unwrap()
}

#[test]
fn help_names_every_worktree_command() {
    let output = nodwyn(&["worktree", "--help"]);
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for command in [
        "new", "list", "path", "close", "resume", "remove", "keep", "prune",
    ] {
        assert!(help.contains(command), "{command} missing from:\n{help}");
    }
}

#[test]
fn usage_errors_exit_2_with_a_nodwyn_sentence() {
    for args in [
        &["worktree", "frobnicate"][..],
        &["worktree", "new", "--name"],
        &["worktree", "new", "--base", "main", "--pr", "3"],
        &["--no-such-flag"],
    ] {
        let output = nodwyn(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.starts_with("nodwyn: "), "{args:?}: {stderr}");
    }
}
