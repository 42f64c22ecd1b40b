//! What an approved command can do to the machinery around it, through the built binary: kill
//! its supervisor, write through a descriptor nodwyn inherited, read the kernel's keyrings,
//! rewrite the worktree's `.git` file or `.nodwyn` folder, fill the disk or the process table.
//! Each attack fails, and what the command leaves behind still ends with the call.

use std::time::Duration;

use nodwyn_tests::{TestEnv, nodwyn_binary, write};

use crate::sandbox::{run, running, session, shell_exec};

/// The process ids whose command line holds every one of `markers`.
fn processes_with(markers: &[&str]) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let line = std::fs::read(entry.path().join("cmdline")).ok()?;
            let line = String::from_utf8_lossy(&line).into_owned();
            markers.iter().all(|m| line.contains(m)).then_some(pid)
        })
        .collect()
}

#[test]
fn a_command_cannot_kill_its_supervisor_to_outlive_the_call() {
    let env = TestEnv::new();
    let (repo, id, wt) = session(&env);
    let planted = wt.join("rewritten-after-the-call");
    let ran = run(
        &env,
        &repo,
        &id,
        &format!(
            "setsid sh -c 'sleep 2; touch \"$1\"; sleep 1003.125' sh '{}' >/dev/null 2>&1 & \
             echo ppid=$PPID; [ $PPID = 0 ] || {{ kill -9 $PPID; echo kill=$?; }}; \
             python3 -c 'import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); print(\"attach\", libc.ptrace(16, int(sys.argv[1]), 0, 0), ctypes.get_errno())' $PPID; \
             sleep 1",
            planted.display()
        ),
    );
    let out = ran["stdout"].as_str().unwrap();
    // In a PID namespace of its own the command cannot even name its supervisor (its parent is
    // outside: process 0); where none can be made, signalling it and tracing it (PTRACE_ATTACH)
    // are refused with EPERM.
    if !out.contains("ppid=0\n") {
        assert!(
            out.contains("kill=1"),
            "the supervisor could be signalled: {ran}"
        );
        assert!(
            out.contains("attach -1 1\n"),
            "the supervisor could be traced: {ran}"
        );
    }
    std::thread::sleep(Duration::from_secs(4));
    assert!(!planted.exists(), "a process outlived the call: {ran}");
    assert!(!running("1003.125"), "a process outlived the call: {ran}");
}

