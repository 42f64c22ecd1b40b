//! `.worktreeinclude`: opt-in copies of untracked files into a new worktree.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, write};
use serde_json::Value;

fn strings(value: &Value) -> Vec<String> {
    let mut items: Vec<String> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    items.sort();
    items
}

/// A repository with untracked and ignored files of every sort.
fn repo_with_untracked(env: &TestEnv) -> PathBuf {
    let repo = env.repo("repo");
    write(
        &repo.join(".gitignore"),
        ".env*\ntarget/\nnode_modules/\n*.local.json\n",
    );
    env.commit_all(&repo, "ignores");
    write(&repo.join(".env"), "TOKEN=local\n");
    write(&repo.join(".env.local"), "TOKEN=other\n");
    write(&repo.join("target/debug/app"), "binary\n");
    write(&repo.join("target/debug/deps/lib.rlib"), "lib\n");
    write(&repo.join("node_modules/pkg/index.js"), "js\n");
    write(&repo.join("config/app.local.json"), "{}\n");
    write(&repo.join("config/deep/more.local.json"), "{}\n");
    write(&repo.join("notes.txt"), "untracked, not ignored\n");
    repo
}

#[test]
fn without_the_file_nothing_is_copied() {
    let env = TestEnv::new();
    let repo = repo_with_untracked(&env);
    let made = env.new_worktree(&repo);
    assert_eq!(made["included"], serde_json::json!([]));
    let path = Path::new(made["path"].as_str().unwrap());
    assert!(!path.join(".env").exists());
    assert!(!path.join("target").exists());
}

#[test]
fn patterns_choose_files_and_whole_folders() {
    let env = TestEnv::new();
    let repo = repo_with_untracked(&env);
    write(
        &repo.join(".worktreeinclude"),
        "# copied into every worktree\n.env*\n!.env.local\ntarget/\nconfig/**/*.local.json\nnotes.txt\n",
    );
    std::fs::set_permissions(
        repo.join("target/debug/app"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    let made = env.new_worktree(&repo);
    let path = PathBuf::from(made["path"].as_str().unwrap());
    assert_eq!(
        strings(&made["included"]),
        [
            ".env",
            "config/app.local.json",
            "config/deep/more.local.json",
            "notes.txt",
            "target/"
        ]
    );
    assert_eq!(made["include_failed"], serde_json::json!([]));
    assert_eq!(
        std::fs::read_to_string(path.join(".env")).unwrap(),
        "TOKEN=local\n"
    );
    assert!(!path.join(".env.local").exists(), "negated");
    assert!(!path.join("node_modules").exists(), "not listed");
    assert_eq!(
        std::fs::read_to_string(path.join("target/debug/deps/lib.rlib")).unwrap(),
        "lib\n"
    );
    let mode = std::fs::metadata(path.join("target/debug/app"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o750, "permissions kept");
    assert!(path.join("config/deep/more.local.json").exists());
    // The copies are ignored or untracked in the worktree too; nothing was committed.
    assert_eq!(env.git(&path, &["log", "--oneline"]).lines().count(), 2);
    // nodwyn's own folder is never a candidate.
    assert!(!path.join(".nodwyn/worktrees").exists());
}

#[test]
fn links_are_copied_as_links_and_nothing_is_overwritten() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let secret = env.root().join("secret.txt");
    write(&secret, "secret\n");
    // A branch that tracks `settings.txt`; in the main checkout it is untracked.
    env.git(&repo, &["checkout", "-q", "-b", "with-settings"]);
    write(&repo.join("settings.txt"), "from the branch\n");
    env.commit_all(&repo, "settings");
    env.git(&repo, &["checkout", "-q", "main"]);
    write(&repo.join("settings.txt"), "local settings\n");
    std::os::unix::fs::symlink(&secret, repo.join("linked.txt")).unwrap();
    write(&repo.join(".worktreeinclude"), "settings.txt\nlinked.txt\n");

    let made = env.nodwyn_json(&repo, &["worktree", "new", "--base", "with-settings"]);
    let path = PathBuf::from(made["path"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(path.join("settings.txt")).unwrap(),
        "from the branch\n",
        "a file already in the worktree is not overwritten"
    );
    let link = path.join("linked.txt");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), secret);
}

#[test]
fn one_failure_is_reported_and_the_rest_are_copied_never_through_a_link() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let outside = env.root().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    // The base branch tracks `cfg` as a link to a folder outside, and `data` as a file.
    env.git(&repo, &["checkout", "-q", "-b", "hostile"]);
    std::os::unix::fs::symlink(&outside, repo.join("cfg")).unwrap();
    write(&repo.join("data"), "a file\n");
    env.commit_all(&repo, "hostile layout");
    env.git(&repo, &["checkout", "-q", "main"]);
    // In the main checkout they are untracked folders the person wants copied.
    write(&repo.join("cfg/key.txt"), "mine\n");
    write(&repo.join("data/a.bin"), "a\n");
    write(&repo.join("ok.txt"), "ok\n");
    write(
        &repo.join(".worktreeinclude"),
        "cfg/key.txt\ndata/a.bin\nok.txt\n",
    );

    let made = env.nodwyn_json(&repo, &["worktree", "new", "--base", "hostile"]);
    let path = PathBuf::from(made["path"].as_str().unwrap());
    let failed: Vec<String> = made["include_failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(failed, ["cfg/key.txt", "data/a.bin"], "{made}");
    assert!(
        made["include_failed"][0]["error"]
            .as_str()
            .unwrap()
            .contains("symbolic link")
    );
    assert_eq!(
        std::fs::read_to_string(path.join("ok.txt")).unwrap(),
        "ok\n"
    );
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing written through the link"
    );
    let human = env
        .nodwyn(&repo, &["worktree", "new", "--base", "hostile"])
        .success();
    assert!(
        human.stderr.contains("could not copy cfg/key.txt"),
        "{}",
        human.stderr
    );
}

