//! Shapes that look like credentials and are not: placeholders, documented examples, references
//! to code or the environment, identifiers, UUIDs, integrity hashes, paths. A finding whose
//! secret has one of these shapes is dropped; refusing an agent's diff for a UUID or a
//! `${API_KEY}` would be a bug.

/// Words that mark a value as a stand-in for a real secret.
static PLACEHOLDER_WORDS: WordList = WordList::new(&[
    "example",
    // Six in a row: a real token holds four `x` by chance once in about ten thousand.
    "xxxxxx",
    "****",
    "....",
    "your_",
    "your-",
    "yourkey",
    "yourtoken",
    "yourpassword",
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "dummy",
    "redacted",
    "replace_me",
    "replaceme",
    "replace-me",
    "insert_",
    "insert-",
    "sample",
    "fake",
    "notreal",
    "not_real",
    "not-a-real",
    "secret_here",
    "token_here",
    "key_here",
    "todo",
    "fixme",
    "<",
    ">",
]);

/// Values that name what goes there rather than being it (`postgres://user:password@...`).
const PLACEHOLDER_VALUES: &[&str] = &[
    "password", "passwd", "pass", "pwd", "secret", "token", "apikey", "api_key", "api-key",
    "changeit", "username", "user", "admin", "root", "test", "key",
];

/// The bytes a hex text stands for, or `None` when it is not hex.
pub(crate) fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Whether `value` is a Sealed Secret's ciphertext: long base64 (the assignment rule keeps at
/// most 200 characters of it; a real one is 700 and more) of a blob that starts with the length
/// of an RSA-encrypted session key, two bytes: 512 for the sealing controller's 4096-bit key. It
/// is encrypted by design.
pub(crate) fn is_sealed_secret(value: &str) -> bool {
    let whole = value.len() - value.len() % 4;
    value.len() >= 190
        && decode_base64(&value[..whole]).is_some_and(|bytes| bytes.starts_with(&[0x02, 0x00]))
}

/// Whether `value` is a placeholder or a documented example rather than a credential.
pub(crate) fn is_placeholder(value: &str) -> bool {
    if PLACEHOLDER_VALUES
        .iter()
        .any(|placeholder| value.eq_ignore_ascii_case(placeholder))
    {
        return true;
    }
    let bytes = value.as_bytes();
    // A format string's hole (`{}`, `{0}`, `%s`) fills in what is not written here.
    let format_string = bytes
        .windows(2)
        .any(|pair| matches!(pair, b"{}" | b"%s" | b"%v"))
        || bytes.windows(3).any(|three| three == b"{0}");
    let template = format_string
        || value.starts_with("${")
        || value.starts_with("{{")
        || value.starts_with("$(")
        || value.starts_with("%(")
        || value.starts_with("#{")
        || (value.starts_with('%') && value.ends_with('%'))
        || (value.starts_with('$')
            && value[1..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    template || PLACEHOLDER_WORDS.found_in(value) || is_one_repeated_character(value)
}

/// A list of words looked for in one pass, ignoring ASCII case. These checks run on every
/// candidate match, so a `contains` per word would cost more than the match; the automaton is
/// built on first use.
pub(crate) struct WordList {
    words: &'static [&'static str],
    automaton: std::sync::OnceLock<aho_corasick::AhoCorasick>,
}

impl WordList {
    const fn new(words: &'static [&'static str]) -> Self {
        Self {
            words,
            automaton: std::sync::OnceLock::new(),
        }
    }

    /// Whether `text` holds any of the words.
    pub(crate) fn found_in(&self, text: &str) -> bool {
        self.automaton
            .get_or_init(|| {
                aho_corasick::AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .build(self.words)
                    .expect("a word list builds an automaton")
            })
            .is_match(text)
    }
}

fn is_one_repeated_character(value: &str) -> bool {
    let mut chars = value.chars();
    chars.next().is_some_and(|first| chars.all(|c| c == first))
}

/// Whether the value of a `key = value` assignment is something other than a secret.
pub(crate) fn is_not_a_secret_value(value: &str) -> bool {
    is_placeholder(value)
        || is_sealed_secret(value)
        || is_code_reference(value)
        || is_identifier(value)
        || is_uuid(value)
        || is_integrity_hash(value)
        || has_escaped_line_break(value)
        || value.starts_with('/')
        || value.starts_with("./")
        || value.starts_with("~/")
        || value.contains("://")
        || value
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
}

/// A `\n` or `\r` written out inside a string literal (`"Credentials: yes\r\nNext: ..."`): the
/// value ends at the line break, and what the pattern took for one value is the start of the
/// next line as well.
fn has_escaped_line_break(value: &str) -> bool {
    value
        .as_bytes()
        .windows(2)
        .any(|pair| matches!(pair, br"\n" | br"\r"))
}

