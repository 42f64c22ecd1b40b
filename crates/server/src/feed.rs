//! One session's sequenced events: the log read from where it was last read, each record
//! numbered by its place in the log (`seq`, from 1, as `session.events` numbers them), the most
//! recent kept in a ring for replay, and sent to the session's subscribers.

use std::collections::VecDeque;

use nodwyn_core::log::EventLog;
use nodwyn_protocol::Notification;

use crate::events::{notification_line, notification_of};
use crate::outbox::{Line, Outbox};

/// How many records apart the feed notes where in the log a record begins, so a read back
/// starts near the records it wants instead of at the log's start.
const CHECKPOINT_EVERY: u64 = 1024;

/// A place in the log: the records before it, and its byte offset.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checkpoint {
    records_before: u64,
    offset: u64,
}

/// A session's feed.
#[derive(Debug)]
pub(crate) struct Feed {
    pub(crate) session: String,
    pub(crate) log: EventLog,
    /// The log's bytes read so far (whole lines only).
    offset: u64,
    /// The `seq` of the last record published.
    pub(crate) published: u64,
    /// The last records published, oldest first.
    pub(crate) ring: VecDeque<(u64, Line)>,
    ring_size: usize,
    pub(crate) subscribers: Vec<Outbox>,
    /// Places in the log, in order, about [`CHECKPOINT_EVERY`] records apart; the first is
    /// the log's start.
    checkpoints: Vec<Checkpoint>,
}

impl Feed {
    /// The feed of `session`'s `log`, everything in it read (and the last `ring_size` records
    /// kept), nobody subscribed yet.
    pub(crate) fn open(
        session: String,
        log: EventLog,
        ring_size: usize,
    ) -> Result<Self, nodwyn_core::Error> {
        let mut feed = Self {
            session,
            log,
            offset: 0,
            published: 0,
            ring: VecDeque::new(),
            ring_size: ring_size.max(1),
            subscribers: Vec::new(),
            checkpoints: vec![Checkpoint {
                records_before: 0,
                offset: 0,
            }],
        };
        feed.catch_up()?;
        Ok(feed)
    }

    /// Publishes every record appended since the last read, in order.
    pub(crate) fn catch_up(&mut self) -> Result<(), nodwyn_core::Error> {
        let grown = std::fs::metadata(self.log.path()).map_or(true, |m| m.len() > self.offset);
        if !grown {
            return Ok(());
        }
        let mut records = Vec::new();
        self.offset = self
            .log
            .each_placed_record_from(self.offset, |record, end| records.push((record, end)))?;
        for (record, end) in records {
            self.published += 1;
            let last = self.checkpoints.last().map_or(0, |c| c.records_before);
            if self.published - last >= CHECKPOINT_EVERY {
                self.checkpoints.push(Checkpoint {
                    records_before: self.published,
                    offset: end,
                });
            }
            let line = notification_line(
                &self.session,
                self.published,
                &notification_of(&self.session, record),
            );
            self.broadcast(&line);
            if self.ring.len() == self.ring_size {
                self.ring.pop_front();
            }
            self.ring.push_back((self.published, line));
        }
        Ok(())
    }

    /// Sends a notification that is no record (the model's text as it streams, an item that
    /// began, a question settled): live only, never replayed, numbered with the `seq` of the
    /// record it follows.
    pub(crate) fn live(&mut self, notification: &Notification) {
        let line = notification_line(&self.session, self.published, notification);
        self.broadcast(&line);
    }

    /// Sends `line` to every subscriber; one that cannot take it is dropped.
    pub(crate) fn broadcast(&mut self, line: &Line) {
        self.subscribers
            .retain(|subscriber| subscriber.send(Line::clone(line)));
    }

    /// The first `seq` the ring can send again.
    pub(crate) fn ring_start(&self) -> u64 {
        self.ring
            .front()
            .map_or(self.published + 1, |(seq, _)| *seq)
    }

    /// The last place in the log before record `seq`, where reading it back can start.
    pub(crate) fn checkpoint_before(&self, seq: u64) -> Checkpoint {
        let after = self.checkpoints.partition_point(|c| c.records_before < seq);
        self.checkpoints[after.saturating_sub(1)]
    }

    /// Stops sending to client `client`.
    pub(crate) fn unsubscribe(&mut self, client: u64) {
        self.subscribers.retain(|s| s.client() != client);
    }
}

/// The lines of `log`'s records numbered `from` to `to`, read from the log itself, starting
/// at `start` (a place before record `from`).
pub(crate) fn read_back(
    session: &str,
    log: &EventLog,
    start: Checkpoint,
    from: u64,
    to: u64,
) -> Result<Vec<Line>, nodwyn_core::Error> {
    let mut lines = Vec::new();
    let mut seq = start.records_before;
    log.each_record_from(start.offset, |record| {
        seq += 1;
        if (from..=to).contains(&seq) {
            lines.push(notification_line(
                session,
                seq,
                &notification_of(session, record),
            ));
        }
    })?;
    Ok(lines)
}