#[test]
fn resume_copies_again_into_a_worktree_made_again() {
    let env = TestEnv::new();
    let repo = repo_with_untracked(&env);
    write(&repo.join(".worktreeinclude"), ".env\n");
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap();
    let path = PathBuf::from(made["path"].as_str().unwrap());
    std::fs::remove_dir_all(&path).unwrap();
    let resumed = env.nodwyn_json(&repo, &["worktree", "resume", id]);
    assert_eq!(strings(&resumed["included"]), [".env"]);
    assert!(path.join(".env").exists());
}

#[test]
fn a_worktreeinclude_the_repository_tracks_copies_no_credential_file() {
    // A committed `.worktreeinclude` is repository content: whoever wrote it could pull the
    // person's `.env` into every worktree, where an agent's approved command reads it. It may
    // still copy caches; only the person's own, untracked, file copies credential files.
    let env = TestEnv::new();
    let repo = repo_with_untracked(&env);
    write(&repo.join(".worktreeinclude"), ".env\ntarget/\n");
    env.commit_all(&repo, "share the include file");
    let made = env.new_worktree(&repo);
    let path = PathBuf::from(made["path"].as_str().unwrap());
    assert_eq!(strings(&made["included"]), ["target/"], "{made}");
    assert!(!path.join(".env").exists());
    assert_eq!(made["include_failed"][0]["path"], ".env", "{made}");
    let why = made["include_failed"][0]["error"].as_str().unwrap();
    assert!(why.contains("credential file"), "{why}");
    assert!(why.contains("untracked"), "{why}");

    // Untracked again, it is the person's own, and copies the `.env` they chose.
    env.git(&repo, &["rm", "-q", "--cached", ".worktreeinclude"]);
    env.git(
        &repo,
        &["commit", "-q", "-m", "keep the include file to myself"],
    );
    let made = env.new_worktree(&repo);
    assert_eq!(strings(&made["included"]), [".env", "target/"], "{made}");
}

#[test]
fn a_folder_named_inside_an_ignored_folder_is_copied_without_the_rest_of_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join(".gitignore"), "build/\n");
    env.commit_all(&repo, "ignores");
    write(&repo.join("build/cache/objects.bin"), "warm\n");
    write(&repo.join("build/out/app"), "binary\n");
    write(&repo.join(".worktreeinclude"), "build/cache/\n");
    let made = env.new_worktree(&repo);
    let path = PathBuf::from(made["path"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(path.join("build/cache/objects.bin")).unwrap(),
        "warm\n",
        "{made}"
    );
    assert!(!path.join("build/out").exists(), "{made}");
    assert!(
        strings(&made["included"])
            .iter()
            .any(|p| p.starts_with("build/cache")),
        "{made}"
    );
}

