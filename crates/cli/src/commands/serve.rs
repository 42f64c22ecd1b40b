//! `nodwyn serve`: the engine as a daemon for many clients, on a private Unix socket, in the
//! foreground until SIGTERM or SIGINT (then every running turn ends as interrupted, every
//! waiting question is cancelled, the socket is removed, and nodwyn exits 0).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use nodwyn_server::engine::Overrides;

use crate::commands::Invocation;
use crate::{environment, output};

/// Serve nodwyn's engine to many clients (`nodwyn chat --daemon`, `run --daemon`, your own
/// programs) over JSON-RPC 2.0 on a Unix socket of mode 0600, one message per line. Runs in the
/// foreground; a service manager (docs/serve.md has a systemd user unit) or `&` puts it in the
/// background.
#[derive(Debug, Args)]
pub(super) struct ServeArgs {
    /// The socket (default `$XDG_RUNTIME_DIR/nodwyn/nodwyn.sock`, else `run/nodwyn.sock` in the
    /// data directory); its folder is made with mode 0700, or must have it.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Serve the web console too, on this loopback address (default `127.0.0.1:0`: a port the
    /// system picks); the address to open, with its token, is printed. Only a loopback address:
    /// the console does not serve TLS.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
    web: Option<std::net::SocketAddr>,
}

pub(super) fn run(args: ServeArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let socket = match args.socket {
        Some(socket) => socket,
        None => environment::daemon_socket()?,
    };
    let store = invocation.store()?;
    let store_home = store.home().to_path_buf();
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("could not start the engine's runtime")?;
    let engine = crate::local_engine::engine(store, Overrides::default())?;
    let server = crate::local_engine::server(engine, &runtime)?;
    let (listener, listening) = {
        let _entered = runtime.enter();
        nodwyn_server::socket::bind(&socket)?
    };
    let console = match args.web {
        Some(addr) => Some(runtime.block_on(nodwyn_server::web::bind(addr))?),
        None => None,
    };
    output::note(format!(
        "nodwyn: serving on {} (Ctrl-C stops)",
        listening.path().display()
    ));
    // Where `nodwyn console` finds the running console: in the data directory, which an
    // agent's command can never read, with mode 0600. Removed when the daemon stops.
    let published = match &console {
        Some((_, console)) => {
            output::text(format!("console: {}", console.url()))?;
            Some(crate::commands::console::publish(
                store_home.as_path(),
                &console.url(),
            )?)
        }
        None => None,
    };
    let stopping = |stop: Arc<AtomicBool>| async move {
        while !stop.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    runtime.block_on(async {
        let web = console.map(|(listener, console)| {
            tokio::spawn(nodwyn_server::web::serve(
                Arc::clone(&server),
                listener,
                console,
                stopping(Arc::clone(&stop)),
            ))
        });
        nodwyn_server::socket::serve(Arc::clone(&server), listener, stopping(Arc::clone(&stop)))
            .await;
        if let Some(web) = web {
            let _ = web.await;
        }
        server.stop().await;
        // The connections' writers send what the ended turns published, then nodwyn exits.
        tokio::time::sleep(Duration::from_millis(200)).await;
    });
    drop(listening);
    for file in published.into_iter().flatten() {
        let _ = std::fs::remove_file(file);
    }
    output::note("nodwyn: stopped; every running turn ended as interrupted");
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}
