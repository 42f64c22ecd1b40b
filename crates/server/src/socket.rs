//! The daemon's listener: a Unix socket of mode 0600 in a folder of mode 0700, each peer's uid
//! checked with `SO_PEERCRED`, one daemon per socket (a lock beside it, not a guess from a
//! socket file a killed daemon left, which is replaced). Each connection reads one JSON-RPC
//! message per line and writes from its bounded queue; a client that floods waits on its own
//! connection only, and one that stops reading is dropped.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Semaphore;

use crate::dispatch::{Peer, dispatch};
use crate::events::error_line;
use crate::outbox::{Outbox, QUEUE};
use crate::peer::started_by_agent;
use crate::server::Server;

/// The longest line a client may send.
pub const MAX_LINE: u64 = 1 << 20;

/// How many of one client's requests run at once; more wait for one to end.
const IN_FLIGHT: usize = 64;

/// How often the logs of followed sessions are read for records other processes wrote.
const FOLLOW: Duration = Duration::from_millis(200);

/// A socket this process listens on; the socket file goes when it is dropped.
#[derive(Debug)]
pub struct Listening {
    path: PathBuf,
    _lock: File,
}

impl Listening {
    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Binds the socket at `path`, or says in one sentence why not.
pub fn bind(path: &Path) -> anyhow::Result<(UnixListener, Listening)> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    private_folder(folder)?;
    let mut lock_path = path.as_os_str().to_owned();
    lock_path.push(".lock");
    let lock_path = PathBuf::from(lock_path);
    let mut lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&lock_path)
        .map_err(|e| anyhow::anyhow!("could not open {}: {e}", lock_path.display()))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let pid = std::fs::read_to_string(&lock_path).unwrap_or_default();
            anyhow::bail!(
                "another nodwyn serve is listening on {}{}; stop it first, or give --socket another path",
                path.display(),
                match pid.trim() {
                    "" => String::new(),
                    pid => format!(" (process {pid})"),
                }
            );
        }
        Err(std::fs::TryLockError::Error(e)) => {
            anyhow::bail!("could not lock {}: {e}", lock_path.display())
        }
    }
    lock.set_len(0)?;
    writeln!(lock, "{}", std::process::id())?;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => {
            // Left by a daemon that was killed: the lock says nobody listens on it.
            std::fs::remove_file(path)
                .map_err(|e| anyhow::anyhow!("could not replace {}: {e}", path.display()))?;
        }
        Ok(_) => anyhow::bail!(
            "{} exists and is not a socket; nodwyn serve will not replace it",
            path.display()
        ),
        Err(_) => {}
    }
    let listener = UnixListener::bind(path)
        .map_err(|e| anyhow::anyhow!("could not listen on {}: {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok((
        listener,
        Listening {
            path: path.to_owned(),
            _lock: lock,
        },
    ))
}

/// Makes `folder` (mode 0700) or checks that it is the person's own and closed to others.
fn private_folder(folder: &Path) -> anyhow::Result<()> {
    if !folder.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(folder)
            .map_err(|e| anyhow::anyhow!("could not make {}: {e}", folder.display()))?;
    }
    let meta = std::fs::metadata(folder)?;
    if meta.uid() != rustix::process::geteuid().as_raw() {
        anyhow::bail!(
            "{} belongs to another user; the socket must be in a folder of your own",
            folder.display()
        );
    }
    if meta.mode() & 0o077 != 0 {
        anyhow::bail!(
            "{} is open to other users (mode {:o}); nodwyn serve listens only in a folder of mode 0700 (chmod 700 it, or give --socket another path)",
            folder.display(),
            meta.mode() & 0o777
        );
    }
    Ok(())
}

