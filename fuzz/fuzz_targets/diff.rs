//! Fuzzes the unified diff parser and the scan of added lines: any bytes, no panic, and every
//! finding names a line number of at least 1.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nodwyn_guard::Scanner;
use nodwyn_guard::scan::diff::scan_diff;

fuzz_target!(|data: &[u8]| {
    for finding in scan_diff(Scanner::global(), data) {
        assert!(finding.column >= 1);
    }
});
