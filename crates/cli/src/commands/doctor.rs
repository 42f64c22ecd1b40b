//! `nodwyn doctor`: whether this machine and configuration can do what nodwyn does, one line a
//! check, with the fix for each that fails.

use std::time::Duration;

use clap::Args;
use nodwyn_model::Model;
use serde::Serialize;

use crate::commands::{Invocation, Outcome};
use crate::environment;
use crate::output;

/// Check this machine and your configuration: git, the sandbox, the data directory, a running
/// daemon's socket, the model.
///
/// One line a check, and for each that fails what to do. The model is sent one tiny request
/// (a few tokens) to see that it answers. Exits 1 when a check fails.
#[derive(Debug, Args)]
pub(super) struct DoctorArgs {
    /// Do not send the model its tiny request (only check that one is configured).
    #[arg(long)]
    offline: bool,
}

/// One check and how it came out.
#[derive(Debug, Serialize)]
struct Check {
    /// What was checked.
    check: &'static str,
    /// Whether it passed.
    ok: bool,
    /// What was found.
    found: String,
    /// What to do, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

impl Check {
    fn passed(check: &'static str, found: impl Into<String>) -> Self {
        Self {
            check,
            ok: true,
            found: found.into(),
            fix: None,
        }
    }

    fn failed(check: &'static str, found: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            check,
            ok: false,
            found: found.into(),
            fix: Some(fix.into()),
        }
    }
}

/// The oldest git nodwyn works with (`merge-tree --write-tree`, `--attr-source`).
const OLDEST_GIT: (u32, u32) = (2, 40);

/// How long the model has to answer its tiny request.
const MODEL_DEADLINE: Duration = Duration::from_secs(30);

pub(super) fn run(args: DoctorArgs, invocation: &Invocation) -> anyhow::Result<Outcome> {
    let mut checks = vec![git(), sandbox(), namespaces(), data_directory(), daemon()];
    checks.extend(model(args.offline));
    let healthy = checks.iter().all(|c| c.ok);
    if invocation.json {
        output::json(&checks)?;
    } else {
        let lines: Vec<String> = checks
            .iter()
            .map(|c| {
                let mark = if c.ok { "ok  " } else { "FAIL" };
                let mut line = format!("{mark} {:<16} {}", c.check, output::printable(&c.found));
                if let Some(fix) = &c.fix {
                    line.push_str(&format!("\n     fix: {}", output::printable(fix)));
                }
                line
            })
            .collect();
        output::text(lines.join("\n"))?;
    }
    Ok(if healthy {
        Outcome::Success
    } else {
        Outcome::Exit(1)
    })
}

fn git() -> Check {
    let output = std::process::Command::new("git").arg("--version").output();
    let Some(output) = output.ok().filter(|o| o.status.success()) else {
        return Check::failed(
            "git",
            "git could not be run",
            "install git 2.40 or newer (apt-get install git) and put it on PATH",
        );
    };
    let text = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let version = text.split_whitespace().nth(2).unwrap_or_default();
    let mut numbers = version.split('.').map(|n| n.parse::<u32>().unwrap_or(0));
    let found = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    if found >= OLDEST_GIT {
        Check::passed("git", text)
    } else {
        Check::failed(
            "git",
            text,
            "nodwyn needs git 2.40 or newer: install a newer git",
        )
    }
}

fn sandbox() -> Check {
    match nodwyn_core::prim::sandbox::availability() {
        nodwyn_core::prim::sandbox::Availability::Available { abi } => Check::passed(
            "sandbox",
            format!("Landlock ABI {abi} and the system-call filter: agents' commands are confined"),
        ),
        nodwyn_core::prim::sandbox::Availability::Unavailable(why) => Check::failed(
            "sandbox",
            format!("commands cannot be confined: {why}"),
            "run nodwyn on Linux 5.13 or newer with Landlock enabled (lsm=landlock on the kernel's command line); until then every command an agent runs is asked about",
        ),
    }
}

fn namespaces() -> Check {
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|t| t.trim().to_owned())
    };
    let refused = read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0")
        || read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0")
        || read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1");
    if refused {
        Check::failed(
            "namespaces",
            "unprivileged user namespaces are refused: a command's read-only paths are kept by Landlock alone, and no process namespace ends what it leaves running",
            "allow them (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces above 0), or set [sandbox] namespaces = false to say you know",
        )
    } else {
        Check::passed(
            "namespaces",
            "user namespaces allowed: each command runs in mount and process namespaces of its own",
        )
    }
}