#[test]
fn what_a_killed_supervisor_leaves_running_is_ended_by_nodwyn() {
    let env = TestEnv::new();
    let (repo, id, wt) = session(&env);
    let planted = wt.join("written-by-an-orphan");
    // The supervisor is killed from outside (as the out-of-memory killer would), while the
    // command's detached child waits to write.
    let mut call = env
        .nodwyn_command(
            &repo,
            &[
                "call",
                "--session",
                &id,
                "shell-exec",
                &shell_exec(&format!(
                    "setsid sh -c 'sleep 3; touch \"$1\"' sh '{}' >/dev/null 2>&1 & sleep 1004.125",
                    planted.display()
                )),
            ],
        )
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let supervisor = loop {
        if let Some(pid) = processes_with(&["__nodwyn-supervise", "1004.125"]).first() {
            break *pid;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "no supervisor");
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(300));
    let killed = std::process::Command::new("kill")
        .args(["-9", &supervisor.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    call.wait().unwrap();
    std::thread::sleep(Duration::from_secs(4));
    assert!(
        !planted.exists(),
        "the orphan of a killed supervisor lived on"
    );
    assert!(!running("1004.125"), "the command lived on");
}

#[test]
fn a_descriptor_nodwyn_inherited_does_not_reach_the_command() {
    let env = TestEnv::new();
    let (repo, id, _wt) = session(&env);
    let outside = env.root().join("outside.txt");
    write(&outside, "");
    // Whoever started nodwyn left descriptor 7 open on a file outside the worktree.
    let output = std::process::Command::new("sh")
        .args([
            "-c",
            "exec 7>>\"$1\"; shift; exec \"$@\"",
            "sh",
            outside.to_str().unwrap(),
            nodwyn_binary().to_str().unwrap(),
            "call",
            "--session",
            &id,
            "shell-exec",
            &shell_exec("echo escaped >&7; echo status=$?"),
        ])
        .current_dir(&repo)
        .env_clear()
        .envs(env.vars())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "", "{output:?}");
}

#[test]
fn the_kernels_keyrings_are_out_of_reach() {
    let env = TestEnv::new();
    let (repo, id, _wt) = session(&env);
    // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, create) and
    // keyctl(KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_USER_KEYRING), by their numbers on this
    // machine's architecture.
    let script = "import ctypes, os, platform\n\
                  number = {'x86_64': 250, 'aarch64': 219}[platform.machine()]\n\
                  libc = ctypes.CDLL(None, use_errno=True)\n\
                  for args in ((0, -4, 1), (22, -1, -4)):\n\
                  \x20   found = libc.syscall(number, *args)\n\
                  \x20   print(found, os.strerror(ctypes.get_errno()) if found < 0 else 'a keyring')\n";
    write(&env.root().join("keys.py"), script);
    let ran = run(
        &env,
        &repo,
        &id,
        &format!("python3 '{}'", env.root().join("keys.py").display()),
    );
    let out = ran["stdout"].as_str().unwrap();
    assert_eq!(
        out.matches("Operation not permitted").count(),
        2,
        "a keyring was reachable: {ran}"
    );
}

#[test]
fn the_worktrees_git_file_and_nodwyn_folder_cannot_be_changed() {
    let env = TestEnv::new();
    let (repo, id, wt) = session(&env);
    let before = std::fs::read_to_string(wt.join(".git")).unwrap();
    let ran = run(
        &env,
        &repo,
        &id,
        "printf 'gitdir: /tmp/evil\\n' > .git; rm -f .git; \
         echo x > other; mv other .git; \
         mkdir -p .nodwyn; echo '(define x 1)' >> .nodwyn/init.scm; \
         echo new > new-file-at-the-top; rm new-file-at-the-top; echo done",
    );
    assert_eq!(
        std::fs::read_to_string(wt.join(".git")).unwrap(),
        before,
        "{ran}"
    );
    assert!(!wt.join(".nodwyn/init.scm").exists(), "{ran}");
    // The rest of the worktree's top stays the command's to change.
    assert!(ran["stdout"].as_str().unwrap().contains("done"), "{ran}");
    assert!(!wt.join("new-file-at-the-top").exists(), "{ran}");
    assert!(wt.join("other").exists(), "{ran}");
}

#[test]
fn a_command_is_held_to_the_persons_file_size_process_and_memory_limits() {
    let env = TestEnv::new();
    let (repo, id, wt) = session(&env);
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[sandbox]\nmax_file_mb = 1\nmax_processes = 64\nmax_memory_mb = 2048\n",
    );
    let ran = run(
        &env,
        &repo,
        &id,
        "head -c 3000000 /dev/zero > big; \
         python3 -c 'import resource as r; print(*(r.getrlimit(k)[0] for k in (r.RLIMIT_NPROC, r.RLIMIT_FSIZE, r.RLIMIT_DATA)))'; \
         for i in $(seq 200); do setsid sleep 1005.125 & done; \
         echo started",
    );
    let size = std::fs::metadata(wt.join("big")).unwrap().len();
    assert!(size <= 1 << 20, "a {size}-byte file was written: {ran}");
    let stdout = ran["stdout"].as_str().unwrap();
    assert!(
        stdout.starts_with(&format!("64 {} {}\n", 1 << 20, 2048u64 << 20)),
        "{ran}"
    );
    // The kernel does not hold root to a process count; everyone else is.
    if !is_root() {
        let stderr = ran["stderr"].as_str().unwrap().to_lowercase();
        assert!(
            stderr.contains("fork") || stderr.contains("resource temporarily unavailable"),
            "200 processes were started under a limit of 64: {ran}"
        );
    }
    assert!(!running("1005.125"), "the tree outlived the call: {ran}");
}

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout == b"0\n")
}

