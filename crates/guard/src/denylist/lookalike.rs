//! Names that look like a credential file's without being spelled like one: fullwidth letters
//! (`．ｅｎｖ`), Cyrillic and Greek letters that look Latin (`.еnv` with a Cyrillic `е`), invisible
//! characters (zero-width spaces and joiners, the byte-order mark, soft hyphens), the trailing
//! dots and spaces Windows drops (`.env.`), Windows paths (`C:\Users\me\.ssh\id_ed25519`), and
//! alternate data streams (`.env::$DATA`). [`fold`] spells such a path the plain way, and the
//! denylist judges both spellings.

use std::path::{Path, PathBuf};

/// `path` with every look-alike spelled plainly (see the module documentation).
pub(super) fn fold(path: &Path) -> PathBuf {
    let text = path.to_string_lossy();
    let mut folded = String::with_capacity(text.len());
    for c in text.chars() {
        if let Some(plain) = plain(c) {
            folded.push(plain);
        } else if !is_invisible(c) {
            folded.push(c);
        }
    }
    // A Windows path: backslashes separate, and a drive letter leads nowhere on this system.
    let folded = folded.replace('\\', "/");
    let mut out = PathBuf::new();
    if folded.starts_with('/') {
        out.push("/");
    }
    let is_drive =
        |c: &str| c.len() == 2 && c.ends_with(':') && c.as_bytes()[0].is_ascii_alphabetic();
    for component in folded.split('/').filter(|c| !c.is_empty() && !is_drive(c)) {
        // An alternate data stream (`NAME:STREAM:$DATA`) names the file before its first colon.
        let component = match (component.find(":$"), component.find(':')) {
            (Some(_), Some(first)) => &component[..first],
            _ => component,
        };
        // Windows ignores trailing dots and spaces.
        let trimmed = component.trim_end_matches(['.', ' ']);
        out.push(if trimmed.is_empty() {
            component
        } else {
            trimmed
        });
    }
    out
}

/// Characters that show nothing.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{00AD}' | '\u{180E}'
    )
}

/// The plain letter a look-alike stands for.
fn plain(c: char) -> Option<char> {
    // Fullwidth forms of ASCII.
    if ('\u{FF01}'..='\u{FF5E}').contains(&c) {
        return char::from_u32(c as u32 - 0xFEE0);
    }
    Some(match c {
        '\u{3000}' => ' ',
        // Cyrillic.
        'а' => 'a',
        'в' => 'b',
        'е' | 'ё' => 'e',
        'к' => 'k',
        'м' => 'm',
        'н' => 'h',
        'о' => 'o',
        'р' => 'p',
        'с' => 'c',
        'т' => 't',
        'у' => 'y',
        'х' => 'x',
        'ѕ' => 's',
        'і' | 'ї' => 'i',
        'ј' => 'j',
        'ԁ' => 'd',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'А' => 'A',
        'В' => 'B',
        'Е' => 'E',
        'К' => 'K',
        'М' => 'M',
        'Н' => 'H',
        'О' => 'O',
        'Р' => 'P',
        'С' => 'C',
        'Т' => 'T',
        'Х' => 'X',
        'Ѕ' => 'S',
        'І' => 'I',
        'Ј' => 'J',
        // Greek.
        'α' => 'a',
        'ε' => 'e',
        'ι' => 'i',
        'κ' => 'k',
        'ν' => 'v',
        'ο' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        // Dots that look like the full stop.
        '\u{2024}' | '\u{FE52}' | '\u{0701}' => '.',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_are_spelled_plainly() {
        for (given, plain) in [
            ("/r/．ｅｎｖ", "/r/.env"),
            ("/r/.\u{0435}nv", "/r/.env"),
            ("/r/.e\u{200B}nv", "/r/.env"),
            ("/r/.env.", "/r/.env"),
            ("/r/.env ", "/r/.env"),
            ("/r/.env::$DATA", "/r/.env"),
            ("/r/.env:secret:$DATA", "/r/.env"),
            (
                "C:\\Users\\me\\.ssh\\id_ed25519",
                "Users/me/.ssh/id_ed25519",
            ),
            ("/r/C:\\Users\\me\\_netrc", "/r/Users/me/_netrc"),
            ("/r/id_rs\u{0430}", "/r/id_rsa"),
            ("/r/src/main.rs", "/r/src/main.rs"),
        ] {
            assert_eq!(fold(Path::new(given)), PathBuf::from(plain), "{given}");
        }
    }
}
