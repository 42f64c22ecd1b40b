//! Benchmark: `nodwyn scan` against `ripsecrets` and `detect-secrets`, each run as a program on
//! the same generated 64 MiB file, a mix of source code and unified diffs with credentials
//! planted at known places among look-alikes (UUIDs, hashes, integrity values, environment
//! references). Prints MB/s and how many findings each reported against how many were planted; a
//! scanner that is not installed is reported as such.
//!
//! Run: `cargo bench -p nodwyn --bench scan` (optionally `-- --mib N --runs N`, or
//! `-- --file PATH` to scan a copy of a real file instead of the generated mix; then "planted"
//! is unknown and only speed and the number reported are compared; `-- --save PATH` also keeps
//! the scanned text at PATH, for profiling one scanner on it).

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use common::{arg, median};

use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }

    fn from(&mut self, alphabet: &str, n: usize) -> String {
        let bytes = alphabet.as_bytes();
        (0..n)
            .map(|_| bytes[(self.next() % bytes.len() as u64) as usize] as char)
            .collect()
    }
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &str = "0123456789abcdef";

/// One line of ordinary source code, with the look-alikes a scanner must not report.
fn code_line(g: &mut Gen) -> String {
    let name = g.pick(&[
        "total",
        "user_id",
        "config",
        "request",
        "buffer",
        "tokenizer",
        "result",
        "password_hash",
        "secret_name",
    ]);
    match g.next() % 12 {
        0 => format!(
            "    let {name} = compute_{name}(&input, {});",
            g.next() % 1000
        ),
        1 => format!("    # {name} is read from the environment, never hard-coded"),
        2 => format!(
            "    id = \"{}-{}-4{}-a{}-{}\"",
            g.from(HEX, 8),
            g.from(HEX, 4),
            g.from(HEX, 3),
            g.from(HEX, 3),
            g.from(HEX, 12)
        ),
        3 => format!("    \"integrity\": \"sha512-{}==\",", g.from(ALNUM, 86)),
        4 => format!("    commit = \"{}\"", g.from(HEX, 40)),
        5 => "    password = os.environ[\"DB_PASSWORD\"]".to_owned(),
        6 => format!("    api_key: ${{{}}}", name.to_uppercase()),
        7 => format!(
            "    if {name}.len() > MAX_{} {{ return Err(Error::TooLong); }}",
            name.to_uppercase()
        ),
        8 => format!(
            "    url = \"https://example.org/api/v2/{name}/{}\"",
            g.next() % 100_000
        ),
        9 => format!(
            "    fn {name}_for(&self, key: &str) -> Option<&{}> {{",
            g.pick(&["String", "Value", "Token"])
        ),
        10 => format!("    console.log(`{name}: ${{{name}}}`);"),
        _ => format!(
            "    {name} += {} * factor;  // {}",
            g.next() % 97,
            g.pick(&["keep", "todo: measure", "see docs"])
        ),
    }
}

/// Base64 of `bytes`, with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A credential in one of several shapes (the classic prefixed tokens, and the families found
/// only by their context, their encoding or their block), and the line or lines it sits on.
fn planted(g: &mut Gen) -> String {
    match g.next() % 11 {
        0 => format!("    GITHUB_TOKEN = \"ghp_{}\"", g.from(ALNUM, 36)),
        1 => format!(
            "    aws_access_key_id = AKIA{}",
            g.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
        ),
        2 => format!("    stripe.api_key = \"sk_live_{}\"", g.from(ALNUM, 24)),
        3 => format!(
            "    SLACK = \"xoxb-{}-{}-{}\"",
            1_000_000_000 + g.next() % 1_000_000_000,
            100_000_000_000 + g.next() % 100_000_000_000,
            g.from(ALNUM, 24)
        ),
        4 => format!(
            "    mailgun_key = \"key-{}\"",
            g.from("abcdefghijklmnopqrstuvwxyz0123456789", 32)
        ),
        5 => {
            // A Discord bot token: base64 of the bot's numeric id, a timestamp part, an HMAC.
            let id = format!("1{}", g.from("0123456789", 17));
            format!(
                "    client.run(\"{}.{}.{}\")",
                base64(id.as_bytes()).trim_end_matches('='),
                g.from(ALNUM, 6),
                g.from(ALNUM, 38)
            )
        }
        6 => format!(
            "    curl -H \"Authorization: Basic {}\" https://api.internal",
            base64(format!("deploy:{}", g.from(ALNUM, 20)).as_bytes())
        ),
        7 => format!(
            "    headers = {{\"Authorization\": \"Bearer {}\"}}",
            g.from(ALNUM, 40)
        ),
        8 => {
            let key = format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
                g.from(ALNUM, 64)
            );
            format!("    client-key-data: {}", base64(key.as_bytes()))
        }
        9 => format!(
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n{}\n{}\nPrivate-Lines: 1\n{}\nPrivate-MAC: {}",
            g.from(ALNUM, 64),
            g.from(ALNUM, 20),
            g.from(ALNUM, 44),
            g.from(HEX, 64)
        ),
        _ => format!(
            "    DATABASE_URL = \"postgres://app:{}@db.internal:5432/shop\"",
            g.from(ALNUM, 20)
        ),
    }
}

