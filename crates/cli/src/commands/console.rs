//! `nodwyn console`: the address of the running daemon's web console, starting a daemon that
//! serves one (`nodwyn serve --web`, in the background) when none runs; opened in the desktop's
//! browser when there is a desktop.
//!
//! The daemon publishes its console's address, token included, in `console.json` in the data
//! directory (mode 0600), which no command an agent runs can read, beside `console.html`, a page
//! that leads the browser there: the browser is opened on that file, so the token is in no
//! process's command line. Both are removed when the daemon stops, and an address whose daemon is
//! gone, or whose port answers nothing, is not believed.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::json;

use crate::commands::Invocation;
use crate::output;

/// How long a daemon started here may take to publish its console.
const STARTING: Duration = Duration::from_secs(20);

/// Print (and on a desktop, open) the web console's address, starting a daemon that serves it
/// when none runs.
#[derive(Debug, Args)]
pub(crate) struct ConsoleArgs {
    /// Print the address; do not open a browser.
    #[arg(long)]
    no_open: bool,
}

pub(crate) fn run(args: ConsoleArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    let file = published_file(store.home());
    let (url, started) = match running(&file) {
        Some(url) => (url, false),
        None => (start(store.home(), &file)?, true),
    };
    if invocation.json {
        output::json(&json!({"url": url, "started": started}))?;
    } else {
        if started {
            output::note(format!(
                "nodwyn: started nodwyn serve --web in the background (its log: {})",
                store.home().join("serve.log").display()
            ));
        }
        output::text(&url)?;
    }
    if !args.no_open && on_a_desktop() {
        let _ = Command::new("xdg-open")
            .arg(leading_page(store.home()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }
    Ok(())
}

/// Where a daemon publishes its console, in data directory `home`.
fn published_file(home: &Path) -> PathBuf {
    home.join("console.json")
}

/// The page in data directory `home` that leads a browser to the console.
fn leading_page(home: &Path) -> PathBuf {
    home.join("console.html")
}

/// Publishes `url` as this process's console, in data directory `home`, readable by the person
/// alone (`console.json`, and `console.html` leading a browser there); returns the files, for
/// the daemon to remove when it stops.
pub(crate) fn publish(home: &Path, url: &str) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(home)?;
    let address = json!({"url": url, "pid": std::process::id()}).to_string();
    let page = format!(
        "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0; url={url}\"><title>nodwyn</title>\n"
    );
    let files = vec![published_file(home), leading_page(home)];
    for (file, text) in files.iter().zip([address, page]) {
        write_private(file, &text)?;
    }
    Ok(files)
}

/// Writes `text` to `file` whole, readable by the person alone.
fn write_private(file: &Path, text: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut temporary = file.as_os_str().to_owned();
    temporary.push(format!(".{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let mut written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&temporary)?;
    writeln!(written, "{text}")?;
    std::fs::rename(&temporary, file)?;
    Ok(())
}

/// The console a running daemon published in `file`, if its daemon still runs and its port
/// answers.
fn running(file: &Path) -> Option<String> {
    let published: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
    let pid = published["pid"].as_u64()?;
    let url = published["url"].as_str()?.to_owned();
    if !Path::new(&format!("/proc/{pid}")).exists() {
        return None;
    }
    let addr: SocketAddr = url
        .strip_prefix("http://")?
        .split('/')
        .next()?
        .parse()
        .ok()?;
    TcpStream::connect_timeout(&addr, Duration::from_millis(500)).ok()?;
    Some(url)
}

/// Starts `nodwyn serve --web` in the background, in a session of its own (so closing this
/// terminal does not stop it), its output in `serve.log` of data directory `home`, and waits for
/// its console; or says in one sentence why it did not start.
fn start(home: &Path, file: &Path) -> anyhow::Result<String> {
    use std::os::unix::process::CommandExt;
    std::fs::create_dir_all(home)?;
    let log_path = home.join("serve.log");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)?;
    let mut child = Command::new(std::env::current_exe()?)
        .args(["serve", "--web"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()?;
    let started = Instant::now();
    while started.elapsed() < STARTING {
        if let Some(url) = running(file) {
            return Ok(url);
        }
        if let Some(status) = child.try_wait()? {
            let said = std::fs::read_to_string(&log_path).unwrap_or_default();
            let last = said.lines().last().unwrap_or_default().trim();
            anyhow::bail!(
                "could not start nodwyn serve --web ({status}): {}",
                last.strip_prefix("nodwyn: ").unwrap_or(last)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    anyhow::bail!(
        "nodwyn serve --web did not publish its console within {} s; its log is {}",
        STARTING.as_secs(),
        log_path.display()
    )
}

/// Whether a browser can be opened here: a graphical session, and `xdg-open`.
fn on_a_desktop() -> bool {
    let graphical = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    graphical
        && std::env::var_os("PATH").is_some_and(|path| {
            std::env::split_paths(&path).any(|dir| dir.join("xdg-open").is_file())
        })
}
