//! `nodwyn dispatch github|kubernetes`: the rendered workflow checked by `actionlint` and the Job
//! by `kubernetes-validate --strict` (both from PyPI), snapshots of both, starting a dispatch
//! through a stand-in `gh` that records what it was asked, refusals of what no runner could do,
//! and `session import --github RUN` bringing a run's exports home.

use std::path::Path;

use nodwyn_tests::{TestEnv, render_checker, write};

use crate::remote_sessions::remote_session;

/// A repository with a remote, the person's model a server runners reach, their allow.toml
/// letting the agent run `cargo test` and write `src/`, and the Kubernetes image configured.
fn dispatchable(env: &TestEnv) -> std::path::PathBuf {
    let (repo, _remote) = env.repo_with_remote("project");
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[model]\nprovider = \"openai\"\nbase_url = \"https://models.example.com/v1\"\nname = \"coder\"\napi_key_env = \"OPENAI_API_KEY\"\n\n[dispatch]\nimage = \"registry.example.com/nodwyn:0.1.0\"\ntimeout_minutes = 45\nmemory = \"6Gi\"\n",
    );
    write(
        &repo.join(".nodwyn/allow.toml"),
        "commands = [[\"cargo\", \"test\"]]\nwrites = [\"src/**\"]\n",
    );
    write(&repo.join(".git/info/exclude"), "/.nodwyn/allow.toml\n");
    repo
}

