//! What the benchmark programs share: reading their options and taking medians.

use std::time::Duration;

/// The median of some timings.
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The number after `--name` on the command line, or `default`.
pub fn arg(name: &str, default: usize) -> usize {
    text_arg(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The text after `--name` on the command line.
pub fn text_arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}
