//! Runs of base64 or hex long enough to hide a credential, and the text they decode to.
//!
//! One pass over the bytes finds every run of the base64 alphabet (`A-Z a-z 0-9 + /`, with `=`
//! padding) of at least [`SHORTEST`] characters; a run of hex digits is a base64 run too, and is
//! read as hex when it is one. A run decodes to text only when nearly all of it is printable:
//! hashes, integrity values and images decode to bytes and are passed over at once, so clean
//! code costs this one table lookup a byte.

use super::allow::{decode_base64, decode_hex};

/// The shortest run worth decoding: 24 bytes of text, enough for the shortest token the rules
/// know with its prefix.
pub(super) const SHORTEST: usize = 32;

/// Every long enough run in `text`: where it starts and ends, and the text it decodes to, if it
/// decodes to text. A run of [`SHORTEST`] characters holds one of every [`SHORTEST`]th byte, so
/// only those are looked at first, and a run is followed out from there: clean text costs a
/// fraction of a lookup a byte.
pub(super) fn runs(text: &[u8]) -> impl Iterator<Item = (usize, usize, Option<Vec<u8>>)> + '_ {
    let mut probe = SHORTEST - 1;
    let mut done = 0;
    std::iter::from_fn(move || {
        while probe < text.len() {
            let at = probe;
            probe += SHORTEST;
            if at < done || !is_base64(text[at]) {
                continue;
            }
            let mut start = at;
            while start > done && is_base64(text[start - 1]) {
                start -= 1;
            }
            let mut end = at + 1;
            while end < text.len() && is_base64(text[end]) {
                end += 1;
            }
            let mut padding = 0;
            while end < text.len() && text[end] == b'=' && padding < 2 {
                end += 1;
                padding += 1;
            }
            done = end;
            probe = probe.max(end + SHORTEST - 1);
            if end - start >= SHORTEST {
                return Some((start, end, decode(&text[start..end])));
            }
        }
        None
    })
}

/// What a run decodes to, when that is text. Its first few characters are decoded first: the
/// runs that decode to bytes (hashes, most of them) are passed over before anything is allocated.
fn decode(run: &[u8]) -> Option<Vec<u8>> {
    let run = std::str::from_utf8(run).ok()?;
    let hex = run.len().is_multiple_of(2) && run.bytes().all(|b| b.is_ascii_hexdigit());
    let decode = |text: &str| {
        if hex {
            decode_hex(text)
        } else {
            decode_base64(text)
        }
    };
    if !is_text(&decode(&run[..16])?) {
        return None;
    }
    let decoded = decode(run.trim_end_matches('='))?;
    is_text(&decoded).then_some(decoded)
}

/// The base64 alphabet, as a table: one lookup a byte.
const BASE64: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
        byte += 1;
    }
    table
};

fn is_base64(byte: u8) -> bool {
    BASE64[usize::from(byte)]
}

/// Whether nearly every byte is printable ASCII or white space.
fn is_text(bytes: &[u8]) -> bool {
    let printable = bytes
        .iter()
        .filter(|b| b.is_ascii_graphic() || b.is_ascii_whitespace())
        .count();
    !bytes.is_empty() && printable * 20 >= bytes.len() * 19
}
