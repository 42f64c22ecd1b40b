//! A session's log is read as a stream: loading a session, counting its records and reading its
//! conversation cost the memory of the session they describe, never of the whole log. Measured
//! with a counting allocator; this is the only test of its binary, so nothing else allocates
//! while it measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use nodwyn_core::Store;
use nodwyn_core::clock::Timestamp;
use nodwyn_core::event::{Event, Record};
use nodwyn_core::session::{Followed, Session};
use nodwyn_core::turn::conversation;

/// The system's allocator, counting the bytes in use and the most ever in use.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = IN_USE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is passed to the system allocator unchanged; only counters are added.
// Measuring what a read allocates needs an allocator of the test's own.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grew(new_size);
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// How many bytes at most `work` had in use beyond what was in use before it.
fn peak_of<T>(work: impl FnOnce() -> T) -> (T, usize) {
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let result = work();
    (result, PEAK.load(Ordering::Relaxed) - before)
}

#[test]
fn a_large_log_is_read_in_the_memory_of_one_record() {
    let dir = tempfile::tempdir().unwrap();
    let repository = dir.path().join("repo");
    std::fs::create_dir(&repository).unwrap();
    let store = Store::new(dir.path().join("data"));
    let stored = nodwyn_core::open::open_in_folder(&store, &repository, None).unwrap();
    // 40 MB of records, each as long as a record's fields may be.
    const RECORDS: usize = 10_000;
    let mut file = std::io::BufWriter::new(
        std::fs::OpenOptions::new()
            .append(true)
            .open(stored.log.path())
            .unwrap(),
    );
    for n in 0..RECORDS {
        let root = PathBuf::from(format!("/{n:08}{}", "r".repeat(4000)));
        let record = Record::new(Timestamp::now(), Event::SessionResume { root });
        serde_json::to_writer(&mut file, &record).unwrap();
        file.write_all(b"\n").unwrap();
    }
    drop(file);
    let size = std::fs::metadata(stored.log.path()).unwrap().len();
    assert!(size > 40_000_000, "{size}");

    const BOUND: usize = 2 << 20;
    let (session, peak) = peak_of(|| Session::load(&stored).unwrap());
    assert!(
        peak < BOUND,
        "loading took {peak} bytes for a {size}-byte log"
    );
    assert!(
        session
            .root
            .ends_with(format!("{:08}{}", RECORDS - 1, "r".repeat(4000)))
    );

    let (followed, peak) = peak_of(|| Followed::load(&stored).unwrap());
    assert!(peak < BOUND, "following took {peak} bytes");
    drop(followed);

    let (count, peak) = peak_of(|| stored.log.count().unwrap());
    assert_eq!(count, RECORDS + 1);
    assert!(peak < BOUND, "counting took {peak} bytes");

    let id = stored.id.to_string();
    let (items, peak) = peak_of(|| conversation(&store, &id).unwrap());
    assert!(items.is_empty());
    assert!(peak < BOUND, "the conversation took {peak} bytes");
}
