//! A worktree whose `.git` file was pointed at a repository made for the purpose, whose
//! configuration names an fsmonitor program: no nodwyn command runs that program (git would
//! start it with the person's rights on a mere `git status`), each says the worktree cannot be
//! trusted, and `close` and `prune` keep it.

use std::path::{Path, PathBuf};

use nodwyn_standin::{StandIn, openai};
use nodwyn_tests::{TestEnv, make_executable, write};

/// Makes a repository at `evil` whose configuration runs a program that creates `marker`, with
/// a worktree entry naming `worktree` back, and points `worktree`'s `.git` at it.
fn redirect(env: &TestEnv, worktree: &Path, evil: &Path, marker: &Path) {
    std::fs::create_dir_all(evil).unwrap();
    env.git(evil, &["init", "-q"]);
    let program = evil.join("monitor.sh");
    write(
        &program,
        &format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    );
    make_executable(&program);
    env.git(
        evil,
        &["config", "core.fsmonitor", program.to_str().unwrap()],
    );
    let admin = evil.join(".git/worktrees/wt");
    write(
        &admin.join("gitdir"),
        &format!("{}\n", worktree.join(".git").display()),
    );
    write(&admin.join("commondir"), "../..\n");
    write(&admin.join("HEAD"), "ref: refs/heads/main\n");
    write(
        &worktree.join(".git"),
        &format!("gitdir: {}\n", admin.display()),
    );
}

fn places(env: &TestEnv, wt: &Path) -> [PathBuf; 2] {
    // Inside the worktree (what an agent's command could make), and outside it (a folder the
    // person lets commands write).
    [wt.join("evil"), env.root().join("cache/evil")]
}

#[test]
fn no_command_runs_what_a_redirected_worktrees_repository_names() {
    for place in 0..2 {
        let env = TestEnv::new();
        let repo = env.repo("repo");
        let (id, wt) = env.session(&repo);
        let marker = env.root().join("monitor-ran");
        let evil = places(&env, &wt)[place].clone();
        redirect(&env, &wt, &evil, &marker);

        let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
        let error = listed[0]["error"].as_str().unwrap_or_default();
        assert!(
            error.contains("no longer a worktree nodwyn can trust"),
            "{listed}"
        );
        let closed = env.nodwyn(&repo, &["worktree", "close", &id]);
        assert!(
            closed.stdout.contains("trust") || closed.stderr.contains("trust"),
            "{closed:?}"
        );
        assert!(wt.exists(), "close removed an untrusted worktree");
        env.nodwyn(&repo, &["worktree", "prune"]);
        assert!(wt.exists(), "prune removed an untrusted worktree");
        env.nodwyn(&repo, &["worktree", "diff", &id]);
        env.nodwyn(&repo, &["worktree", "diff", &id, "--uncommitted"]);
        // A turn begins (keeping a snapshot of the worktree's files, had it been trusted).
        let model = StandIn::start(vec![openai::text("Nothing to do.")]);
        write(
            &env.home().join(".config/nodwyn/config.toml"),
            &format!(
                "[model]\nprovider = \"openai\"\nbase_url = \"{}/v1\"\nname = \"scripted\"\n",
                model.url()
            ),
        );
        env.nodwyn(&repo, &["run", "--resume", &id, "look around"]);
        env.nodwyn(&repo, &["worktree", "diff", &id, "--last-turn"]);
        env.nodwyn(&repo, &["land", &id, "-m", "m"]);
        assert!(
            !marker.exists(),
            "git ran the redirected repository's fsmonitor (place {place})"
        );
    }
}
