//! What an answer costs in memory, measured by the allocator itself: a large tool call is held
//! about once, not once per copy made on the way (its own test binary, so that nothing else
//! allocates while it runs).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

use nodwyn_model::{Client, Model, Profile, Provider, Request, Retry, StreamEvent};
use nodwyn_standin::{StandIn, openai};
use serde_json::json;

/// The system's allocator, counting the bytes in use and the most ever in use by the threads
/// that ask for it (the client's, not the stand-in server's). Implementing `GlobalAlloc` needs
/// `unsafe`, denied elsewhere: here it only passes each call on.
struct Counting;

static IN_USE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn grew(by: usize) {
    if COUNTED.with(Cell::get) {
        let now = IN_USE.fetch_add(by as isize, Ordering::SeqCst) + by as isize;
        PEAK.fetch_max(now, Ordering::SeqCst);
    }
}

fn shrank(by: usize) {
    if COUNTED.with(Cell::get) {
        IN_USE.fetch_sub(by as isize, Ordering::SeqCst);
    }
}

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: passed on as given.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            grew(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: passed on as given.
        unsafe { System.dealloc(block, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        // SAFETY: passed on as given.
        let moved = unsafe { System.realloc(block, layout, size) };
        if !moved.is_null() {
            if size > layout.size() {
                grew(size - layout.size());
            } else {
                shrank(layout.size() - size);
            }
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

// One thread: the client runs on the test's own, which alone is counted.
#[tokio::test(flavor = "current_thread")]
async fn a_large_tool_call_is_held_about_once() {
    const SIZE: usize = 8 << 20;
    let arguments = json!({"path": "big.txt", "content": "x".repeat(SIZE)});
    let server = StandIn::start(vec![openai::call_in_pieces(
        "fs-write",
        &arguments,
        64 * 1024,
    )]);
    drop(arguments);
    let client = Client::new(Profile {
        provider: Provider::OpenAi,
        base_url: format!("{}/v1", server.url()),
        name: "m".to_owned(),
        api_key: None,
        stream_tools: true,
        max_output_tokens: 100,
    })
    .unwrap()
    .with_retry(Retry {
        tries: 1,
        ..Retry::default()
    });
    let request = Request::default();
    // What the caller keeps of each event (an agent shows text and lets the rest go).
    let mut sink = |_: StreamEvent| {};
    COUNTED.with(|counted| counted.set(true));
    let answer = client.complete(&request, &mut sink).await.unwrap();
    COUNTED.with(|counted| counted.set(false));
    let peak = PEAK.load(Ordering::SeqCst);
    let kept = IN_USE.load(Ordering::SeqCst);
    assert_eq!(
        answer.tool_calls[0].arguments["content"]
            .as_str()
            .map(str::len),
        Some(SIZE)
    );
    let times = |bytes: isize| bytes as f64 / SIZE as f64;
    // The arguments' text as it arrives, then their value read from it: twice, briefly.
    assert!(
        times(peak) < 2.5,
        "{:.2} times the call's size was in use at once",
        times(peak)
    );
    assert!(times(kept) < 1.2, "{:.2} times kept", times(kept));
}