/// A repository whose ignored `target/` holds `files` files (every tenth executable, and a link),
/// and whose `.worktreeinclude` copies it.
fn repo_with_a_build(env: &TestEnv, at: &Path, files: usize) -> PathBuf {
    std::fs::create_dir_all(at).unwrap();
    env.git(at, &["init", "-q", "-b", "main"]);
    write(&at.join(".gitignore"), "target/\n");
    env.commit_all(at, "first");
    let long_ago =
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    for n in 0..files {
        let file = at.join(format!("target/debug/deps/d{:02}/f{n}.o", n % 40));
        write(&file, &format!("object {n}\n"));
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(long_ago + std::time::Duration::from_secs(n as u64))
            .unwrap();
        if n % 10 == 0 {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    std::os::unix::fs::symlink("deps/d00/f0.o", at.join("target/debug/app")).unwrap();
    write(&at.join(".worktreeinclude"), "target/\n");
    at.to_path_buf()
}

/// Every file of `target/` in `worktree` has the content and mode it has in `repo`.
fn same_build(repo: &Path, worktree: &Path, files: usize) {
    for n in (0..files).step_by(7) {
        let relative = format!("target/debug/deps/d{:02}/f{n}.o", n % 40);
        let copied = worktree.join(&relative);
        assert_eq!(
            std::fs::read_to_string(&copied).unwrap(),
            std::fs::read_to_string(repo.join(&relative)).unwrap()
        );
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&copied), mode(&repo.join(&relative)), "{relative}");
        // Its time too: a build tool judges what is fresh by it.
        let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        assert_eq!(
            modified(&copied),
            modified(&repo.join(&relative)),
            "{relative}"
        );
    }
    assert_eq!(
        std::fs::read_link(worktree.join("target/debug/app")).unwrap(),
        Path::new("deps/d00/f0.o")
    );
}

#[test]
fn a_large_folder_is_copied_whole_on_every_core_with_its_progress_on_a_terminal() {
    let env = TestEnv::new();
    let repo = repo_with_a_build(&env, &env.root().join("repo"), 1500);
    let made = env.new_worktree(&repo);
    let worktree = PathBuf::from(made["path"].as_str().unwrap());
    same_build(&repo, &worktree, 1500);
    assert_eq!(made["include_counts"]["files"], 1501, "{made}");
    assert_eq!(made["include_failed"], serde_json::json!([]));
    // On a terminal, the copy says how it goes, and the summary says how much it copied.
    let shown = env.nodwyn_on_terminal(&repo, &["worktree", "new"], "");
    assert!(shown.contains("copied target/: 1501 files"), "{shown}");
    assert!(shown.contains("copied  1501 file(s)"), "{shown}");
}

/// A btrfs file system on a loop device, unmounted when dropped; `None` where this machine
/// cannot make one (not root, no mkfs.btrfs, no loop devices).
struct Btrfs {
    mount: PathBuf,
}

impl Btrfs {
    fn make(env: &TestEnv) -> Option<Btrfs> {
        let image = env.root().join("btrfs.img");
        let mount = env.root().join("btrfs");
        std::fs::create_dir_all(&mount).unwrap();
        let ran = |program: &str, args: &[&std::ffi::OsStr]| {
            std::process::Command::new(program)
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let made = ran(
            "truncate",
            &["-s".as_ref(), "300M".as_ref(), image.as_os_str()],
        ) && ran("mkfs.btrfs", &["-q".as_ref(), image.as_os_str()])
            && ran(
                "mount",
                &[
                    "-o".as_ref(),
                    "loop".as_ref(),
                    image.as_os_str(),
                    mount.as_os_str(),
                ],
            );
        made.then_some(Btrfs { mount })
    }
}

impl Drop for Btrfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.mount)
            .status();
    }
}

#[test]
#[allow(clippy::print_stderr)] // Saying why it measured nothing is the point where it cannot.
fn on_a_file_system_with_reflinks_every_file_is_cloned() {
    let env = TestEnv::new();
    let Some(btrfs) = Btrfs::make(&env) else {
        eprintln!(
            "no btrfs loop device can be made here (root and mkfs.btrfs are needed): not measured"
        );
        return;
    };
    let repo = repo_with_a_build(&env, &btrfs.mount.join("repo"), 300);
    let made = env.new_worktree(&repo);
    let worktree = PathBuf::from(made["path"].as_str().unwrap());
    same_build(&repo, &worktree, 300);
    assert_eq!(made["include_counts"]["files"], 301, "{made}");
    assert_eq!(
        made["include_counts"]["reflinked"], 300,
        "every file a reflink: {made}"
    );
    // A clone is a file of its own: writing it leaves the original as it was.
    write(&worktree.join("target/debug/deps/d00/f0.o"), "rebuilt\n");
    assert_eq!(
        std::fs::read_to_string(repo.join("target/debug/deps/d00/f0.o")).unwrap(),
        "object 0\n"
    );
}
