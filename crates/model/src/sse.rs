//! Server-sent events read from a byte stream: `event:` and `data:` lines, a blank line ending
//! each event (LF or CRLF), comments and other fields ignored. Each byte is searched once for a
//! line's end, and a line or an event's data longer than a limit ([`MAX_EVENT_BYTES`]) is an
//! error rather than memory held without end.

use crate::error::Bound;
use crate::limits::MAX_EVENT_BYTES;

/// One event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// Its `event:` name, empty when none was given.
    pub name: String,
    /// Its `data:` lines joined by newlines.
    pub data: String,
}

/// Collects bytes and hands out whole events.
#[derive(Debug)]
pub(crate) struct SseReader {
    /// Bytes received and not yet read as lines: at most the start of one line.
    pending: Vec<u8>,
    /// How far into `pending` the search for a line's end has already looked: no byte is
    /// looked at twice, however finely the stream is cut.
    scanned: usize,
    current: SseEvent,
    has_data: bool,
    /// The longest line, and the longest data of one event, in bytes.
    limit: usize,
    /// How many bytes the search for a line's end has looked at, in all.
    searched: u64,
}

impl Default for SseReader {
    fn default() -> Self {
        Self::with_limit(MAX_EVENT_BYTES)
    }
}

impl SseReader {
    /// A reader that refuses a line, or an event's data, longer than `limit` bytes.
    pub(crate) fn with_limit(limit: usize) -> Self {
        Self {
            pending: Vec::new(),
            scanned: 0,
            current: SseEvent::default(),
            has_data: false,
            limit,
            searched: 0,
        }
    }

    /// Takes `bytes` and returns the events they complete; a line or an event's data longer
    /// than the limit is an error, after which the stream cannot be read on.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, Bound> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        // Where the line being looked for starts.
        let mut start = 0;
        while let Some(found) = self.pending[self.scanned..]
            .iter()
            .position(|&b| b == b'\n')
        {
            let end = self.scanned + found;
            self.searched += found as u64 + 1;
            let mut line = &self.pending[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            if line.len() > self.limit {
                return Err(Bound::EventTooLong { limit: self.limit });
            }
            let event = take_line(
                &mut self.current,
                &mut self.has_data,
                &String::from_utf8_lossy(line),
                self.limit,
            )?;
            events.extend(event);
            start = end + 1;
            self.scanned = start;
        }
        self.searched += (self.pending.len() - self.scanned) as u64;
        // A line without its end yet: its first `limit` bytes plus a CR are all it may hold.
        if self.pending.len() - start > self.limit.saturating_add(1) {
            return Err(Bound::EventTooLong { limit: self.limit });
        }
        self.pending.drain(..start);
        self.scanned = self.pending.len();
        // A long line read leaves no long buffer behind it.
        if self.pending.capacity() > 1 << 16 && self.pending.len() < self.pending.capacity() / 4 {
            self.pending.shrink_to(self.pending.len());
        }
        Ok(events)
    }
}

/// Reads one line (without its end) into `current`; a blank line ends the event.
fn take_line(
    current: &mut SseEvent,
    has_data: &mut bool,
    line: &str,
    limit: usize,
) -> Result<Option<SseEvent>, Bound> {
    if line.is_empty() {
        let ended = (*has_data || !current.name.is_empty()).then(|| std::mem::take(current));
        *has_data = false;
        return Ok(ended);
    }
    if line.starts_with(':') {
        return Ok(None);
    }
    let (field, value) = match line.split_once(':') {
        Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
        None => (line, ""),
    };
    match field {
        "event" => current.name = value.to_owned(),
        "data" => {
            if current.data.len() + usize::from(*has_data) + value.len() > limit {
                return Err(Bound::EventTooLong { limit });
            }
            if *has_data {
                current.data.push('\n');
            }
            current.data.push_str(value);
            *has_data = true;
        }
        _ => {}
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_in_small_chunks_is_searched_once() {
        // 256 KiB of one `data:` line, then its end, in chunks of 256 bytes.
        let mut text = b"data: ".to_vec();
        text.extend(std::iter::repeat_n(b'x', 256 * 1024));
        text.extend_from_slice(b"\n\n");
        let mut reader = SseReader::default();
        let mut events = Vec::new();
        for chunk in text.chunks(256) {
            events.extend(reader.feed(chunk).unwrap());
        }
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data.len(), 256 * 1024);
        // Each byte is looked at once (twice at most, for the line's end), however it was cut.
        assert!(
            reader.searched <= 2 * text.len() as u64,
            "{} bytes searched for {} received",
            reader.searched,
            text.len()
        );
    }

    #[test]
    fn a_line_or_an_event_past_the_limit_is_an_error() {
        let too_long = Err(Bound::EventTooLong { limit: 64 });
        // A line that never ends, in pieces.
        let mut reader = SseReader::with_limit(64);
        let line = [b'x'; 40];
        assert_eq!(reader.feed(b"data: "), Ok(vec![]));
        assert_eq!(reader.feed(&line), Ok(vec![]));
        assert_eq!(reader.feed(&line), too_long);
        // Short lines whose data add up past it.
        let mut reader = SseReader::with_limit(64);
        let line = format!("data: {}\n", "y".repeat(30));
        assert_eq!(reader.feed(line.as_bytes()), Ok(vec![]));
        assert_eq!(reader.feed(line.as_bytes()), Ok(vec![]));
        assert_eq!(reader.feed(line.as_bytes()), too_long);
        // Exactly the limit is kept.
        let mut reader = SseReader::with_limit(64);
        let line = format!("data: {}\r\n\r\n", "z".repeat(58));
        let events = reader.feed(line.as_bytes()).unwrap();
        assert_eq!(events[0].data.len(), 58);
    }

    #[test]
    fn events_split_anywhere_come_out_whole() {
        let text = b"event: a\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n: comment\n\ndata: [DONE]\n\n";
        for cut in 0..text.len() {
            let mut reader = SseReader::default();
            let mut events = reader.feed(&text[..cut]).unwrap();
            events.extend(reader.feed(&text[cut..]).unwrap());
            assert_eq!(
                events,
                vec![
                    SseEvent {
                        name: "a".to_owned(),
                        data: "{\"x\":\n1}".to_owned()
                    },
                    SseEvent {
                        name: String::new(),
                        data: "[DONE]".to_owned()
                    }
                ],
                "cut at {cut}"
            );
        }
    }
}
