//! `nodwyn-standin`: a stand-in model server for tests and benchmarks. It listens on 127.0.0.1,
//! reads real HTTP requests, keeps each one (path, headers, JSON body) for the test to look at,
//! and answers with the next scripted [`Reply`], written in a provider's real wire format by
//! [`openai`] and [`anthropic`]: server-sent events split into small chunks, usage at the end,
//! errors, status codes, a stream cut in the middle, or one that never ends. When the script
//! runs out it answers 500, so a test that expected fewer calls sees it.

pub mod anthropic;
pub mod openai;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// The body in pieces, each written and flushed on its own.
    pub chunks: Vec<String>,
    /// How long to wait before each piece.
    pub pace: Duration,
    /// What happens after the last piece.
    pub end: End,
}

/// How a reply ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The connection closes after the last piece.
    Close,
    /// The connection stays open, sending nothing of the answer, until the client goes away.
    Hang,
}

impl Reply {
    /// A plain answer with `status` and a JSON or text body.
    pub fn status(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            chunks: vec![body.to_owned()],
            pace: Duration::ZERO,
            end: End::Close,
        }
    }

    /// A stream of server-sent events, each already formatted.
    pub fn events(events: Vec<String>) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type".to_owned(), "text/event-stream".to_owned())],
            chunks: events,
            pace: Duration::ZERO,
            end: End::Close,
        }
    }

    /// This reply with one more header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// This reply cut after its first `kept` pieces (the connection closes there).
    pub fn cut_after(mut self, kept: usize) -> Self {
        self.chunks.truncate(kept);
        self
    }

    /// This reply with `pace` before each piece.
    pub fn paced(mut self, pace: Duration) -> Self {
        self.pace = pace;
        self
    }

    /// This reply kept open after its pieces until the client goes away.
    pub fn hanging(mut self) -> Self {
        self.end = End::Hang;
        self
    }
}

/// A request the stand-in received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request's path (`/v1/chat/completions`).
    pub path: String,
    /// Its headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// Its body, as JSON (`null` when it was not JSON).
    pub body: serde_json::Value,
}

impl Received {
    /// The value of header `name`, if it was sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    received: Vec<Received>,
    finished: usize,
}

/// A running stand-in server; it stops with the test process.
#[derive(Clone)]
pub struct StandIn {
    address: String,
    state: Arc<Mutex<State>>,
}

impl StandIn {
    /// Starts a server that answers with `script`, in order.
    pub fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let address = format!(
            "http://{}",
            listener.local_addr().expect("the listener's address")
        );
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            received: Vec::new(),
            finished: 0,
        }));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = Arc::clone(&shared);
                std::thread::spawn(move || serve(stream, &state));
            }
        });
        Self { address, state }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.address
    }

    /// Adds replies at the end of the script.
    pub fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        self.state.lock().unwrap().script.extend(replies);
    }

    /// How many replies have ended: written whole, or given up because the client went away
    /// (a reply that hangs ends only so).
    pub fn finished(&self) -> usize {
        self.state.lock().unwrap().finished
    }

    /// Every request received so far, in order.
    pub fn received(&self) -> Vec<Received> {
        self.state.lock().unwrap().received.clone()
    }
}

fn serve(stream: TcpStream, state: &Mutex<State>) {
    let Ok(received) = read_request(&stream) else {
        return;
    };
    let reply = {
        let mut state = state.lock().unwrap();
        state.received.push(received);
        state.script.pop_front()
    };
    let reply = reply.unwrap_or_else(|| {
        Reply::status(
            500,
            r#"{"error":{"message":"the stand-in has no more scripted answers","type":"script_exhausted"}}"#,
        )
    });
    let _ = write_reply(stream, &reply);
    state.lock().unwrap().finished += 1;
}

fn read_request(stream: &TcpStream) -> std::io::Result<Received> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Received {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
    })
}

fn write_reply(mut stream: TcpStream, reply: &Reply) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} Scripted\r\nconnection: close\r\n",
        reply.status
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.flush()?;
    for chunk in &reply.chunks {
        if !reply.pace.is_zero() {
            std::thread::sleep(reply.pace);
        }
        stream.write_all(chunk.as_bytes())?;
        stream.flush()?;
    }
    if reply.end == End::Hang {
        // A comment line every tenth of a second, until writing fails: the client went away.
        loop {
            std::thread::sleep(Duration::from_millis(100));
            stream.write_all(b": waiting\n\n")?;
            stream.flush()?;
        }
    }
    Ok(())
}

/// `text` in pieces of at most `size` characters.
pub(crate) fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|c| c.iter().collect())
        .collect()
}
