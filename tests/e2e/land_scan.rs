//! What a landing publishes is scanned commit by commit: a secret added in one commit and removed
//! in the next, a token the repository's `.gitattributes` would hide from a diff, one in a commit
//! message or its author, one in a file written in UTF-16, a credential file in a folder git quotes, and a token in a file with a NUL byte are
//! each refused before the push, naming the commit that holds them.

use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, write};

use crate::land::token;

/// A repository with a remote and a session; returns the session's id and worktree.
fn session(env: &TestEnv) -> (PathBuf, PathBuf, String, PathBuf) {
    let (repo, remote) = env.repo_with_remote("repo");
    let made = env.new_worktree(&repo);
    (
        repo,
        remote,
        made["id"].as_str().unwrap().to_owned(),
        PathBuf::from(made["path"].as_str().unwrap()),
    )
}

/// Lands `id` expecting a refusal before the push; returns the sentence.
fn refused_before_the_push(env: &TestEnv, repo: &Path, remote: &Path, id: &str) -> String {
    let before = env.git(remote, &["rev-parse", "main"]);
    let refused = env.nodwyn(repo, &["land", id, "-m", "land"]).refused();
    assert_eq!(
        env.git(remote, &["rev-parse", "main"]),
        before,
        "nothing pushed"
    );
    refused
}

/// Commits a new `notes.txt` in `path` with `message`, running git with `options` first.
fn commit_notes(env: &TestEnv, path: &Path, options: &[&str], message: &str) {
    write(&path.join("notes.txt"), "notes\n");
    env.git(path, &["add", "-A"]);
    let mut args = options.to_vec();
    args.extend(["commit", "-q", "-m", message]);
    env.git(path, &args);
}

#[test]
fn a_secret_added_then_removed_in_a_later_commit_is_still_refused() {
    let env = TestEnv::new();
    let (repo, remote, id, path) = session(&env);
    write(&path.join("config.txt"), &format!("token = {}\n", token()));
    let holding = env.commit_all(&path, "add the config");
    write(&path.join("config.txt"), "token = (from the environment)\n");
    env.commit_all(&path, "take the token out");
    let refused = refused_before_the_push(&env, &repo, &remote, &id);
    assert!(refused.contains(&holding[..12]), "{refused}");
    assert!(refused.contains("add the config"), "{refused}");
    assert!(refused.contains("config.txt:1"), "{refused}");
    assert!(refused.contains("git reset --soft"), "{refused}");
    // Taken out of the history as the sentence says, the landing goes through.
    let base = env.git(&repo, &["rev-parse", "main"]);
    env.git(&path, &["reset", "-q", "--soft", &base]);
    env.nodwyn_json(&repo, &["land", &id, "-m", "the config, without its token"]);
    let pushed = env.git(&remote, &["log", "--format=%s", "main"]);
    assert!(!pushed.contains("add the config"), "{pushed}");
}

#[test]
fn the_repositorys_attributes_cannot_hide_a_token_from_the_scan() {
    let env = TestEnv::new();
    let (repo, remote, id, path) = session(&env);
    write(&path.join(".gitattributes"), "*.cfg -diff\n");
    write(&path.join("app.cfg"), &format!("token = {}\n", token()));
    let refused = refused_before_the_push(&env, &repo, &remote, &id);
    assert!(refused.contains("app.cfg:1"), "{refused}");
}

#[test]
fn a_token_in_a_commit_message_is_refused() {
    let env = TestEnv::new();
    let (repo, remote, id, path) = session(&env);
    commit_notes(&env, &path, &[], &format!("deploy with {}", token()));
    let refused = refused_before_the_push(&env, &repo, &remote, &id);
    assert!(refused.contains("in its message"), "{refused}");
    assert!(
        !refused.contains(&token()),
        "the sentence never shows it: {refused}"
    );
}

#[test]
fn a_token_in_a_commits_author_or_committer_is_refused() {
    // Everything in a commit object leaves with the push, not only its message: the agent
    // chooses the identity its approved command commits with.
    for field in ["user.name", "user.email"] {
        let env = TestEnv::new();
        let (repo, remote, id, path) = session(&env);
        let identity = format!("{field}=deploy {}", token());
        commit_notes(&env, &path, &["-c", &identity], "notes");
        let refused = refused_before_the_push(&env, &repo, &remote, &id);
        assert!(
            refused.contains("in its author or committer"),
            "{field}: {refused}"
        );
        assert!(!refused.contains(&token()), "{refused}");
    }
}

#[test]
fn a_credential_file_in_a_folder_git_quotes_is_refused() {
    let env = TestEnv::new();
    let (repo, remote, id, path) = session(&env);
    write(&path.join("é/.env"), "SECRET=1\n");
    env.git(&path, &["add", "-f", "é/.env"]);
    env.git(&path, &["commit", "-q", "-m", "settings"]);
    let refused = refused_before_the_push(&env, &repo, &remote, &id);
    assert!(refused.contains("credential file é/.env"), "{refused}");
}

#[test]
fn a_token_in_a_file_with_a_nul_byte_is_refused() {
    let env = TestEnv::new();
    let (repo, remote, id, path) = session(&env);
    let mut bytes = b"header\0\n".to_vec();
    bytes.extend_from_slice(format!("token = {}\n", token()).as_bytes());
    std::fs::write(path.join("data.bin"), bytes).unwrap();
    let refused = refused_before_the_push(&env, &repo, &remote, &id);
    assert!(refused.contains("data.bin:2"), "{refused}");
}