#[test]
fn credential_files_in_the_sessions_own_folder_are_out_of_a_commands_reach() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    // The person's own .worktreeinclude brings their ignored .env.local into each worktree.
    write(&repo.join(".gitignore"), ".env*\n.worktreeinclude\n");
    env.commit_all(&repo, "ignore");
    write(
        &repo.join(".env.local"),
        "PASSPHRASE=correct-horse-battery\n",
    );
    write(&repo.join(".worktreeinclude"), ".env.local\n");
    let (id, wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    assert!(wt.join(".env.local").exists(), "not copied");
    let ran = run(
        &env,
        &repo,
        &id,
        "cat .env.local; echo gone > .env.local; rm -f .env.local; echo done",
    );
    assert!(
        !ran["stdout"].as_str().unwrap().contains("correct-horse"),
        "a command read the copied credential file: {ran}"
    );
    assert_eq!(
        std::fs::read_to_string(wt.join(".env.local")).unwrap(),
        "PASSPHRASE=correct-horse-battery\n",
        "{ran}"
    );
}

#[test]
fn tokens_in_git_configuration_stay_out_of_a_commands_reach() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let token = format!("ghp_{}", "Zq8Lr2Vx9Kp4Tn7Wm1Yb6Hc3Jd5Fg0Se2Ua8");
    // What actions/checkout leaves in the repository's configuration, and an insteadOf URL
    // with a token in the person's.
    env.git(
        &repo,
        &[
            "config",
            "http.https://github.com/.extraheader",
            "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46c2VjcmV0LWhlYWRlcg==",
        ],
    );
    let global = env.home().join(".gitconfig");
    let before = std::fs::read_to_string(&global).unwrap();
    write(
        &global,
        &format!(
            "{before}[url \"https://x-access-token:{token}@github.com/\"]\n\tinsteadOf = https://github.com/\n"
        ),
    );
    let (id, _wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    let ran = run(
        &env,
        &repo,
        &id,
        &format!(
            "cat '{}' ~/.gitconfig | rev; git config --list | rev; git status --short; echo status=$?",
            repo.join(".git/config").display()
        ),
    );
    let out = ran["stdout"].as_str().unwrap();
    let reversed = |s: &str| s.chars().rev().collect::<String>();
    assert!(
        !out.contains(&reversed(&token)),
        "the token reached the command: {ran}"
    );
    assert!(
        !out.contains(&reversed("eC1hY2Nlc3MtdG9rZW46c2VjcmV0LWhlYWRlcg==")),
        "the header reached the command: {ran}"
    );
    // git itself still works for the command.
    assert!(out.contains("status=0"), "{ran}");
    // And for the agent's own reads it is a credential file.
    let refused = env
        .nodwyn(
            &repo,
            &[
                "call",
                "--session",
                &id,
                "fs-read",
                &format!("[{:?}]", global.to_str().unwrap()),
            ],
        )
        .refused();
    assert!(
        refused.contains("git configuration holding a credential"),
        "{refused}"
    );
}

#[test]
fn without_namespaces_landlock_alone_keeps_the_same_promises_but_the_folders_top() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join(".gitignore"), ".env*\n.worktreeinclude\n");
    env.commit_all(&repo, "ignore");
    write(
        &repo.join(".env.local"),
        "PASSPHRASE=correct-horse-battery\n",
    );
    write(&repo.join(".worktreeinclude"), ".env.local\n");
    // The person (or a system without unprivileged user namespaces) turned them off.
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[sandbox]\nnamespaces = false\n",
    );
    let (id, wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    let git_file = std::fs::read_to_string(wt.join(".git")).unwrap();
    let ran = run(
        &env,
        &repo,
        &id,
        "echo ppid=$PPID; kill -9 $PPID; echo kill=$?; \
         python3 -c 'import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); print(\"attach\", libc.ptrace(16, int(sys.argv[1]), 0, 0), ctypes.get_errno())' $PPID; \
         printf 'gitdir: /tmp/evil\\n' > .git; cat .env.local; git status --short >/dev/null; echo git=$?; \
         echo x > README.md; echo edited=$?; echo top > made-at-the-top",
    );
    let out = ran["stdout"].as_str().unwrap();
    assert!(!out.contains("ppid=0"), "{ran}");
    assert!(
        out.contains("kill=1") && out.contains("attach -1 1\n"),
        "{ran}"
    );
    assert_eq!(
        std::fs::read_to_string(wt.join(".git")).unwrap(),
        git_file,
        "{ran}"
    );
    assert!(!out.contains("correct-horse"), "{ran}");
    assert!(out.contains("git=0") && out.contains("edited=0"), "{ran}");
    // What Landlock alone cannot give: nothing is made at the top of the worktree.
    assert!(!wt.join("made-at-the-top").exists(), "{ran}");
}