/// The file: alternating blocks of code and diffs, a credential every 256 KiB.
fn generate(mib: usize) -> (String, usize) {
    let mut g = Gen(0x2545_F491_4F6C_DD1D);
    let target = mib * 1024 * 1024;
    let mut text = String::with_capacity(target + 4096);
    let mut planted_count = 0;
    let mut next_plant = 128 * 1024;
    while text.len() < target {
        let as_diff = g.next().is_multiple_of(3);
        if as_diff {
            let _ = writeln!(
                text,
                "diff --git a/src/m{0}.rs b/src/m{0}.rs\n--- a/src/m{0}.rs\n+++ b/src/m{0}.rs\n@@ -1,20 +1,20 @@",
                g.next() % 500
            );
        }
        for _ in 0..20 {
            let line = if text.len() >= next_plant {
                next_plant += 256 * 1024;
                planted_count += 1;
                planted(&mut g)
            } else {
                code_line(&mut g)
            };
            let prefix = if as_diff {
                g.pick(&["+", "-", " "])
            } else {
                ""
            };
            let _ = writeln!(text, "{prefix}{line}");
        }
    }
    (text, planted_count)
}

fn which(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs a scanner in `dir` and returns (time, what it printed). Every scanner gets the file by
/// a relative name from its own folder (`detect-secrets` scans nothing outside its working
/// folder).
fn run(dir: &std::path::Path, program: &str, args: &[&str]) -> (Duration, String) {
    let started = Instant::now();
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stderr(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    (
        started.elapsed(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn main() {
    let mib = arg("--mib", 64);
    let runs = arg("--runs", 3);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mix.txt");
    let given = common::text_arg("--file");
    let (text, planted_count) = match &given {
        Some(path) => (
            String::from_utf8_lossy(&std::fs::read(path).expect("--file is readable")).into_owned(),
            0,
        ),
        None => generate(mib),
    };
    std::fs::write(&file, &text).unwrap();
    if let Some(keep) = common::text_arg("--save") {
        std::fs::write(&keep, &text).expect("--save is writable");
    }
    let megabytes = text.len() as f64 / 1_000_000.0;
    let path = "mix.txt";
    let dir = dir.path();
    match &given {
        Some(path) => println!("{megabytes:.1} MB copied from {path}, median of {runs} run(s)"),
        None => println!(
            "{megabytes:.1} MB of generated source code and diffs, {planted_count} credentials planted, median of {runs} run(s)"
        ),
    }
    let report = |name: &str, time: Duration, found: usize| {
        println!(
            "{name:<16} {:>9.1} ms  {:>8.1} MB/s  reported {found:>4} ({planted_count} planted)",
            time.as_secs_f64() * 1000.0,
            megabytes / time.as_secs_f64()
        );
    };
    let nodwyn = env!("CARGO_BIN_EXE_nodwyn");
    let mut ours = (Vec::new(), 0);
    for _ in 0..runs {
        let (time, out) = run(dir, nodwyn, &["scan", "--json", path]);
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        ours.0.push(time);
        ours.1 = report["findings"].as_array().unwrap().len();
    }
    let ours_time = median(ours.0);
    report("nodwyn scan", ours_time, ours.1);

    if which("ripsecrets") {
        let mut samples = (Vec::new(), 0);
        for _ in 0..runs {
            let (time, out) = run(dir, "ripsecrets", &[path]);
            samples.0.push(time);
            samples.1 = out.lines().filter(|l| !l.trim().is_empty()).count();
        }
        let time = median(samples.0);
        report("ripsecrets", time, samples.1);
        println!(
            "  nodwyn is {:.2}x the speed of ripsecrets",
            time.as_secs_f64() / ours_time.as_secs_f64()
        );
    } else {
        println!("ripsecrets       not installed (`cargo install ripsecrets`)");
    }
    if which("detect-secrets") {
        let (time, out) = run(dir, "detect-secrets", &["scan", path]);
        let found = serde_json::from_str::<serde_json::Value>(&out)
            .ok()
            .and_then(|v| {
                v["results"]
                    .as_object()
                    .map(|r| r.values().filter_map(|f| f.as_array()).map(Vec::len).sum())
            })
            .unwrap_or(0);
        report("detect-secrets", time, found);
        println!(
            "  nodwyn is {:.2}x the speed of detect-secrets (one run)",
            time.as_secs_f64() / ours_time.as_secs_f64()
        );
    } else {
        println!("detect-secrets   not installed (`pip install detect-secrets`)");
    }
}
