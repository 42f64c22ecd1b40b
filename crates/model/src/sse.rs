//! Server-sent events read from a byte stream: `event:` and `data:` lines, a blank line ending
//! each event (LF or CRLF), comments and other fields ignored.

/// One event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// Its `event:` name, empty when none was given.
    pub name: String,
    /// Its `data:` lines joined by newlines.
    pub data: String,
}

/// Collects bytes and hands out whole events.
#[derive(Debug, Default)]
pub struct SseReader {
    pending: Vec<u8>,
    current: SseEvent,
    has_data: bool,
}

impl SseReader {
    /// Takes `bytes` and returns the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.pending.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                if self.has_data || !self.current.name.is_empty() {
                    events.push(std::mem::take(&mut self.current));
                }
                self.has_data = false;
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (&*line, ""),
            };
            match field {
                "event" => self.current.name = value.to_owned(),
                "data" => {
                    if self.has_data {
                        self.current.data.push('\n');
                    }
                    self.current.data.push_str(value);
                    self.has_data = true;
                }
                _ => {}
            }
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_anywhere_come_out_whole() {
        let text = b"event: a\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n: comment\n\ndata: [DONE]\n\n";
        for cut in 0..text.len() {
            let mut reader = SseReader::default();
            let mut events = reader.feed(&text[..cut]);
            events.extend(reader.feed(&text[cut..]));
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
