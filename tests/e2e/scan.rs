//! `nodwyn scan` and `nodwyn guard check` through the binary.

use nodwyn_tests::{TestEnv, write};

/// A classic GitHub token's shape, with digits that come from the test's own counter; it is
/// made here, never copied from anywhere.
fn token(n: u32) -> String {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let body: String = (0..36u32)
        .map(|i| alphabet[((i * 31 + n * 17 + i * i * 7) % 62) as usize] as char)
        .collect();
    format!("ghp_{body}")
}

#[test]
fn scan_reports_findings_redacted_and_exits_1_only_when_something_is_found() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let secret = token(1);
    write(
        &repo.join("src/config.py"),
        &format!("import os\nTOKEN = \"{secret}\"\n"),
    );
    write(&repo.join(".gitignore"), "local/\n");
    write(
        &repo.join("local/ignored.py"),
        &format!("T = \"{}\"\n", token(2)),
    );
    write(&repo.join("clean.txt"), "nothing to see\n");

    let run = env.nodwyn(&repo, &["scan", "--json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "ignored files are not scanned: {report}");
    assert_eq!(findings[0]["path"], "src/config.py");
    assert_eq!(findings[0]["line"], 2);
    assert_eq!(findings[0]["column"], 10);
    assert_eq!(findings[0]["rule"], "github-pat");
    assert!(report["bytes"].as_u64().unwrap() > 0);
    assert!(
        !run.stdout.contains(&secret[4..]),
        "the secret never appears"
    );

    let human = env.nodwyn(&repo, &["scan", "src"]);
    assert_eq!(human.code, 1);
    assert!(
        human
            .stdout
            .contains("src/config.py:2:10  github-pat  ghp_…[40 chars]"),
        "{}",
        human.stdout
    );
    assert!(!human.stdout.contains(&secret[4..]));

    // A binary file is skipped, even with a credential past its first 8 KiB.
    let mut binary = vec![0u8; 16 * 1024];
    binary.extend_from_slice(format!("\n{}\n", token(7)).as_bytes());
    std::fs::write(repo.join("image.bin"), binary).unwrap();
    let skipped = env.nodwyn(&repo, &["scan", "image.bin"]);
    assert_eq!(skipped.code, 0, "{}", skipped.stdout);

    let clean = env.nodwyn(&repo, &["scan", "clean.txt", "README.md"]);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert!(clean.stdout.is_empty());
}

#[test]
fn scan_reads_standard_input() {
    let env = TestEnv::new();
    // `--stdin`, or `-` as the one path, as other command-line tools read it.
    for stdin in ["--stdin", "-"] {
        let run = env.nodwyn_with_stdin(
            &env.root(),
            &["scan", stdin, "--json"],
            &format!("a\nb\n  key: {}\n", token(3)),
        );
        assert_eq!(run.code, 1, "{stdin}: {}", run.stderr);
        let report = run.json();
        assert_eq!(report["findings"][0]["path"], "-");
        assert_eq!(report["findings"][0]["line"], 3);
    }
    let mixed = env
        .nodwyn(&env.root(), &["scan", "-", "notes.txt"])
        .failed_with(2);
    assert!(mixed.contains("`-` (standard input)"), "{mixed}");
}

#[test]
fn scan_of_a_revision_range_looks_only_at_added_lines() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("old.py"), &format!("OLD = \"{}\"\n", token(4)));
    env.commit_all(&repo, "an old secret");
    let base = env.git(&repo, &["rev-parse", "HEAD"]);
    // Remove the old one, add a new one three lines down in another file.
    std::fs::remove_file(repo.join("old.py")).unwrap();
    write(
        &repo.join("app/new.py"),
        &format!("a = 1\nb = 2\nNEW = \"{}\"\n", token(5)),
    );
    env.commit_all(&repo, "a new secret");

    let run = env.nodwyn(
        &repo,
        &["scan", "--diff", &format!("{base}..HEAD"), "--json"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let findings = run.json()["findings"].as_array().unwrap().clone();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["path"], "app/new.py");
    assert_eq!(findings[0]["line"], 3);

    let clean = env.nodwyn(&repo, &["scan", "--diff", "HEAD..HEAD"]);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    let sentence = env
        .nodwyn(&repo, &["scan", "--diff", "no-such-ref..HEAD"])
        .failed_with(2);
    assert!(sentence.contains("no-such-ref"), "{sentence}");
}

#[test]
fn scan_writes_sarif() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("a.env.txt"), &format!("GH={}\n", token(6)));
    let run = env.nodwyn(&repo, &["scan", "--sarif", "a.env.txt"]);
    assert_eq!(run.code, 1);
    let sarif = run.json();
    assert_eq!(sarif["version"], "2.1.0");
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "github-pat");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "a.env.txt");
    assert_eq!(location["region"]["startLine"], 1);
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"][0]["id"],
        "github-pat"
    );
}

#[test]
fn scan_refuses_bad_input_in_one_sentence() {
    let env = TestEnv::new();
    let sentence = env
        .nodwyn(&env.root(), &["scan", "missing.txt"])
        .failed_with(2);
    assert!(
        sentence.contains("missing.txt: no such file or folder"),
        "{sentence}"
    );
    let run = env.nodwyn(&env.root(), &["scan", "--stdin", "x"]);
    assert_eq!(run.code, 2, "usage error: {}", run.stderr);
    let repo = env.repo("repo");
    for range in ["nosuch..HEAD", "HEAD...nosuch", "--output=x"] {
        let sentence = env
            .nodwyn(&repo, &["scan", &format!("--diff={range}")])
            .failed_with(2);
        assert!(
            sentence.contains("is not a revision of this repository")
                && sentence.lines().count() == 1,
            "{range}: {sentence}"
        );
    }
}

#[test]
fn guard_check_prints_each_paths_verdict_and_rule() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    std::os::unix::fs::symlink(env.home().join(".ssh/id_rsa"), repo.join("notes.txt")).unwrap();
    let checked = env.nodwyn(
        &repo,
        &[
            "guard",
            "check",
            ".env",
            "src/../.ENV.local",
            ".env.example",
            "notes.txt",
            "README.md",
            "id_ed25519.pub",
            "--json",
        ],
    );
    assert_eq!(checked.code, 1, "a denied path exits 1");
    let judged = checked.json();
    let verdicts: Vec<(&str, &str)> = judged
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["path"].as_str().unwrap(), j["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [
            (".env", "deny"),
            ("src/../.ENV.local", "deny"),
            (".env.example", "allow"),
            ("notes.txt", "deny"),
            ("README.md", "allow"),
            ("id_ed25519.pub", "allow"),
        ]
    );
    assert!(
        judged[3]["target"]
            .as_str()
            .unwrap()
            .ends_with(".ssh/id_rsa")
    );
    assert!(judged[0]["rule"].as_str().unwrap().contains(".env"));
    let human = env.nodwyn(&repo, &["guard", "check", ".env", "README.md"]);
    assert_eq!(human.code, 1);
    assert!(
        human.stdout.lines().nth(1).unwrap().starts_with("deny"),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.lines().nth(2).unwrap().starts_with("allow"),
        "{}",
        human.stdout
    );
    let usage = env.nodwyn(&repo, &["guard", "check"]);
    assert_eq!(usage.code, 2);
}
