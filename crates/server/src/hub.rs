//! The session hub: the live feeds of a process's sessions, and subscriptions to them.
//!
//! `subscribe(session, after)` sends every event after `after` and then every new one, with
//! nothing lost or doubled between the two: what the ring still holds is sent and the client
//! registered in one step under the feed's lock, and what is older than the ring is read back
//! from the log first, outside the lock, until the ring covers the rest. A cursor that cannot
//! be honoured (past the log's end, or further back than [`Limits::replay`]) gets one `resync`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use nodwyn_core::Store;
use nodwyn_protocol::Notification;

use crate::approvals::Approvals;
use crate::events::notification_line;
use crate::feed::{Feed, read_back};
use crate::outbox::Outbox;

/// Room kept in a subscriber's queue, beside the ring's events, for what happens meanwhile.
const ROOM_FOR_LIVE: usize = 64;

/// How much a hub keeps and sends again.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// How many recent events of each session are kept in memory.
    pub ring: usize,
    /// The most events a subscribe sends again; an older cursor gets a `resync`.
    pub replay: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            ring: 1024,
            replay: 100_000,
        }
    }
}

/// The sessions this process follows.
pub struct Hub {
    store: Store,
    limits: Limits,
    feeds: Mutex<HashMap<String, Arc<Mutex<Feed>>>>,
    /// The questions waiting for an answer.
    pub approvals: Approvals,
}

impl Hub {
    /// A hub of `store`'s sessions; questions nobody answers within `approval_timeout` are
    /// declined.
    pub fn new(store: Store, limits: Limits, approval_timeout: std::time::Duration) -> Self {
        Self {
            store,
            limits,
            feeds: Mutex::new(HashMap::new()),
            approvals: Approvals::new(approval_timeout),
        }
    }

    /// The feed of session `id` (its full id), opened on first use.
    pub(crate) fn feed(&self, id: &str) -> Result<Arc<Mutex<Feed>>, nodwyn_core::Error> {
        if let Some(feed) = lock(&self.feeds).get(id) {
            return Ok(Arc::clone(feed));
        }
        let stored = self.store.find(id)?;
        let feed = Feed::open(id.to_owned(), stored.log, self.limits.ring)?;
        Ok(Arc::clone(
            lock(&self.feeds)
                .entry(id.to_owned())
                .or_insert_with(|| Arc::new(Mutex::new(feed))),
        ))
    }

    /// Publishes what session `id`'s log gained since it was last read.
    pub fn catch_up(&self, id: &str) {
        if let Ok(feed) = self.feed(id)
            && let Err(error) = lock(&feed).catch_up()
        {
            tracing::info!(session = id, error = %error, "could not read a session's log");
        }
    }

    /// Publishes what every followed session's log gained (records other processes wrote).
    pub fn catch_up_all(&self) {
        let feeds: Vec<_> = lock(&self.feeds).values().cloned().collect();
        for feed in feeds {
            let mut feed = lock(&feed);
            if !feed.subscribers.is_empty() {
                let _ = feed.catch_up();
            }
        }
    }

    /// Tells session `id`'s subscribers `notification`, which is no record (it is not replayed).
    pub fn live(&self, id: &str, notification: &Notification) {
        if let Ok(feed) = self.feed(id) {
            let mut feed = lock(&feed);
            let _ = feed.catch_up();
            feed.live(notification);
        }
    }

    /// Sends session `id`'s events after `after` to `outbox`, then every new one, and the
    /// questions still waiting; `Ok(false)` when the client went away during the replay.
    pub async fn subscribe(
        &self,
        id: &str,
        after: Option<u64>,
        outbox: &Outbox,
    ) -> Result<bool, crate::refusal::Refusal> {
        let feed = self.feed(id)?;
        let mut after = after.unwrap_or(0);
        loop {
            // What the ring holds is queued at once under the lock: room for it first.
            if !outbox.wait_for_room(self.limits.ring + ROOM_FOR_LIVE).await {
                return Ok(false);
            }
            let (log, start, target) = {
                let mut locked = lock(&feed);
                locked.catch_up()?;
                if let Some((from, why)) = self.resync(after, locked.published) {
                    let resync = Notification::Resync { after, from, why };
                    outbox.send(notification_line(id, locked.published, &resync));
                    after = from - 1;
                }
                if after + 1 >= locked.ring_start() {
                    for (seq, line) in &locked.ring {
                        if *seq > after {
                            outbox.send(Arc::clone(line));
                        }
                    }
                    locked.unsubscribe(outbox.client());
                    locked.subscribers.push(outbox.clone());
                    for question in self.approvals.waiting(id) {
                        outbox.send(question);
                    }
                    return Ok(!outbox.is_dropped());
                }
                let from = after + 1;
                (
                    locked.log.clone(),
                    locked.checkpoint_before(from),
                    locked.ring_start() - 1,
                )
            };
            let session = id.to_owned();
            let from = after + 1;
            let lines =
                tokio::task::spawn_blocking(move || read_back(&session, &log, start, from, target))
                    .await??;
            for line in lines {
                if !outbox.send_waiting(line).await {
                    return Ok(false);
                }
            }
            after = target;
        }
    }

    /// Where a replay after `after` must start instead, and why, when it cannot start there:
    /// a cursor past the log's end belongs to another log (everything follows, within the
    /// limit); one further back than [`Limits::replay`] gets the last events the limit allows.
    fn resync(&self, after: u64, published: u64) -> Option<(u64, String)> {
        let oldest = published.saturating_sub(self.limits.replay) + 1;
        if after > published {
            return Some((
                oldest,
                format!(
                    "the cursor {after} is past the session's last event ({published}): it belongs to another log; the events from {oldest} follow"
                ),
            ));
        }
        (after + 1 < oldest).then(|| {
            (
                oldest,
                format!(
                    "{} events follow the cursor, more than the {} sent again: those from {oldest} follow, and session.events reads the ones before",
                    published - after,
                    self.limits.replay
                ),
            )
        })
    }

    /// Stops sending session `id`'s events to client `client`.
    pub fn unsubscribe(&self, id: &str, client: u64) {
        if let Some(feed) = lock(&self.feeds).get(id) {
            lock(feed).unsubscribe(client);
        }
    }

    /// Forgets client `client` everywhere (it went away).
    pub fn forget(&self, client: u64) {
        let feeds: Vec<_> = lock(&self.feeds).values().cloned().collect();
        for feed in feeds {
            lock(&feed).unsubscribe(client);
        }
    }

    /// Runs `work` with session `id`'s feed locked (a question asked and sent to its
    /// subscribers in one step, so a subscribe in between neither misses nor doubles it).
    pub(crate) fn with_feed<T>(&self, id: &str, work: impl FnOnce(&mut Feed) -> T) -> Option<T> {
        let feed = self.feed(id).ok()?;
        let mut feed = lock(&feed);
        let _ = feed.catch_up();
        Some(work(&mut feed))
    }

    /// How many clients follow session `id`.
    pub fn subscribers(&self, id: &str) -> usize {
        lock(&self.feeds)
            .get(id)
            .map_or(0, |feed| lock(feed).subscribers.len())
    }
}

/// A lock, taken even if a holder panicked (what it guards stays consistent step by step).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
