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

/// What a run decodes to, when that is text. Its first 16 characters are decoded first, on the
/// stack: the runs that decode to bytes (hashes, most of them) are passed over before anything is
/// allocated.
fn decode(run: &[u8]) -> Option<Vec<u8>> {
    let hex = run.len().is_multiple_of(2) && run.iter().all(u8::is_ascii_hexdigit);
    if !starts_as_text(run, hex) {
        return None;
    }
    let run = std::str::from_utf8(run).ok()?;
    let decoded = if hex {
        decode_hex(run)
    } else {
        decode_base64(run.trim_end_matches('='))
    }?;
    is_text(&decoded).then_some(decoded)
}

/// Whether the first 16 characters of a run (of at least [`SHORTEST`], so all of them from the
/// alphabet: padding comes last) decode to text: 8 bytes of hex, 12 of base64.
fn starts_as_text(run: &[u8], hex: bool) -> bool {
    let mut bytes = [0u8; 12];
    let mut len = 0;
    if hex {
        for pair in run[..16].chunks_exact(2) {
            bytes[len] = (hex_value(pair[0]) << 4) | hex_value(pair[1]);
            len += 1;
        }
    } else {
        let (mut bits, mut count) = (0u32, 0);
        for &character in &run[..16] {
            bits = (bits << 6) | u32::from(base64_value(character));
            count += 6;
            if count >= 8 {
                count -= 8;
                bytes[len] = (bits >> count) as u8;
                len += 1;
            }
        }
    }
    is_text(&bytes[..len])
}

/// The value of a hex digit (the caller has checked it is one).
fn hex_value(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        b'A'..=b'F' => digit - b'A' + 10,
        _ => 0,
    }
}

/// The value of a character of the base64 alphabet (the caller has checked it is one).
fn base64_value(character: u8) -> u8 {
    match character {
        b'A'..=b'Z' => character - b'A',
        b'a'..=b'z' => character - b'a' + 26,
        b'0'..=b'9' => character - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => 0,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The check on the stack says what decoding the first 16 characters with the decoders
    /// themselves says, for runs of every kind: random hex and base64, and text encoded as each.
    #[test]
    fn the_start_is_judged_as_the_decoders_would() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for round in 0..20_000 {
            let run: Vec<u8> = match round % 4 {
                0 => (0..32)
                    .map(|_| b"0123456789abcdefABCDEF"[next() as usize % 22])
                    .collect(),
                1 => (0..32).map(|_| alphabet[next() as usize % 64]).collect(),
                2 => (0..16)
                    .flat_map(|_| format!("{:02x}", 0x20 + next() % 0x60).into_bytes())
                    .collect(),
                _ => {
                    use base64::Engine as _;
                    let text: Vec<u8> = (0..24).map(|_| (0x1c + next() % 0x64) as u8).collect();
                    base64::engine::general_purpose::STANDARD
                        .encode(text)
                        .into_bytes()
                }
            };
            let hex = run.len().is_multiple_of(2) && run.iter().all(u8::is_ascii_hexdigit);
            let start = std::str::from_utf8(&run[..16]).unwrap();
            let decoded = if hex {
                decode_hex(start)
            } else {
                decode_base64(start)
            };
            assert_eq!(
                starts_as_text(&run, hex),
                decoded.is_some_and(|bytes| is_text(&bytes)),
                "{start}"
            );
        }
    }
}
