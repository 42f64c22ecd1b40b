//! What each Scheme engine allocates, counted on its own thread. The memory limit of a script
//! must be its own: the process's resident size, which a limit could otherwise watch, grows with
//! whatever any thread does (another session's turn in the same daemon, a large file read), and
//! would stop one session's script for another's memory. So a program that hosts engines installs
//! [`CountingAllocator`] as its global allocator, and each engine thread counts the bytes it has
//! allocated and not freed; without it, the limit falls back to the resident size.

#![allow(unsafe_code)] // A global allocator is an `unsafe` trait; this one only adds a count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

thread_local! {
    /// The count of this thread's allocations, on an engine thread; null elsewhere.
    static COUNTED: Cell<*const AtomicIsize> = const { Cell::new(std::ptr::null()) };
}

/// Whether the program's allocator counts (it allocated at least once).
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The system's allocator, counting what each engine thread allocates.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAllocator;

fn count(delta: isize) {
    // `try_with`: during the thread's end the slot may be gone; nothing is counted then.
    let _ = COUNTED.try_with(|counted| {
        let counter = counted.get();
        if !counter.is_null() {
            // SAFETY: the pointer is set by `ThisThread::counted` to an `AtomicIsize` its guard
            // keeps alive, and cleared by that guard before the counter can be freed.
            unsafe { &*counter }.fetch_add(delta, Ordering::Relaxed);
        }
    });
}

/// Counts a new allocation of `size` bytes at `pointer`, when there is one.
fn allocated(pointer: *mut u8, size: usize) -> *mut u8 {
    if !pointer.is_null() {
        if !INSTALLED.load(Ordering::Relaxed) {
            INSTALLED.store(true, Ordering::Relaxed);
        }
        count(size as isize);
    }
    pointer
}

// SAFETY: every call is passed to `System` unchanged; only a count is kept beside it.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        allocated(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        allocated(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(pointer, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

/// Counting this thread's allocations, while it lives.
pub(crate) struct ThisThread {
    counter: Arc<AtomicIsize>,
}

impl ThisThread {
    /// Starts counting what this thread allocates.
    pub(crate) fn counted() -> Self {
        let counter = Arc::new(AtomicIsize::new(0));
        COUNTED.with(|counted| counted.set(Arc::as_ptr(&counter)));
        Self { counter }
    }

    /// The count, for the interpreter that watches it.
    pub(crate) fn counter(&self) -> Arc<AtomicIsize> {
        Arc::clone(&self.counter)
    }
}

impl Drop for ThisThread {
    fn drop(&mut self) {
        // Before the counter can go: later frees on this thread count nowhere.
        let _ = COUNTED.try_with(|counted| counted.set(std::ptr::null()));
    }
}

/// The bytes the engine thread counted by `counter` holds now, when the program's allocator
/// counts them.
pub(crate) fn held(counter: &AtomicIsize) -> Option<u64> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| counter.load(Ordering::Relaxed).max(0) as u64)
}