fn data_directory() -> Check {
    let dir = match environment::data_dir() {
        Ok(dir) => dir,
        Err(e) => {
            return Check::failed(
                "data directory",
                format!("{e:#}"),
                "set NODWYN_HOME, or HOME, to a folder you can write",
            );
        }
    };
    let probe = dir.join(format!(".doctor-{}", std::process::id()));
    let written = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&probe, b"ok"));
    let _ = std::fs::remove_file(&probe);
    match written {
        Ok(()) => Check::passed("data directory", format!("{} is writable", dir.display())),
        Err(e) => Check::failed(
            "data directory",
            format!("{} cannot be written: {e}", dir.display()),
            "free some space, or make the folder yours, or point NODWYN_HOME elsewhere",
        ),
    }
}

fn daemon() -> Check {
    let socket = match environment::daemon_socket() {
        Ok(socket) => socket,
        Err(e) => return Check::failed("daemon", format!("{e:#}"), "set NODWYN_HOME, or HOME"),
    };
    if std::fs::symlink_metadata(&socket).is_err() {
        return Check::passed(
            "daemon",
            format!("none running (its socket would be {})", socket.display()),
        );
    }
    match std::os::unix::net::UnixStream::connect(&socket) {
        Ok(_) => Check::passed("daemon", format!("one answers at {}", socket.display())),
        Err(e) => Check::failed(
            "daemon",
            format!("{} is there but no daemon answers ({e})", socket.display()),
            "a daemon that was killed left it: the next daemon replaces it, or remove it",
        ),
    }
}

fn model(offline: bool) -> Vec<Check> {
    let here = std::env::current_dir().ok();
    let repository = here.and_then(|dir| nodwyn_core::repository_of(&dir).ok());
    let chosen = crate::commands::run::settings_for(repository.as_deref())
        .and_then(|settings| settings.model(None));
    let profile = match chosen {
        Ok(profile) => profile,
        Err(e) => {
            return vec![Check::failed(
                "model",
                format!("{e:#}"),
                "add a [model] section to your configuration (see docs/agent.md)",
            )];
        }
    };
    let named = format!("{} at {}", profile.name, profile.base_url);
    let mut checks = Vec::new();
    let mut client_profile = match crate::commands::run::model_profile(&profile) {
        Ok((client_profile, _)) => {
            let key = match &profile.api_key_env {
                Some(variable) => format!("its key from {variable} is set"),
                None => "no key configured (api_key_env), as a local server needs none".to_owned(),
            };
            checks.push(Check::passed("model key", key));
            client_profile
        }
        Err(e) => {
            checks.push(Check::failed(
                "model key",
                format!("{e:#}"),
                "export the variable api_key_env names, with the server's key",
            ));
            return checks;
        }
    };
    if offline {
        checks.push(Check::passed(
            "model",
            format!("{named} (not asked: --offline)"),
        ));
        return checks;
    }
    // A few tokens are enough to see that it answers.
    client_profile.max_output_tokens = 8;
    checks.push(match ask_the_model(client_profile) {
        Ok(()) => Check::passed("model", format!("{named} answers")),
        Err(why) => Check::failed(
            "model",
            format!("{named} did not answer: {why}"),
            "check that the server runs and that base_url, name and the key are right",
        ),
    });
    checks
}

/// Sends the model one tiny request, once, with a deadline.
fn ask_the_model(profile: nodwyn_model::Profile) -> Result<(), String> {
    let client = nodwyn_model::Client::new(profile)
        .map_err(|e| e.to_string())?
        .with_retry(nodwyn_model::Retry {
            tries: 1,
            ..nodwyn_model::Retry::default()
        });
    let request = nodwyn_model::Request {
        system: "Answer with the one word ok.".to_owned(),
        messages: vec![nodwyn_model::Message::User {
            text: "Are you there?".to_owned(),
        }],
        tools: Vec::new(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let mut ignore = |_| {};
        match tokio::time::timeout(MODEL_DEADLINE, client.complete(&request, &mut ignore)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {} s", MODEL_DEADLINE.as_secs())),
        }
    })
}