/// Runs `checker` on `text` written to `name` in `env`'s folder; asserts it passes.
fn passes(env: &TestEnv, checker: &str, args: &[&str], name: &str, text: &str) {
    let file = env.root().join(name);
    write(&file, text);
    let checked = std::process::Command::new(render_checker(checker))
        .args(args)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "{checker}: {}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[test]
fn the_github_workflow_passes_actionlint_and_names_no_secret_value() {
    let env = TestEnv::new();
    let repo = dispatchable(&env);
    let ran = env
        .nodwyn(
            &repo,
            &[
                "dispatch",
                "github",
                "--dry-run",
                "fix the flaky test",
                "say \"hi\"; $(touch x)",
            ],
        )
        .success();
    passes(&env, "actionlint", &[], "workflow.yml", &ran.stdout);
    insta::assert_snapshot!("dispatch_github_workflow", ran.stdout);
    // With --json, the same workflow in a document, with what would start it.
    let document = env
        .nodwyn(
            &repo,
            &[
                "--json",
                "dispatch",
                "github",
                "--dry-run",
                "fix the flaky test",
                "say \"hi\"; $(touch x)",
            ],
        )
        .success()
        .json();
    assert_eq!(
        document["workflow"].as_str().unwrap().trim_end(),
        ran.stdout.trim_end()
    );
    assert_eq!(document["path"], ".github/workflows/nodwyn-dispatch.yml");
    assert_eq!(document["tasks"][1], "say \"hi\"; $(touch x)");
    assert_eq!(document["gh"][0], "workflow");
    // The key is named, never given; the tasks are inputs, never in the file.
    assert!(ran.stdout.contains("${{ secrets.NODWYN_MODEL_KEY }}"));
    assert!(!ran.stdout.contains("flaky"));
    // Each job's push named; nothing started.
    assert!(
        ran.stderr
            .contains("task 0: «fix the flaky test» → pushes only its own branch nodwyn/task-0-"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("task 1:"), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("dry run: nothing was started"),
        "{}",
        ran.stderr
    );
    assert!(!repo.join(".github").exists());
    // Built from the person's own git repository of nodwyn, at their version's tag.
    let config = env.home().join(".config/nodwyn/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    write(
        &config,
        &text.replace(
            "[dispatch]\n",
            "[dispatch]\ninstall_git = \"https://git.example.com/nodwyn\"\n",
        ),
    );
    let ran = env
        .nodwyn(&repo, &["dispatch", "github", "--dry-run", "t"])
        .success();
    passes(&env, "actionlint", &[], "workflow-git.yml", &ran.stdout);
    assert!(
        ran.stdout.contains(&format!(
            "run: cargo install --locked --git 'https://git.example.com/nodwyn' --tag v{} nodwyn",
            env!("CARGO_PKG_VERSION")
        )),
        "{}",
        ran.stdout
    );
}

#[test]
fn the_kubernetes_job_passes_strict_validation() {
    let env = TestEnv::new();
    let repo = dispatchable(&env);
    let ran = env
        .nodwyn(
            &repo,
            &[
                "dispatch",
                "kubernetes",
                "--dry-run",
                "one",
                "two; $(rm -rf ~)",
            ],
        )
        .success();
    passes(
        &env,
        "kubernetes-validate",
        &["--strict"],
        "job.yml",
        &ran.stdout,
    );
    let normalised = regex::Regex::new(r"nodwyn-dispatch-\d{14}")
        .unwrap()
        .replace_all(&ran.stdout, "nodwyn-dispatch-WHEN");
    let normalised = normalised
        .replace(&env.git(&repo, &["rev-parse", "HEAD"]), "BASE_COMMIT")
        .replace(&env.root().display().to_string(), "ROOT");
    insta::assert_snapshot!("dispatch_kubernetes_job", normalised);
    assert!(ran.stdout.contains("completionMode: Indexed"));
    assert!(ran.stdout.contains("secretKeyRef"));
}

#[test]
fn dispatching_writes_the_workflow_once_then_starts_runs_with_gh() {
    let env = TestEnv::new();
    let repo = dispatchable(&env);
    let asked = env.root().join("gh-asked");
    env.install_program(
        "gh",
        &format!(
            "#!/bin/sh\nasked='{}'\ncase \"$1 $2\" in\n  'run list') if grep -q '^workflow run' \"$asked\" 2>/dev/null; then echo '[{{\"databaseId\": 4242, \"url\": \"https://github.com/person/project/actions/runs/4242\"}}]'; else echo '[{{\"databaseId\": 4000, \"url\": \"https://github.com/person/project/actions/runs/4000\"}}]'; fi ;;\n  *) printf '%s\\n' \"$*\" >> \"$asked\" ;;\nesac\n",
            asked.display()
        ),
    );
    // First: the workflow is written, nothing started.
    let first = env
        .nodwyn(&repo, &["dispatch", "github", "task one"])
        .success();
    assert!(
        first
            .stderr
            .contains("wrote .github/workflows/nodwyn-dispatch.yml: commit it"),
        "{}",
        first.stderr
    );
    assert!(repo.join(".github/workflows/nodwyn-dispatch.yml").is_file());
    assert!(!asked.exists(), "gh was not run");
    // Then: started through gh, the run's id printed.
    let second = env
        .nodwyn(&repo, &["dispatch", "github", "task one", "task two"])
        .success();
    assert!(second.stdout.starts_with("4242\n"), "{}", second.stdout);
    let said = std::fs::read_to_string(&asked).unwrap();
    let base = env.git(&repo, &["rev-parse", "HEAD"]);
    assert!(
        said.contains(&format!("workflow run nodwyn-dispatch.yml --ref main -f tasks=[\"task one\",\"task two\"] -f base_branch=main -f base_commit={base}")),
        "{said}"
    );
    // A workflow someone changed is not used.
    write(
        &repo.join(".github/workflows/nodwyn-dispatch.yml"),
        "name: changed\n",
    );
    let refused = env.nodwyn(&repo, &["dispatch", "github", "task"]).refused();
    assert!(
        refused.contains("is not the workflow this nodwyn renders"),
        "{refused}"
    );
}

#[test]
fn what_no_runner_could_do_is_refused_in_one_sentence() {
    let env = TestEnv::new();
    let repo = dispatchable(&env);
    for (args, said) in [
        (
            vec!["dispatch", "github", "--dry-run", "  "],
            "task 1 is empty",
        ),
        (
            vec!["dispatch", "github", "--dry-run", "ok", "-"],
            "`-` (standard input)",
        ),
        (
            vec!["dispatch", "github", "--dry-run", "--base", "nowhere", "ok"],
            "nowhere is not a branch here",
        ),
    ] {
        let refused = env.nodwyn(&repo, &args).refused();
        assert!(refused.contains(said), "{args:?}: {refused}");
    }
    // A commit the remote lacks.
    write(&repo.join("new.txt"), "new\n");
    env.commit_all(&repo, "not pushed");
    let refused = env
        .nodwyn(&repo, &["dispatch", "github", "--dry-run", "ok"])
        .refused();
    assert!(refused.contains("push main first"), "{refused}");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    // A model only this machine reaches.
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[model]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:11434/v1\"\nname = \"local\"\n",
    );
    let refused = env
        .nodwyn(&repo, &["dispatch", "github", "--dry-run", "ok"])
        .refused();
    assert!(refused.contains("only this machine reaches"), "{refused}");
    // Kubernetes without an image.
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[model]\nprovider = \"openai\"\nbase_url = \"https://models.example.com/v1\"\nname = \"coder\"\n",
    );
    let refused = env
        .nodwyn(&repo, &["dispatch", "kubernetes", "--dry-run", "ok"])
        .refused();
    assert!(
        refused.contains("set `image` under [dispatch]"),
        "{refused}"
    );
}

