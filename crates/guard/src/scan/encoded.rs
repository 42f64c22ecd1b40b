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
    // A run is hex when all of it is; its first 16 characters tell most runs apart already.
    let hex = all_hex(&run[..16]) && run.len().is_multiple_of(2) && all_hex(&run[16..]);
    if !starts_as_text(run, hex) {
        return None;
    }
    decode_whole(run, hex)
}

/// A run whose start is text, decoded whole: the rare case, kept out of [`decode`]'s loops so
/// that they keep their values in registers.
#[cold]
#[inline(never)]
fn decode_whole(run: &[u8], hex: bool) -> Option<Vec<u8>> {
    let run = std::str::from_utf8(run).ok()?;
    let decoded = if hex {
        decode_hex(run)
    } else {
        decode_base64(run.trim_end_matches('='))
    }?;
    is_text(&decoded).then_some(decoded)
}

/// Whether the first 16 characters of a run (of at least [`SHORTEST`], so all of them from the
/// alphabet: padding comes last) decode to text, as [`is_text`] judges it: 8 bytes of hex or 12
/// of base64, of which [`is_text`]'s 95% is every one, so the first byte that is not text
/// decides. Table lookups throughout: the runs are random characters, on which branches guess
/// wrong.
fn starts_as_text(run: &[u8], hex: bool) -> bool {
    if hex {
        run[..16].chunks_exact(2).all(|pair| {
            let high = HEX_VALUE[usize::from(pair[0])];
            TEXT[usize::from((high << 4) | HEX_VALUE[usize::from(pair[1])])]
        })
    } else {
        run[..16].chunks_exact(4).all(|four| {
            let bits = four.iter().fold(0u32, |bits, &c| {
                (bits << 6) | u32::from(BASE64_VALUE[usize::from(c)])
            });
            [bits >> 16, bits >> 8, bits]
                .iter()
                .all(|&byte| TEXT[(byte & 0xff) as usize])
        })
    }
}

/// A table of every byte's value as a character of base64 (`A` is 0, `/` is 63) or as a hex
/// digit, and 0 for any other byte.
const fn values(hex: bool) -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = match (hex, b) {
            (true, b'0'..=b'9') => b - b'0',
            (true, b'a'..=b'f') => b - b'a' + 10,
            (true, b'A'..=b'F') => b - b'A' + 10,
            (false, b'A'..=b'Z') => b - b'A',
            (false, b'a'..=b'z') => b - b'a' + 26,
            (false, b'0'..=b'9') => b - b'0' + 52,
            (false, b'+') => 62,
            (false, b'/') => 63,
            _ => 0,
        };
        byte += 1;
    }
    table
}

const BASE64_VALUE: [u8; 256] = values(false);
const HEX_VALUE: [u8; 256] = values(true);

/// Which bytes are hex digits.
const HEX: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = (byte as u8).is_ascii_hexdigit();
        byte += 1;
    }
    table
};

/// Whether every byte is a hex digit, read without a branch a byte: in a run of random
/// characters, digits and letters alternate at random, and a branch on each guesses wrong.
fn all_hex(bytes: &[u8]) -> bool {
    bytes.iter().fold(true, |all, &b| all & HEX[usize::from(b)])
}

/// Which bytes [`is_text`] counts as text: printable ASCII and white space.
const TEXT: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_graphic() || b.is_ascii_whitespace();
        byte += 1;
    }
    table
};

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
    let printable = bytes.iter().filter(|b| TEXT[usize::from(**b)]).count();
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
