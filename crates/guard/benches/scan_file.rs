//! Benchmark: the L1 scanner alone on one file, as `nodwyn scan` runs it (the process's shared
//! [`Scanner::global`], the file read whole), printing MB/s, the number of findings and how long
//! reading the file took. For work on the scanner itself: it builds with this crate only, and its
//! instruction counts (`valgrind --tool=callgrind`) compare two versions on a loaded machine.
//!
//! Run: `cargo bench -p nodwyn-guard --bench scan_file -- PATH [--mib N] [--runs N]
//! [--findings OUT]`. `--mib N` scans the first N MiB only (cut at a line's end), `--runs N`
//! repeats the scan and prints the median, `--findings OUT` writes every finding to OUT, one a
//! line, so two versions' findings can be compared with `cmp`. The mix that
//! `cargo bench -p nodwyn --bench scan -- --save PATH` writes is the usual input.

// A benchmark's output is its result.
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use nodwyn_guard::Scanner;

fn option(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|at| args.get(at + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; the first other argument that is not an option's value is
    // the file.
    let mut path = None;
    let mut skip = false;
    for arg in &args {
        if skip {
            skip = false;
        } else if matches!(arg.as_str(), "--mib" | "--runs" | "--findings") {
            skip = true;
        } else if !arg.starts_with("--") {
            path = Some(arg.clone());
            break;
        }
    }
    let Some(path) = path else {
        eprintln!("usage: scan_file PATH [--mib N] [--runs N] [--findings OUT]");
        std::process::exit(2);
    };
    let started = Instant::now();
    let mut text = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let read = started.elapsed();
    if let Some(mib) = option(&args, "--mib") {
        let limit: usize = mib.parse::<usize>().expect("--mib is a number") << 20;
        if text.len() > limit {
            let end = memchr::memchr(b'\n', &text[limit..]).map_or(text.len(), |i| limit + i + 1);
            text.truncate(end);
        }
    }
    let runs: usize = option(&args, "--runs").map_or(1, |n| n.parse().expect("--runs is a number"));

    let scanner = Scanner::global();
    let mut times: Vec<Duration> = Vec::new();
    let mut findings = Vec::new();
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        findings = scanner.scan(&text);
        times.push(started.elapsed());
    }
    times.sort();
    let time = times[times.len() / 2];
    let megabytes = text.len() as f64 / 1_000_000.0;
    println!(
        "{megabytes:.1} MB  {:.1} ms  {:.1} MB/s  {} findings  (median of {}; read in {:.1} ms)",
        time.as_secs_f64() * 1000.0,
        megabytes / time.as_secs_f64(),
        findings.len(),
        times.len(),
        read.as_secs_f64() * 1000.0
    );
    if let Some(out) = option(&args, "--findings") {
        let mut lines = String::new();
        for f in &findings {
            let _ = writeln!(
                lines,
                "{} {}:{} {}..{} {}",
                f.rule, f.line, f.column, f.start, f.end, f.redacted
            );
        }
        std::fs::write(&out, lines).unwrap_or_else(|e| panic!("{out}: {e}"));
    }
}