#[test]
fn a_token_in_a_file_written_in_utf16_is_refused() {
    // A registry export, as Windows writes it: every character followed by a zero byte.
    let env = TestEnv::new();
    let (repo, remote, id, path) = session(&env);
    let text = format!(
        "Windows Registry Editor Version 5.00\r\n\r\n\"Token\"=\"{}\"\r\n",
        token()
    );
    let wide: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    std::fs::write(path.join("deploy.reg"), wide).unwrap();
    let refused = refused_before_the_push(&env, &repo, &remote, &id);
    assert!(refused.contains("deploy.reg"), "{refused}");
}

#[test]
fn a_token_in_an_lfs_object_is_refused_though_the_diff_shows_only_its_pointer() {
    let env = TestEnv::new();
    let (repo, remote, id, path) = session(&env);
    // What git-lfs would have stored: the object in the local LFS store, its pointer committed.
    let content = format!("weights\nGITHUB_TOKEN={}\n", token());
    let oid = nodwyn_tests::sha256_hex(&content);
    let object = repo
        .join(".git/lfs/objects")
        .join(&oid[..2])
        .join(&oid[2..4])
        .join(&oid);
    write(&object, &content);
    write(
        &path.join("model.bin"),
        &format!(
            "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {}\n",
            content.len()
        ),
    );
    let refused = refused_before_the_push(&env, &repo, &remote, &id);
    assert!(refused.contains("LFS object of model.bin"), "{refused}");
}

#[test]
fn a_change_of_a_submodule_is_refused_with_a_sentence() {
    let env = TestEnv::new();
    let (repo, remote, id, path) = session(&env);
    let head = env.git(&path, &["rev-parse", "HEAD"]);
    env.git(
        &path,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{head},vendor/lib"),
        ],
    );
    env.git(&path, &["commit", "-q", "-m", "vendor a library"]);
    // The empty folder git keeps for a submodule not checked out.
    std::fs::create_dir_all(path.join("vendor/lib")).unwrap();
    let refused = refused_before_the_push(&env, &repo, &remote, &id);
    assert!(refused.contains("submodule vendor/lib"), "{refused}");
}

#[test]
fn with_git_lfs_a_token_in_a_tracked_file_never_reaches_the_lfs_store() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    env.git(&repo, &["lfs", "install", "--local"]);
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap().to_owned();
    let path = PathBuf::from(made["path"].as_str().unwrap());
    write(
        &path.join(".gitattributes"),
        "*.bin filter=lfs diff=lfs merge=lfs -text\n",
    );
    write(
        &path.join("model.bin"),
        &format!("weights\nGITHUB_TOKEN={}\n", token()),
    );
    let refused = refused_before_the_push(&env, &repo, &remote, &id);
    assert!(refused.contains("LFS object of model.bin"), "{refused}");
    let committed = env.git(&path, &["show", "HEAD:model.bin"]);
    assert!(
        committed.starts_with("version https://git-lfs"),
        "git-lfs ran: {committed}"
    );
    let uploaded = remote.join("lfs/objects");
    assert!(
        !uploaded.exists() || std::fs::read_dir(&uploaded).unwrap().next().is_none(),
        "an object reached the remote's LFS store"
    );

    // Without the token the same landing goes through, and git-lfs uploads the object.
    write(&path.join("model.bin"), "weights only\n");
    env.git(&path, &["reset", "-q", "--soft", "HEAD~1"]);
    env.nodwyn(&repo, &["land", &id, "-m", "model"]).success();
    assert!(uploaded.exists(), "git-lfs uploaded nothing");
}

#[test]
fn a_repositorys_lfsconfig_cannot_send_a_landings_lfs_objects_elsewhere() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    env.git(&repo, &["lfs", "install", "--local"]);
    env.git(&repo, &["push", "-q", "origin", "main"]);
    let elsewhere = env.root().join("elsewhere.git");
    env.git(
        &env.root(),
        &["init", "-q", "--bare", elsewhere.to_str().unwrap()],
    );
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap().to_owned();
    let path = PathBuf::from(made["path"].as_str().unwrap());
    write(
        &path.join(".gitattributes"),
        "*.bin filter=lfs diff=lfs merge=lfs -text\n",
    );
    write(&path.join("model.bin"), "weights\n");
    // Repository content choosing where the objects go.
    write(
        &path.join(".lfsconfig"),
        &format!("[lfs]\n\turl = file://{}\n", elsewhere.display()),
    );
    let before = env.git(&remote, &["rev-parse", "main"]);
    let refused = env.nodwyn(&repo, &["land", &id, "-m", "model"]).refused();
    assert!(
        refused.contains(".lfsconfig") && refused.contains(elsewhere.to_str().unwrap()),
        "{refused}"
    );
    assert!(
        !elsewhere.join("lfs").exists(),
        "objects went where .lfsconfig said"
    );
    assert_eq!(env.git(&remote, &["rev-parse", "main"]), before);
    // Without it, the objects go with the push to the remote.
    std::fs::remove_file(path.join(".lfsconfig")).unwrap();
    env.nodwyn(&repo, &["land", &id, "-m", "model"]).success();
    assert!(
        remote.join("lfs/objects").exists(),
        "git-lfs uploaded nothing"
    );
    assert!(!elsewhere.join("lfs").exists());
}
