//! The landing's recovery as a library contract: a move of the worktree's files that a killed
//! process left half done is finished by the next landing, refused when a file changed since,
//! and undone by `abort`, which keeps in a backup ref what it overwrites. Real git, real
//! repositories in temporary folders; the journal an earlier process left is given as the
//! host would fold it from the session's log.

use std::path::{Path, PathBuf};
use std::process::Command;

use nodwyn_prim::land::{Strategy, abort, land};
use nodwyn_prim::{Context, Fact, LandOutcome, PendingLanding, WorktreeInfo};

const SESSION: &str = "20261002T054407Z-1968c13a";
const BRANCH: &str = "nodwyn/1968c13a";

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .trim_end()
        .to_owned()
}

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// A repository whose session branch is at `from` and whose `main` is at `to` (the session's
/// commit made again on a newer main): what a landing without a remote moves the worktree
/// between. The worktree is left half moved: `theirs.txt` already written, `README.md` not.
struct HalfMoved {
    _temp: tempfile::TempDir,
    repo: PathBuf,
    worktree: PathBuf,
    from: String,
    to: String,
}

fn half_moved() -> HalfMoved {
    let temp = tempfile::tempdir().unwrap();
    let repo = temp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    for (key, value) in [
        ("user.name", "T"),
        ("user.email", "t@example.invalid"),
        ("commit.gpgsign", "false"),
    ] {
        git(&repo, &["config", key, value]);
    }
    write(&repo.join("README.md"), "hello\n");
    write(&repo.join(".gitignore"), "*.log\n");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let worktree = temp.path().join("wt");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            BRANCH,
            worktree.to_str().unwrap(),
        ],
    );
    write(&worktree.join("a.txt"), "the session's work\n");
    git(&worktree, &["add", "-A"]);
    git(&worktree, &["commit", "-q", "-m", "work"]);
    let from = git(&worktree, &["rev-parse", "HEAD"]);
    write(&repo.join("README.md"), "hello\nfrom main\n");
    write(&repo.join("theirs.txt"), "theirs\n");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "main moves"]);
    git(&repo, &["cherry-pick", &from]);
    let to = git(&repo, &["rev-parse", "HEAD"]);
    git(&repo, &["switch", "-q", "--detach"]);
    // The move was stopped after writing one file of two.
    write(&worktree.join("theirs.txt"), "theirs\n");
    write(&worktree.join("build.log"), "the person's ignored log\n");
    HalfMoved {
        _temp: temp,
        repo,
        worktree,
        from,
        to,
    }
}

/// The session's context with the journal an earlier, killed landing left: it began at `from`,
/// kept it in a backup ref, and was moving the files to `to`.
fn context(scene: &HalfMoved) -> (Context, std::sync::Arc<std::sync::Mutex<Vec<Fact>>>) {
    let mut ctx = Context::new(SESSION, scene.worktree.clone(), scene.repo.clone());
    ctx.worktree = Some(WorktreeInfo {
        repository: scene.repo.clone(),
        branch: BRANCH.to_owned(),
        base: "main".to_owned(),
        base_remote: None,
        base_commit: git(&scene.repo, &["rev-parse", "main~2"]),
        path: scene.worktree.clone(),
        config: None,
    });
    git(
        &scene.repo,
        &["update-ref", "refs/nodwyn/backup/1968c13a/1", &scene.from],
    );
    ctx.pending_landing = Some(PendingLanding {
        head: scene.from.clone(),
        backup: Some((
            "refs/nodwyn/backup/1968c13a/1".to_owned(),
            scene.from.clone(),
        )),
        rebase: None,
        moving: Some((scene.from.clone(), scene.to.clone())),
        push: None,
    });
    let recorded = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&recorded);
    ctx.record_with(Box::new(move |fact| {
        sink.lock().unwrap().push(fact);
        Ok(())
    }));
    (ctx, recorded)
}

#[test]
fn the_next_landing_finishes_a_move_a_killed_process_left_half_done() {
    let scene = half_moved();
    let (ctx, recorded) = context(&scene);
    let landed = land(&ctx, None, Strategy::FfOnly, &[]).unwrap();
    assert_eq!(landed.landed, scene.to);
    assert_eq!(git(&scene.worktree, &["rev-parse", "HEAD"]), scene.to);
    assert_eq!(
        read(&scene.worktree.join("README.md")).as_deref(),
        Some("hello\nfrom main\n")
    );
    assert_eq!(git(&scene.worktree, &["status", "--porcelain"]), "");
    assert_eq!(
        read(&scene.worktree.join("build.log")).as_deref(),
        Some("the person's ignored log\n"),
        "an ignored file is not touched"
    );
    let facts = recorded.lock().unwrap();
    assert!(
        facts.iter().any(|f| matches!(
            f,
            Fact::LandEnd {
                outcome: LandOutcome::Landed,
                ..
            }
        )),
        "{facts:?}"
    );
}

#[test]
fn a_file_changed_since_the_move_stopped_is_refused_then_abort_keeps_it_and_puts_back() {
    let scene = half_moved();
    write(&scene.worktree.join("README.md"), "someone's edit\n");
    let (ctx, _) = context(&scene);
    let refused = land(&ctx, None, Strategy::FfOnly, &[])
        .unwrap_err()
        .to_string();
    assert!(refused.contains("README.md"), "{refused}");
    assert!(
        refused.contains("nodwyn land --abort 1968c13a"),
        "{refused}"
    );
    assert_eq!(
        read(&scene.worktree.join("README.md")).as_deref(),
        Some("someone's edit\n"),
        "the refusal changed nothing"
    );
    let aborted = abort(&ctx).unwrap();
    assert!(aborted.undone);
    assert_eq!(aborted.head.as_deref(), Some(scene.from.as_str()));
    assert_eq!(
        read(&scene.worktree.join("README.md")).as_deref(),
        Some("hello\n")
    );
    assert_eq!(read(&scene.worktree.join("theirs.txt")), None);
    assert_eq!(git(&scene.worktree, &["status", "--porcelain"]), "");
    let kept = aborted.kept.expect("what the files held is kept");
    assert_eq!(
        git(&scene.repo, &["show", &format!("{kept}:README.md")]),
        "someone's edit"
    );
    assert_eq!(
        read(&scene.worktree.join("build.log")).as_deref(),
        Some("the person's ignored log\n")
    );
}
