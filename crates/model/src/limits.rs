//! How much of an answer a client accepts: the length of one server-sent event. Each limit
//! counts what actually arrived, never what the server says about itself.

/// The longest line of a server-sent event stream, and the longest data of one event (4 MiB).
pub const MAX_EVENT_BYTES: usize = 4 << 20;