/// Whether an assignment's key names something public or descriptive, not a secret.
pub(crate) fn is_not_a_secret_key(key: &str) -> bool {
    NOT_SECRET_KEY_WORDS.found_in(key)
}

/// Words in an assignment's key that name something public or descriptive.
static NOT_SECRET_KEY_WORDS: WordList = WordList::new(&[
    "public",
    "publishable",
    "pub_key",
    "pubkey",
    "hash",
    "digest",
    "checksum",
    "sha",
    "integrity",
    "_file",
    "_path",
    "_url",
    "_uri",
    "_env",
    "_name",
    "_type",
    "_length",
    "_len",
    "_count",
    "_size",
    "_field",
    "_header",
    "_prefix",
    "_regex",
    "_pattern",
    "tokenizer",
    "_expires",
    "_expiry",
    "_ttl",
    "_policy",
    "_min",
    "_max",
]);

fn is_code_reference(value: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "os.",
        "process.env",
        "env.",
        "env[",
        "env(",
        "ENV[",
        "ENV.",
        "getenv",
        "System.getenv",
        "config.",
        "config[",
        "settings.",
        "self.",
        "this.",
        "req.",
        "request.",
        "params.",
        "props.",
        "args.",
        "options.",
        "opts.",
        "secrets.",
        "vars.",
        "context.",
        "ctx.",
        // gon's and others' `"@env:AC_PASSWORD"`.
        "@env:",
    ];
    value.contains('(')
        || value.contains(')')
        || value.contains("::")
        || PREFIXES.iter().any(|p| value.starts_with(p))
        || is_dotted_path(value)
}

