//! A client of the daemon's socket, for the command line (`run --daemon`, `chat --daemon`) and
//! tests: requests wait for their answer while every other message (notifications, the
//! engine's questions) is kept, in order, for [`Client::next`].

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use nodwyn_protocol::rpc::{INTERNAL_ERROR, JSONRPC, RpcError};
use nodwyn_protocol::{Approval, Decision};
use serde_json::{Value, json};

/// A connection to `nodwyn serve`.
pub struct Client {
    stream: UnixStream,
    incoming: mpsc::Receiver<Value>,
    held: VecDeque<Value>,
    next_id: u64,
}

impl Client {
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
            stream,
            incoming,
            held: VecDeque::new(),
            next_id: 1,
        })
    }

    /// Calls `method` with `params` and waits for its answer.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": JSONRPC, "id": id, "method": method, "params": params}))
            .map_err(gone)?;
        loop {
            let message = self
                .incoming
                .recv()
                .map_err(|_| gone("the daemon closed the connection"))?;
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

    /// Answers the engine's question `request`.
    pub fn answer(&mut self, request: &str, decision: Decision) -> std::io::Result<()> {
        self.send(&json!({"jsonrpc": JSONRPC, "id": request, "result": Approval { decision }}))
    }

    /// Sends one message.
    pub fn send(&mut self, message: &Value) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        self.stream.write_all(&line)
    }
}

fn gone(why: impl std::fmt::Display) -> RpcError {
    RpcError {
        code: INTERNAL_ERROR,
        message: why.to_string(),
        data: None,
    }
}
