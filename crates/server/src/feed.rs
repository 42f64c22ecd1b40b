//! One session's sequenced events: the log read from where it was last read, each record
//! numbered by its place in the log (`seq`, from 1, as `session.events` numbers them), the most
//! recent kept in a ring for replay, and sent to the session's subscribers.

use std::collections::VecDeque;

use nodwyn_core::log::EventLog;
use nodwyn_protocol::Notification;

use crate::events::{notification_line, notification_of};
use crate::outbox::{Line, Outbox};

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
            .each_record_from(self.offset, |record| records.push(record))?;
        for record in records {
            self.published += 1;
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

    /// Stops sending to client `client`.
    pub(crate) fn unsubscribe(&mut self, client: u64) {
        self.subscribers.retain(|s| s.client() != client);
    }
}

/// The lines of `log`'s records numbered `from` to `to`, read from the log itself.
pub(crate) fn read_back(
    session: &str,
    log: &EventLog,
    from: u64,
    to: u64,
) -> Result<Vec<Line>, nodwyn_core::Error> {
    let mut lines = Vec::new();
    let mut seq = 0;
    log.each_record_from(0, |record| {
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