#[test]
fn a_github_runs_exports_are_imported_through_gh_run_download() {
    let home = TestEnv::new();
    let (repo, remote) = home.repo_with_remote("project");
    let export = remote_session(&home, &remote, "notes.txt", "31");
    // gh run download RUN --dir DIR --pattern P: the run's artifact, as GitHub keeps it.
    home.install_program(
        "gh",
        &format!(
            "#!/bin/sh\n[ \"$1 $2 $3\" = 'run download 31' ] || exit 1\nmkdir -p \"$5/nodwyn-export-0\"\ncp '{}' \"$5/nodwyn-export-0/nodwyn-export.json\"\n",
            export.display()
        ),
    );
    let imported = home
        .nodwyn(&repo, &["session", "import", "--github", "31"])
        .success();
    assert!(
        imported.stderr.contains("imported session"),
        "{}",
        imported.stderr
    );
    assert!(imported.stderr.contains("run 31"), "{}", imported.stderr);
    let listed = home.nodwyn_json(&repo, &["session", "list"]);
    assert_eq!(listed[0]["remote"]["run_id"], "31", "{listed}");
    let refused = home
        .nodwyn(&repo, &["session", "import", "--github", "12a"])
        .refused();
    assert!(
        refused.contains("is not a GitHub Actions run id"),
        "{refused}"
    );
    assert!(Path::new(&repo).is_dir());
}

#[test]
fn a_pods_saved_log_is_imported_from_between_its_markers() {
    let home = TestEnv::new();
    let (repo, remote) = home.repo_with_remote("project");
    let export = remote_session(&home, &remote, "pod.txt", "pod");
    let log = home.root().join("task-0.log");
    write(
        &log,
        &format!(
            "nodwyn: session ...\nnodwyn: pushed ...\n----- nodwyn export begins -----\n{}----- nodwyn export ends -----\n",
            std::fs::read_to_string(&export).unwrap()
        ),
    );
    let imported = home
        .nodwyn(
            &repo,
            &["--json", "session", "import", log.to_str().unwrap()],
        )
        .success()
        .json();
    assert_eq!(imported[0]["commits"], 1, "{imported}");
}

#[test]
fn a_kubernetes_dispatch_hands_the_job_to_kubectl() {
    let env = TestEnv::new();
    let repo = dispatchable(&env);
    let given = env.root().join("kubectl-stdin.yml");
    env.install_program(
        "kubectl",
        &format!(
            "#!/bin/sh\n[ \"$*\" = 'create -o name -f -' ] || exit 1\ncat > '{}'\necho job.batch/nodwyn-dispatch-1\n",
            given.display()
        ),
    );
    let ran = env
        .nodwyn(&repo, &["dispatch", "kubernetes", "task one", "task two"])
        .success();
    assert_eq!(ran.stdout.trim(), "job.batch/nodwyn-dispatch-1");
    let job = std::fs::read_to_string(&given).unwrap();
    assert!(job.contains("completions: 2"), "{job}");
    assert!(job.contains("value: \"task two\""), "{job}");
    let ran = env
        .nodwyn(&repo, &["--json", "dispatch", "kubernetes", "task one"])
        .success();
    assert_eq!(ran.json()["created"], "job.batch/nodwyn-dispatch-1");
    // Without kubectl: one sentence.
    let only_git = env.root().join("only-git");
    std::fs::create_dir_all(&only_git).unwrap();
    let git = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    std::os::unix::fs::symlink(git.trim(), only_git.join("git")).unwrap();
    let refused = env
        .nodwyn_command(&repo, &["dispatch", "kubernetes", "t"])
        .env("PATH", &only_git)
        .output()
        .unwrap();
    let refused = nodwyn_tests::Run::from_output(refused).refused();
    assert!(
        refused.contains("no `kubectl` program is on PATH"),
        "{refused}"
    );
}