/// Serves connections on `listener` until `stop` completes.
pub async fn serve(
    server: Arc<Server>,
    listener: UnixListener,
    stop: impl std::future::Future<Output = ()>,
) {
    let follower = {
        let hub = Arc::clone(&server.hub);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(FOLLOW);
            loop {
                ticks.tick().await;
                let hub = Arc::clone(&hub);
                let _ = tokio::task::spawn_blocking(move || hub.catch_up_all()).await;
            }
        })
    };
    tokio::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let server = Arc::clone(&server);
                    tokio::spawn(async move { connection(server, stream).await });
                }
                Err(error) => {
                    // Out of file handles, say: wait rather than spin.
                    tracing::warn!(%error, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            () = &mut stop => break,
        }
    }
    follower.abort();
}

/// One client's connection, from its first line to its last.
async fn connection(server: Arc<Server>, stream: UnixStream) {
    let Ok(credentials) = stream.peer_cred() else {
        return;
    };
    if credentials.uid() != rustix::process::geteuid().as_raw() {
        tracing::warn!(
            uid = credentials.uid(),
            "refused a connection of another user"
        );
        return;
    }
    let may_answer = !credentials.pid().is_some_and(started_by_agent);
    let (reader, mut writer) = stream.into_split();
    let (outbox, inbox) = Outbox::new(QUEUE);
    let (mut lines, watch) = (inbox.lines, inbox.watch);
    let writing = tokio::spawn(async move {
        loop {
            tokio::select! {
                line = lines.recv() => {
                    let Some(line) = line else { break };
                    let mut bytes = Vec::with_capacity(line.len() + 1);
                    bytes.extend_from_slice(line.as_bytes());
                    bytes.push(b'\n');
                    if writer.write_all(&bytes).await.is_err() {
                        break;
                    }
                }
                () = watch.dropped() => break,
            }
        }
        let _ = writer.shutdown().await;
    });
    let peer = Peer::new(outbox.clone(), may_answer);
    let in_flight = in_flight();
    let mut reader = BufReader::new(reader);
    loop {
        let mut line = Vec::new();
        let read = (&mut reader)
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut line)
            .await;
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.len() as u64 > MAX_LINE {
            outbox.send(error_line(
                &serde_json::Value::Null,
                nodwyn_protocol::rpc::PARSE_ERROR,
                &format!("a line is longer than {MAX_LINE} bytes; the connection is closed"),
                None,
            ));
            break;
        }
        let text = String::from_utf8_lossy(&line).trim().to_owned();
        if !answer(&server, &peer, &in_flight, text).await {
            break;
        }
    }
    hang_up(&server, peer, outbox, writing).await;
}

/// How many of one client's requests run at once, for [`answer`].
pub(crate) fn in_flight() -> Arc<Semaphore> {
    Arc::new(Semaphore::new(IN_FLIGHT))
}

/// Answers one message of `peer`'s connection on a task of its own, once fewer than
/// [`IN_FLIGHT`] of its requests run; `false` when the connection is to end (its queue was
/// dropped). Blank messages are passed over.
pub(crate) async fn answer(
    server: &Arc<Server>,
    peer: &Peer,
    in_flight: &Arc<Semaphore>,
    text: String,
) -> bool {
    if text.is_empty() {
        return true;
    }
    let Ok(permit) = Arc::clone(in_flight).acquire_owned().await else {
        return false;
    };
    if peer.outbox.is_dropped() {
        return false;
    }
    let server = Arc::clone(server);
    let peer = peer.clone();
    tokio::spawn(async move {
        if let Some(answer) = dispatch(&server, &peer, &text).await {
            peer.outbox.send(answer);
        }
        drop(permit);
    });
    true
}

/// Ends a connection: the hub forgets it, and its writer sends what is queued, then stops.
pub(crate) async fn hang_up(
    server: &Server,
    peer: Peer,
    outbox: Outbox,
    writing: tokio::task::JoinHandle<()>,
) {
    server.hub.forget(outbox.client());
    // Requests still running answer into a queue nobody reads: the writer ends when it is empty.
    drop(peer);
    drop(outbox);
    let _ = writing.await;
}
