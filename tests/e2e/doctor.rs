//! `nodwyn doctor`: one line a check, a fix for each that fails, exit 1 when one does.

use nodwyn_standin::{StandIn, openai};
use nodwyn_tests::{TestEnv, write};

fn configure(env: &TestEnv, base_url: &str, key: Option<&str>) {
    let key = key.map_or(String::new(), |k| format!("api_key_env = \"{k}\"\n"));
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        &format!(
            "[model]\nprovider = \"openai\"\nbase_url = \"{base_url}\"\nname = \"scripted\"\n{key}"
        ),
    );
}

#[test]
fn doctor_checks_the_machine_and_asks_the_model_one_tiny_question() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let server = StandIn::start(vec![openai::text("ok")]);
    configure(&env, &format!("{}/v1", server.url()), None);
    let healthy = env.nodwyn(&repo, &["doctor"]).success();
    for line in [
        "ok   git",
        "ok   sandbox",
        "ok   data directory",
        "ok   model ",
    ] {
        assert!(
            healthy.stdout.contains(line),
            "{line} in\n{}",
            healthy.stdout
        );
    }
    assert!(healthy.stdout.contains("scripted at"), "{}", healthy.stdout);
    assert_eq!(server.received().len(), 1, "one request");

    // A server that is not there, and a key that is not set: each fails with its fix.
    configure(&env, "http://127.0.0.1:9/v1", None);
    let down = env.nodwyn(&repo, &["doctor"]);
    assert_eq!(down.code, 1, "{}", down.stdout);
    assert!(
        down.stdout.contains("FAIL model") && down.stdout.contains("fix: "),
        "{}",
        down.stdout
    );
    configure(
        &env,
        "http://127.0.0.1:9/v1",
        Some("NODWYN_TEST_NO_SUCH_KEY"),
    );
    let keyless = env.nodwyn(&repo, &["--json", "doctor", "--offline"]);
    assert_eq!(keyless.code, 1);
    let keyless = keyless.json();
    let key = keyless
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "model key")
        .unwrap();
    assert_eq!(key["ok"], false, "{keyless}");
    assert!(
        key["fix"].as_str().unwrap().contains("api_key_env"),
        "{keyless}"
    );
}

#[test]
fn doctor_names_a_socket_no_daemon_answers_at() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let runtime = env.root().join("runtime");
    std::fs::create_dir_all(runtime.join("nodwyn")).unwrap();
    // What a killed daemon leaves: its socket file, nobody listening.
    let socket = runtime.join("nodwyn/nodwyn.sock");
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let mut command = env.nodwyn_command(&repo, &["doctor", "--offline"]);
    command.env("XDG_RUNTIME_DIR", &runtime);
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("FAIL daemon") && stdout.contains("no daemon answers"),
        "{stdout}"
    );
    // One that listens answers.
    std::fs::remove_file(&socket).unwrap();
    let _listening = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let mut command = env.nodwyn_command(&repo, &["doctor", "--offline"]);
    command.env("XDG_RUNTIME_DIR", &runtime);
    let stdout = String::from_utf8_lossy(&command.output().unwrap().stdout).into_owned();
    assert!(
        stdout.contains("ok   daemon           one answers at"),
        "{stdout}"
    );
}
