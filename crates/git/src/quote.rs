//! File names as git shows them. A name that is not valid UTF-8 (or holds a control character,
//! a quote or a backslash) is shown the way git quotes it: in double quotes, with C escapes
//! (`\t`, `\n`, `\"`, `\\`) and each byte that is not part of a valid UTF-8 character as a
//! three-digit octal escape (`"caf\351.txt"`). Every other name is shown as it is. [`unquote`]
//! reads that form back, so a name nodwyn showed can be given back to a primitive.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

/// `name` as a person or a model reads it (see the module documentation).
pub fn quote(name: &[u8]) -> String {
    let plain = std::str::from_utf8(name).ok().filter(|text| {
        !text
            .chars()
            .any(|c| c.is_control() || c == '"' || c == '\\')
    });
    if let Some(text) = plain {
        return text.to_owned();
    }
    let mut quoted = String::from("\"");
    let mut rest = name;
    while !rest.is_empty() {
        let (valid, invalid) = match std::str::from_utf8(rest) {
            Ok(text) => (text, &[][..]),
            Err(error) => {
                let (valid, after) = rest.split_at(error.valid_up_to());
                let bad = error.error_len().unwrap_or(after.len());
                // The prefix was checked as valid UTF-8 just above.
                (
                    std::str::from_utf8(valid).unwrap_or_default(),
                    &after[..bad],
                )
            }
        };
        for c in valid.chars() {
            match c {
                '"' => quoted.push_str("\\\""),
                '\\' => quoted.push_str("\\\\"),
                '\t' => quoted.push_str("\\t"),
                '\n' => quoted.push_str("\\n"),
                '\r' => quoted.push_str("\\r"),
                c if c.is_control() && (c as u32) < 0x80 => {
                    quoted.push_str(&format!("\\{:03o}", c as u32));
                }
                c if c.is_control() => {
                    let mut bytes = [0u8; 4];
                    for byte in c.encode_utf8(&mut bytes).as_bytes() {
                        quoted.push_str(&format!("\\{byte:03o}"));
                    }
                }
                c => quoted.push(c),
            }
        }
        for byte in invalid {
            quoted.push_str(&format!("\\{byte:03o}"));
        }
        rest = &rest[valid.len() + invalid.len()..];
    }
    quoted.push('"');
    quoted
}

/// The bytes of a name given in git's quoted form (`"caf\351.txt"`), or `None` when `text` is
/// not in that form (then it is the name itself).
pub fn unquote(text: &str) -> Option<Vec<u8>> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buffer = [0u8; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
            continue;
        }
        match chars.next()? {
            'a' => bytes.push(0x07),
            'b' => bytes.push(0x08),
            't' => bytes.push(b'\t'),
            'n' => bytes.push(b'\n'),
            'v' => bytes.push(0x0b),
            'f' => bytes.push(0x0c),
            'r' => bytes.push(b'\r'),
            '"' => bytes.push(b'"'),
            '\\' => bytes.push(b'\\'),
            first @ '0'..='3' => {
                let mut value = first.to_digit(8)?;
                for _ in 0..2 {
                    value = value * 8 + chars.next()?.to_digit(8)?;
                }
                bytes.push(u8::try_from(value).ok()?);
            }
            _ => return None,
        }
    }
    Some(bytes)
}

/// The name `shown` stands for, as an OS string: its unquoted bytes when it is in git's quoted
/// form, else itself.
pub fn os_name(shown: &str) -> OsString {
    match unquote(shown) {
        Some(bytes) => OsString::from_vec(bytes),
        None => OsString::from(shown),
    }
}

/// A name git printed as bytes (with `-z`), as a path.
pub fn path_of(bytes: &[u8]) -> std::path::PathBuf {
    std::path::PathBuf::from(OsString::from_vec(bytes.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_stay_as_they_are_and_others_are_quoted_as_git_does() {
        assert_eq!(quote(b"src/main.rs"), "src/main.rs");
        assert_eq!(quote("café/ü.txt".as_bytes()), "café/ü.txt");
        assert_eq!(quote(b"caf\xe9.txt"), "\"caf\\351.txt\"");
        assert_eq!(quote(b"a\tb\"c\\"), "\"a\\tb\\\"c\\\\\"");
        assert_eq!(quote(b"esc\x1b[1A"), "\"esc\\033[1A\"");
    }

    #[test]
    fn quoted_names_read_back_to_their_bytes() {
        for name in [
            &b"caf\xe9.txt"[..],
            b"a\tb\"c\\",
            b"esc\x1b[1A",
            "café".as_bytes(),
            b"\xff\xfe",
        ] {
            let shown = quote(name);
            let back = unquote(&shown).unwrap_or_else(|| shown.as_bytes().to_vec());
            assert_eq!(back, name, "{shown}");
        }
        assert_eq!(unquote("plain.txt"), None);
        assert_eq!(unquote("\"bad\\q\""), None);
        assert_eq!(unquote("\"cut\\3\""), None);
    }
}
