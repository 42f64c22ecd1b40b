//! Fault points for tests: places where a test stops nodwyn at an exact, dangerous moment (a
//! write named but not yet renamed over its file) to kill it there.
//!
//! Only debug builds have them, which is what the tests run; a release build compiles each point
//! to nothing. A debug build stops at point `P` when `NODWYN_FAULT_POINT=P` is set: it makes the
//! file `NODWYN_FAULT_MARKER` names, then waits while that file exists, so the test can kill it
//! there, or change the world (fill the disk) and let it go on by removing the file. Neither the
//! repository nor an agent's command can set nodwyn's own environment.

/// Stops here when the test asked for point `name` (debug builds only).
pub fn point(name: &str) {
    #[cfg(debug_assertions)]
    if std::env::var_os("NODWYN_FAULT_POINT").is_some_and(|wanted| wanted == name) {
        let Some(marker) = std::env::var_os("NODWYN_FAULT_MARKER") else {
            return;
        };
        let marker = std::path::PathBuf::from(marker);
        let _ = std::fs::write(&marker, name);
        while marker.exists() {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = name;
}
