//! Text written in UTF-16 (Windows' registry exports, PowerShell output, some `.ini` and `.config`
//! files): each ASCII character followed (little-endian) or preceded (big-endian) by a zero
//! byte, which hides every credential shape from a scan of the bytes as they are.
//!
//! Only text holding a zero byte can be UTF-16, so clean text costs one `memchr` for it. A run
//! is followed out from each zero byte that sits beside a printable character, two bytes at a
//! time, whatever the text's alignment (a diff's `+` shifts it by one).

/// The fewest characters a run needs to be read: enough for the shortest token the rules know.
const SHORTEST: usize = 16;

/// Every run of UTF-16 text in `text` of at least [`SHORTEST`] characters: where its bytes start
/// and end, and its characters as one byte each.
pub(super) fn runs(text: &[u8]) -> Vec<(usize, usize, Vec<u8>)> {
    let mut found = Vec::new();
    let mut done = 0;
    for zero in memchr::memchr_iter(0, text) {
        if zero < done {
            continue;
        }
        // Little-endian: the character before its zero; big-endian: after it.
        for character in [zero.checked_sub(1), Some(zero + 1)].into_iter().flatten() {
            let Some(run) = run_through(text, character, zero) else {
                continue;
            };
            done = run.1;
            found.push(run);
            break;
        }
    }
    found
}

/// The run that holds the character at `character`, whose zero byte is at `zero`, if it is
/// long enough.
fn run_through(text: &[u8], character: usize, zero: usize) -> Option<(usize, usize, Vec<u8>)> {
    if !text.get(character).copied().is_some_and(is_character) {
        return None;
    }
    // A pair is (character, zero) or (zero, character): where its character sits in it.
    let (first, offset) = if character < zero {
        (character, 0)
    } else {
        (zero, 1)
    };
    let pair_at = |at: usize| -> bool {
        text.get(at + offset).copied().is_some_and(is_character)
            && text.get(at + 1 - offset) == Some(&0)
    };
    let mut start = first;
    while start >= 2 && pair_at(start - 2) {
        start -= 2;
    }
    let mut end = first;
    while pair_at(end) {
        end += 2;
    }
    if (end - start) / 2 < SHORTEST {
        return None;
    }
    let characters = (start..end)
        .step_by(2)
        .map(|at| text[at + offset])
        .collect();
    Some((start, end, characters))
}

/// A character UTF-16 text of ASCII holds: printable, or white space.
fn is_character(byte: u8) -> bool {
    byte.is_ascii_graphic() || byte == b' ' || byte == b'\t' || byte == b'\n' || byte == b'\r'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(text: &str) -> Vec<u8> {
        text.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    fn utf16be(text: &str) -> Vec<u8> {
        text.encode_utf16().flat_map(u16::to_be_bytes).collect()
    }

    #[test]
    fn runs_are_found_in_either_byte_order_and_at_any_alignment() {
        let line = "token = abcdefghijklmnopqrstuvwxyz";
        for (wide, shift) in [(utf16le(line), 0), (utf16be(line), 0), (utf16le(line), 1)] {
            let mut text = b"+".repeat(shift);
            text.extend_from_slice(&wide);
            let found = runs(&text);
            assert_eq!(found.len(), 1, "{text:?}");
            assert_eq!(found[0].2, line.as_bytes());
            assert_eq!(found[0].1 - found[0].0, wide.len());
        }
    }

    #[test]
    fn short_runs_and_binary_bytes_are_passed_over() {
        assert!(runs(&utf16le("short")).is_empty());
        assert!(runs(b"plain text, no zero byte at all").is_empty());
        assert!(runs(&[0u8, 1, 2, 3, 0, 0, 0, 255, 0, 7]).is_empty());
    }
}
