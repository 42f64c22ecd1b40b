//! Repository content runs nothing: a committed `.gitattributes` that routes files through a
//! filter, text conversion or merge driver defined in git's configuration does not make nodwyn's
//! own reads (listing, the agent's `git-status` and `git-diff`, closing) run that command.

use std::path::Path;

use nodwyn_tests::{TestEnv, write};
use serde_json::json;

/// A driver command that leaves a file behind when git runs it, then passes content through.
fn probe(marker: &Path) -> String {
    format!("touch '{}'; cat", marker.display())
}

#[test]
fn reads_run_no_filter_or_text_conversion_the_repository_names() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let marker = env.root().join("driver-ran");
    // The person's configuration defines drivers (as LFS or git-crypt install); the repository's
    // content, which an agent controls, chooses which files go through them.
    for (key, value) in [
        ("filter.probe.clean", probe(&marker)),
        ("filter.probe.smudge", "cat".to_owned()),
        ("diff.probe.textconv", probe(&marker)),
    ] {
        env.git(&repo, &["config", key, &value]);
    }
    write(&repo.join(".gitattributes"), "* filter=probe diff=probe\n");
    write(&repo.join("code.txt"), "one\n");
    env.commit_all(&repo, "attributes");
    let (id, wt) = env.session(&repo);
    let _ = std::fs::remove_file(&marker);

    // One file edited, one only touched: git must look at both files' content to answer.
    write(&wt.join("code.txt"), "two\n");
    let readme = std::fs::File::options()
        .append(true)
        .open(wt.join("README.md"))
        .unwrap();
    readme
        .set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    let _ = std::fs::remove_file(&marker);

    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["dirty"], true, "{listed}");
    assert!(
        !marker.exists(),
        "worktree list ran the repository's filter"
    );

    let status = env
        .nodwyn(
            &repo,
            &[
                "call",
                "--session",
                &id,
                "git-status",
                &json!({}).to_string(),
            ],
        )
        .success();
    assert!(status.stdout.contains("code.txt"), "{}", status.stdout);
    assert!(!marker.exists(), "git-status ran the repository's filter");

    let diff = env
        .nodwyn(
            &repo,
            &["call", "--session", &id, "git-diff", &json!({}).to_string()],
        )
        .success();
    assert!(diff.stdout.contains("+two"), "{}", diff.stdout);
    assert!(!marker.exists(), "git-diff ran the repository's driver");

    env.nodwyn(&repo, &["worktree", "diff", &id]).success();
    assert!(
        !marker.exists(),
        "worktree diff ran the repository's driver"
    );

    // Closing keeps the worktree (it has changes) and runs nothing to find that out.
    env.nodwyn(&repo, &["worktree", "close", &id]).success();
    assert!(wt.join("code.txt").exists());
    assert!(!marker.exists(), "close ran the repository's filter");
}
