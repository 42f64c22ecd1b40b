//! A client of the engine, for the command line and tests: over the daemon's socket (`run
//! --daemon`, `chat --daemon`), or in-process, where each message goes to the same dispatcher
//! a connection's lines go to and the answers come back through the same queue, so `nodwyn run`
//! speaks the protocol a daemon's clients speak. Requests wait for their answer while every
//! other message (notifications, the engine's questions) is kept, in order, for
//! [`Client::next`].

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use nodwyn_protocol::rpc::{INTERNAL_ERROR, JSONRPC, RpcError};
use nodwyn_protocol::{Approval, Decision};
use serde_json::{Value, json};

use crate::dispatch::{Peer, dispatch};
use crate::outbox::{Outbox, QUEUE};
use crate::server::Server;

/// A connection to an engine.
pub struct Client {
    transport: Transport,
    incoming: mpsc::Receiver<Value>,
    held: VecDeque<Value>,
    next_id: u64,
}

/// Where a client's messages go.
enum Transport {
    /// The daemon's socket.
    Socket(UnixStream),
    /// An engine in this process: each message is dispatched on its runtime.
    InProcess {
        server: Arc<Server>,
        peer: Peer,
        handle: tokio::runtime::Handle,
    },
}

impl Client {
    /// A client of `server`, an engine of this process running on the runtime of `handle`.
    pub fn in_process(server: Arc<Server>, handle: tokio::runtime::Handle) -> Self {
        let (outbox, mut inbox) = Outbox::new(QUEUE);
        let (arrived, incoming) = mpsc::channel();
        handle.spawn(async move {
            while let Some(line) = inbox.lines.recv().await {
                if let Ok(message) = serde_json::from_str::<Value>(&line)
                    && arrived.send(message).is_err()
                {
                    break;
                }
            }
        });
        Self {
            transport: Transport::InProcess {
                server,
                peer: Peer::new(outbox, true),
                handle,
            },
            incoming,
            held: VecDeque::new(),
            next_id: 1,
        }
    }

    /// Connects to the daemon listening on `socket`.
    pub fn connect(socket: &Path) -> std::io::Result<Self> {
        let stream = UnixStream::connect(socket)?;
        let reading = stream.try_clone()?;
        let (arrived, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(reading).lines() {
                let Ok(line) = line else { break };
                if let Ok(message) = serde_json::from_str::<Value>(&line)
                    && arrived.send(message).is_err()
                {
                    break;
                }
            }
        });
        Ok(Self {
            transport: Transport::Socket(stream),
            incoming,
            held: VecDeque::new(),
            next_id: 1,
        })
    }

    /// Calls `method` with `params` and waits for its answer.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.request_within(method, params, None)
    }

    /// Calls `method` with `params` and waits for its answer, at most `wait` when given (then an
    /// engine that has not answered is taken as gone).
    pub fn request_within(
        &mut self,
        method: &str,
        params: Value,
        wait: Option<Duration>,
    ) -> Result<Value, RpcError> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": JSONRPC, "id": id, "method": method, "params": params}))
            .map_err(gone)?;
        loop {
            let message = match wait {
                Some(wait) => self
                    .incoming
                    .recv_timeout(wait)
                    .map_err(|_| gone("the daemon did not answer in time"))?,
                None => self
                    .incoming
                    .recv()
                    .map_err(|_| gone("the daemon closed the connection"))?,
            };
            if message.get("method").is_none() && message.get("id") == Some(&Value::from(id)) {
                if let Some(error) = message.get("error") {
                    return Err(serde_json::from_value(error.clone())
                        .unwrap_or_else(|_| gone(format!("an unreadable error: {error}"))));
                }
                return Ok(message.get("result").cloned().unwrap_or_default());
            }
            self.held.push_back(message);
        }
    }

    /// Session `session`'s full id (however it was named) and the `seq` of its last event,
    /// where following it from now on starts.
    pub fn last_event(&mut self, session: &str) -> Result<(String, u64), RpcError> {
        let end = self.request(
            "session.events",
            json!({"session": session, "after": u64::MAX}),
        )?;
        let id = end["session"].as_str().unwrap_or(session).to_owned();
        Ok((id, end["last"].as_u64().unwrap_or(0)))
    }

    /// The next notification or question from the engine, waiting at most `wait` (`None`: none
    /// came); an error once the daemon closed the connection.
    pub fn next(&mut self, wait: Duration) -> Result<Option<Value>, RpcError> {
        if let Some(message) = self.held.pop_front() {
            return Ok(Some(message));
        }
        match self.incoming.recv_timeout(wait) {
            Ok(message) => Ok(Some(message)),
            Err(mpsc::RecvTimeoutError::Timeout) => Ok(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Err(gone("the daemon closed the connection"))
            }
        }
    }

    /// Whether a notification or question waits to be read ([`Client::next`] then gives it at
    /// once); an error once the daemon closed the connection.
    pub fn has_next(&mut self) -> Result<bool, RpcError> {
        if !self.held.is_empty() {
            return Ok(true);
        }
        match self.incoming.try_recv() {
            Ok(message) => {
                self.held.push_back(message);
                Ok(true)
            }
            Err(mpsc::TryRecvError::Empty) => Ok(false),
            Err(mpsc::TryRecvError::Disconnected) => Err(gone("the daemon closed the connection")),
        }
    }

    /// Answers the engine's question `request`.
    pub fn answer(&mut self, request: &str, decision: Decision) -> std::io::Result<()> {
        self.send(&json!({"jsonrpc": JSONRPC, "id": request, "result": Approval { decision }}))
    }

    /// Sends one message.
    pub fn send(&mut self, message: &Value) -> std::io::Result<()> {
        match &mut self.transport {
            Transport::Socket(stream) => {
                let mut line = serde_json::to_vec(message)?;
                line.push(b'\n');
                stream.write_all(&line)
            }
            Transport::InProcess {
                server,
                peer,
                handle,
            } => {
                let (server, peer, text) = (Arc::clone(server), peer.clone(), message.to_string());
                handle.spawn(async move {
                    if let Some(answer) = dispatch(&server, &peer, &text).await {
                        peer.outbox.send_waiting(answer).await;
                    }
                });
                Ok(())
            }
        }
    }
}

fn gone(why: impl std::fmt::Display) -> RpcError {
    RpcError {
        code: INTERNAL_ERROR,
        message: why.to_string(),
        data: None,
    }
}