/// `user.password`, `settings.api_key`, `craneLib.buildPackage`: a field of something.
fn is_dotted_path(value: &str) -> bool {
    value.contains('.')
        && value.split('.').all(|part| {
            !part.is_empty()
                && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !part.as_bytes()[0].is_ascii_digit()
        })
        && (value
            .split('.')
            .any(|part| part.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
            || value.split('.').all(is_identifier))
}

/// A variable name rather than a value: `new_password`, `API_TOKEN_NAME`, `secretValue`.
fn is_identifier(value: &str) -> bool {
    // `quote_spanned!`, `maybe_token?`: a macro or a fallible call is still a name; so is a
    // closure's typed parameter (`|token: CancellationToken|`).
    let bytes = value.trim_end_matches(['!', '?', '.', '|']).as_bytes();
    let identifier = !bytes.is_empty()
        && (bytes[0].is_ascii_alphabetic() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-');
    if !identifier {
        return false;
    }
    let value = std::str::from_utf8(bytes).unwrap_or_default();
    let has_digit = bytes.iter().any(u8::is_ascii_digit);
    let snake = bytes
        .iter()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_' || *b == b'-');
    let constant = bytes
        .iter()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_');
    // camelCase words: a lowercase start, then words, no digits.
    let camel =
        bytes[0].is_ascii_lowercase() && !has_digit && bytes.iter().all(u8::is_ascii_alphabetic);
    !has_digit
        || ((snake || constant) && (value.contains('_') || value.contains('-')))
        || camel
        || is_type_name(bytes)
        || is_joined_name(value)
}

/// Names joined by underscores, each a word, an acronym, a type's name or a short number
/// (`MI_UserCredentials_0`, `D3D_FEATURE_LEVEL_11_0`).
fn is_joined_name(value: &str) -> bool {
    value.contains('_')
        && value.split('_').all(|part| {
            let bytes = part.as_bytes();
            bytes.iter().all(u8::is_ascii_alphabetic)
                || (bytes.len() <= 3 && bytes.iter().all(u8::is_ascii_digit))
                || bytes
                    .iter()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
                || is_type_name(bytes)
        })
}

/// A type's name with numbers in it (`AtomicU32Provider`, `Base64Sha256Engine`): capitalised
/// words of at least three letters, with short numbers (`32`, `U32`) between them. A random
/// token of mixed case almost never has two lowercase letters after each of its capitals.
fn is_type_name(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    let mut words = 0;
    while let Some(first) = rest.first() {
        let upper = rest.iter().take_while(|b| b.is_ascii_uppercase()).count();
        let lower = rest[upper..]
            .iter()
            .take_while(|b| b.is_ascii_lowercase())
            .count();
        let digits = rest[upper + lower..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let word = match (upper, lower, digits) {
            // `Provider`, `Sha256`.
            (1, 2.., 0..=3) => upper + lower + digits,
            // `U32`, `I64`.
            (1, 0, 1..=3) => upper + digits,
            _ => return false,
        };
        if words == 0 && !first.is_ascii_uppercase() {
            return false;
        }
        words += 1;
        rest = &rest[word..];
    }
    words >= 2
}

/// A query string's value: `alice-pw&grant_type=password` ends at the `&` that starts the next
/// parameter (a name, then `=`).
pub(crate) fn query_value(value: &[u8]) -> &[u8] {
    let next_parameter = value.iter().enumerate().position(|(at, b)| {
        *b == b'&' && {
            let name = value[at + 1..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'-')
                .count();
            name > 0 && value.get(at + 1 + name) == Some(&b'=')
        }
    });
    next_parameter.map_or(value, |at| &value[..at])
}

/// `123e4567-e89b-12d3-a456-426614174000`.
pub(crate) fn is_uuid(value: &str) -> bool {
    let groups: Vec<&str> = value.split('-').collect();
    groups.len() == 5
        && groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups
            .iter()
            .all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Subresource-integrity values as lock files write them: `sha512-...`.
fn is_integrity_hash(value: &str) -> bool {
    ["sha1-", "sha256-", "sha384-", "sha512-"]
        .iter()
        .any(|p| value.starts_with(p))
}

/// Shannon entropy in bits per byte.
pub(crate) fn entropy(value: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in value.bytes() {
        counts[b as usize] += 1;
    }
    let len = value.len() as f64;
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = f64::from(*c) / len;
            -p * p.log2()
        })
        .sum()
}

/// What Docker keeps in `config.json`: base64 of `user:password` with a real password.
pub(crate) fn is_base64_credentials(value: &str) -> bool {
    decode_base64(value)
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| {
            let (user, password) = text.split_once(':')?;
            Some(!user.is_empty() && password.len() >= 4 && !is_placeholder(password))
        })
        .unwrap_or(false)
}

/// The bytes a base64 text stands for, or `None` when it is not base64.
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for b in text.bytes().filter(|b| *b != b'=') {
        let value = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    Some(out)
}

/// A secret shown without giving it away: its first characters (a token's public prefix at most)
/// and its length.
pub(crate) fn redact(secret: &str) -> String {
    let length = secret.chars().count();
    let shown = match length {
        0..8 => 0,
        8..16 => 2,
        _ => 4,
    };
    let prefix: String = secret.chars().take(shown).collect();
    format!("{prefix}…[{length} chars]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_examples() {
        for value in [
            "<YOUR_KEY>",
            "${API_KEY}",
            "{{ secrets.TOKEN }}",
            "$API_TOKEN",
            "xxxxxxxxxxxxxxxx",
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "changeme123",
            "%DB_PASSWORD%",
            "aaaaaaaaaaaaaaaa",
            "your_token_here",
        ] {
            assert!(is_placeholder(value), "{value}");
        }
        for value in [
            "Zq8rT2mW9xLk4VbN",
            "ghp_4Fq9Lr2Wm8Tn3Vb7Kx1Zc6Yh0Pd5Sj2Ag9Eu",
        ] {
            assert!(!is_placeholder(value), "{value}");
        }
    }

    #[test]
    fn values_that_are_code_or_names() {
        for value in [
            "os.environ[\"PW\"]",
            "process.env.API_KEY",
            "user.password",
            "get_secret()",
            "new_password",
            "API_TOKEN_NAME",
            "secretValue",
            "123e4567-e89b-12d3-a456-426614174000",
            "sha512-Zm9vYmFyYmF6cXV4",
            "/run/secrets/db",
            "Settings::token",
        ] {
            assert!(is_not_a_secret_value(value), "{value}");
        }
        for value in [
            "Zq8rT2mW9xLk4VbN",
            "s3cr3t-Pa55w0rd-2024!",
            "tH1s1sAR3alP4ss",
        ] {
            assert!(!is_not_a_secret_value(value), "{value}");
        }
    }

    #[test]
    fn entropy_and_redaction() {
        assert_eq!(entropy("aaaa"), 0.0);
        assert!((entropy("abcd") - 2.0).abs() < 1e-9);
        assert_eq!(
            redact("ghp_0123456789abcdef0123456789abcdef0123"),
            "ghp_…[40 chars]"
        );
        assert_eq!(redact("hunter22"), "hu…[8 chars]");
        assert_eq!(redact("abc"), "…[3 chars]");
    }

    #[test]
    fn docker_auth_is_user_colon_password() {
        // base64("robot:Zq8rT2mW9x") and base64("no-colon-here")
        assert!(is_base64_credentials("cm9ib3Q6WnE4clQybVc5eA=="));
        assert!(!is_base64_credentials("bm8tY29sb24taGVyZQ=="));
        assert!(!is_base64_credentials("not base64!"));
    }
}
