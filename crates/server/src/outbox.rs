//! A client's outgoing queue: bounded, so a client that stops reading is dropped, never waited
//! for. Every line it is given is one whole JSON-RPC message.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};

/// How many messages wait for a client before it counts as not reading and is dropped.
pub const QUEUE: usize = 4096;

/// How long a replay from a session's log waits for room in a client's queue.
const REPLAY_WAIT: Duration = Duration::from_secs(10);

/// One message, shared by every client it goes to.
pub type Line = Arc<str>;

/// Where the messages to one client go.
#[derive(Clone, Debug)]
pub struct Outbox {
    client: u64,
    queue: mpsc::Sender<Line>,
    dropped: Arc<Dropped>,
}

/// The other end of an [`Outbox`]: what the client's writer takes messages from.
#[derive(Debug)]
pub struct Inbox {
    /// The messages, in order.
    pub lines: mpsc::Receiver<Line>,
    /// Says when the client is dropped.
    pub watch: DropWatch,
}

/// Completes when a client is dropped (its queue overflowed).
#[derive(Debug, Clone)]
pub struct DropWatch(Arc<Dropped>);

#[derive(Debug, Default)]
struct Dropped {
    flag: AtomicBool,
    notify: Notify,
}

static NEXT_CLIENT: AtomicU64 = AtomicU64::new(1);

impl Outbox {
    /// A new client's queue, holding at most `capacity` messages.
    pub fn new(capacity: usize) -> (Self, Inbox) {
        let (queue, lines) = mpsc::channel(capacity.max(1));
        let dropped = Arc::new(Dropped::default());
        (
            Self {
                client: NEXT_CLIENT.fetch_add(1, Ordering::Relaxed),
                queue,
                dropped: Arc::clone(&dropped),
            },
            Inbox {
                lines,
                watch: DropWatch(dropped),
            },
        )
    }

    /// The client's number, unique in this process.
    pub fn client(&self) -> u64 {
        self.client
    }

    /// Queues `line`; `false` when the client is gone, or its queue is full, which drops it.
    pub fn send(&self, line: Line) -> bool {
        if self.is_dropped() {
            return false;
        }
        match self.queue.try_send(line) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::info!(
                    client = self.client,
                    "a client stopped reading; dropping it"
                );
                self.drop_client();
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Queues `line`, waiting a while for room (a replay larger than the queue); a client that
    /// does not make room in time is dropped.
    pub async fn send_waiting(&self, line: Line) -> bool {
        if self.is_dropped() {
            return false;
        }
        match self.queue.send_timeout(line, REPLAY_WAIT).await {
            Ok(()) => true,
            Err(mpsc::error::SendTimeoutError::Timeout(_)) => {
                self.drop_client();
                false
            }
            Err(mpsc::error::SendTimeoutError::Closed(_)) => false,
        }
    }

    /// Waits until `room` messages fit in the queue (a replay's last part is queued at once);
    /// `false` when the client does not make room in time, which drops it.
    pub async fn wait_for_room(&self, room: usize) -> bool {
        let room = room.min(self.queue.max_capacity());
        let started = tokio::time::Instant::now();
        while self.queue.capacity() < room {
            if self.is_dropped() {
                return false;
            }
            if started.elapsed() > REPLAY_WAIT {
                self.drop_client();
                return false;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        !self.is_dropped()
    }

    /// Whether the client was dropped or went away.
    pub fn is_dropped(&self) -> bool {
        self.dropped.flag.load(Ordering::SeqCst) || self.queue.is_closed()
    }

    /// Drops the client: its connection is closed.
    pub fn drop_client(&self) {
        self.dropped.flag.store(true, Ordering::SeqCst);
        self.dropped.notify.notify_waiters();
        self.dropped.notify.notify_one();
    }
}

impl DropWatch {
    /// Waits until the client is dropped.
    pub async fn dropped(&self) {
        loop {
            let notified = self.0.notify.notified();
            if self.0.flag.load(Ordering::SeqCst) {
                return;
            }
            notified.await;
        }
    }
}
