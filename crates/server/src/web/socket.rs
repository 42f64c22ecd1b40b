//! The console's WebSocket as one protocol connection: each text message is one JSON-RPC
//! message, answered and followed by events and questions exactly as a Unix socket's lines are.
//! A browser that passed the checks is the person's (only the person has the token), so its
//! answers to questions count, unless the connection comes from a process an agent's command
//! started.

use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use futures_util::{SinkExt, StreamExt};

use crate::dispatch::Peer;
use crate::outbox::{Outbox, QUEUE};
use crate::server::Server;
use crate::socket::{answer, hang_up, in_flight};

/// One browser's connection, from its first message to its last.
pub(crate) async fn connection(server: Arc<Server>, socket: WebSocket, may_answer: bool) {
    let (mut sink, mut stream) = socket.split();
    let (outbox, inbox) = Outbox::new(QUEUE);
    let (mut lines, watch) = (inbox.lines, inbox.watch);
    let writing = tokio::spawn(async move {
        loop {
            tokio::select! {
                line = lines.recv() => {
                    let Some(line) = line else { break };
                    if sink.send(Message::Text(line.to_string().into())).await.is_err() {
                        break;
                    }
                }
                () = watch.dropped() => break,
            }
        }
        let _ = sink.close().await;
    });
    let peer = Peer::new(outbox.clone(), may_answer);
    let in_flight = in_flight();
    while let Some(Ok(message)) = stream.next().await {
        let text = match message {
            Message::Text(text) => text.as_str().trim().to_owned(),
            Message::Close(_) => break,
            _ => continue,
        };
        if !answer(&server, &peer, &in_flight, text).await {
            break;
        }
    }
    hang_up(&server, peer, outbox, writing).await;
}
