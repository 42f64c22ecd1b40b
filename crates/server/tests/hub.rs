//! The hub's contract on a real session log: a subscribe after a cursor while another thread
//! appends records gets every later event exactly once and in order; a cursor further back than
//! the hub replays gets one `resync`; questions are settled by the first answer, by an
//! interrupt, or declined at the timeout, and every subscriber hears how.

use std::sync::Arc;
use std::time::Duration;

use nodwyn_core::Store;
use nodwyn_core::host::HostSettings;
use nodwyn_core::prim::{Interrupt, Registry};
use nodwyn_core::turn::SessionRuntime;
use nodwyn_protocol::{ApprovalKind, Decision, ServerRequest};
use nodwyn_server::outbox::{Inbox, Outbox};
use nodwyn_server::{Hub, Limits};
use serde_json::Value;

/// A session in a temporary folder, and its runtime (which appends records for the test).
fn session() -> (tempfile::TempDir, Store, Arc<SessionRuntime>) {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let store = Store::new(dir.path().join("data"));
    let id = nodwyn_core::open::open_in_folder(&store, &work, None)
        .unwrap()
        .id
        .to_string();
    let runtime = SessionRuntime::open(
        store.clone(),
        &id,
        Arc::new(Registry::builtin()),
        HostSettings::default(),
        nodwyn_core::services::Services::default(),
    )
    .unwrap();
    (dir, store, runtime)
}

fn append(runtime: &SessionRuntime, n: u64) {
    runtime
        .record_unanswered(&format!("q{n}"), "fs-write a", 0)
        .unwrap();
}

/// A hub of `store` keeping `ring` events of each session and sending at most `replay` again.
fn hub_of(store: Store, ring: usize, replay: u64) -> Hub {
    Hub::new(store, Limits { ring, replay }, Duration::from_secs(5))
}

/// Records `numbers`' questions as unanswered, one record each.
fn append_all(runtime: &SessionRuntime, numbers: std::ops::Range<u64>) {
    for n in numbers {
        append(runtime, n);
    }
}

/// Every message queued for a client so far.
fn drain(inbox: &mut Inbox) -> Vec<Value> {
    let mut messages = Vec::new();
    while let Ok(line) = inbox.lines.try_recv() {
        messages.push(serde_json::from_str(&line).unwrap());
    }
    messages
}

fn seqs(messages: &[Value]) -> Vec<u64> {
    messages
        .iter()
        .filter(|m| m["method"] != "resync")
        .map(|m| m["params"]["seq"].as_u64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscribe_while_records_are_written_misses_and_doubles_nothing() {
    let (_dir, store, runtime) = session();
    let id = runtime.id();
    // A small ring, so the replay comes partly from the log and partly from the ring.
    let hub = Arc::new(hub_of(store, 16, 100_000));
    append_all(&runtime, 0..50);
    hub.catch_up(&id);
    let writer = {
        let (hub, runtime, id) = (Arc::clone(&hub), Arc::clone(&runtime), id.clone());
        std::thread::spawn(move || {
            for n in 50..800 {
                append(&runtime, n);
                if n % 3 == 0 {
                    hub.catch_up(&id);
                }
            }
            hub.catch_up(&id);
        })
    };
    let mut clients = Vec::new();
    for after in [0, 7, 30] {
        let (outbox, inbox) = Outbox::new(10_000);
        assert!(hub.subscribe(&id, Some(after), &outbox).await.unwrap());
        clients.push((after, outbox, inbox));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    writer.join().unwrap();
    hub.catch_up(&id);
    let last = runtime.store().find(&id).unwrap().log.count().unwrap() as u64;
    assert_eq!(last, 801, "session.start and 800 records");
    for (after, _outbox, mut inbox) in clients {
        let got = seqs(&drain(&mut inbox));
        let wanted: Vec<u64> = (after + 1..=last).collect();
        assert_eq!(got, wanted, "after {after}");
    }
}

#[tokio::test]
async fn a_cursor_past_what_is_replayed_gets_one_resync() {
    let (_dir, store, runtime) = session();
    let id = runtime.id();
    let hub = hub_of(store, 4, 10);
    append_all(&runtime, 0..29);
    let (outbox, mut inbox) = Outbox::new(1000);
    hub.subscribe(&id, Some(5), &outbox).await.unwrap();
    let messages = drain(&mut inbox);
    assert_eq!(messages[0]["method"], "resync");
    assert_eq!(messages[0]["params"]["after"], 5);
    assert_eq!(messages[0]["params"]["from"], 21);
    assert_eq!(seqs(&messages), (21..=30).collect::<Vec<_>>());
    assert_eq!(
        messages.iter().filter(|m| m["method"] == "resync").count(),
        1
    );

    // A cursor from another log (past this one's end) is told so, and gets everything.
    let (outbox, mut inbox) = Outbox::new(1000);
    hub.subscribe(&id, Some(500), &outbox).await.unwrap();
    let messages = drain(&mut inbox);
    assert_eq!(messages[0]["method"], "resync");
    assert_eq!(
        messages[0]["params"]["from"], 21,
        "still at most the replay limit"
    );
    // Live events follow, numbered on.
    append(&runtime, 99);
    hub.catch_up(&id);
    let live = drain(&mut inbox);
    assert_eq!(seqs(&live), vec![31]);
    assert_eq!(live[0]["method"], "session.record");
    assert_eq!(live[0]["params"]["record"]["type"], "approval.timed_out");
}

fn question(session: &str) -> impl FnOnce(String) -> ServerRequest {
    let session = session.to_owned();
    move |request| ServerRequest::ApprovalRequest {
        request,
        session,
        turn: Some(1),
        call: Some("1.2".to_owned()),
        action: "shell-exec cargo test".to_owned(),
        effect: serde_json::json!({"writes": ["target"]}),
        why: "commands ask".to_owned(),
        kind: ApprovalKind::Ordinary,
        always: None,
    }
}

/// The questions asked of a client, and what it heard settled them.
fn asked_and_resolved(messages: &[Value]) -> (Vec<String>, Vec<(String, String)>) {
    let asked = messages
        .iter()
        .filter(|m| m["method"] == "approval.request")
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect();
    let resolved = messages
        .iter()
        .filter(|m| m["method"] == "approval.resolved")
        .map(|m| {
            (
                m["params"]["request"].as_str().unwrap().to_owned(),
                m["params"]["decision"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (asked, resolved)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_answer_wins_and_every_subscriber_hears_it() {
    let (_dir, store, runtime) = session();
    let id = runtime.id();
    let hub = Arc::new(Hub::new(store, Limits::default(), Duration::from_secs(30)));
    let (first, mut first_inbox) = Outbox::new(100);
    let (second, mut second_inbox) = Outbox::new(100);
    hub.subscribe(&id, None, &first).await.unwrap();
    hub.subscribe(&id, None, &second).await.unwrap();
    drain(&mut first_inbox);
    drain(&mut second_inbox);
    let asking = {
        let (hub, id) = (Arc::clone(&hub), id.clone());
        std::thread::spawn(move || {
            hub.approvals
                .ask(&hub, &id, question(&id), &Interrupt::new())
        })
    };
    while hub.approvals.is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let request = asked_and_resolved(&drain(&mut second_inbox)).0[0].clone();
    // A client that subscribes now is asked too.
    let (late, mut late_inbox) = Outbox::new(100);
    hub.subscribe(&id, Some(1), &late).await.unwrap();
    assert_eq!(
        asked_and_resolved(&drain(&mut late_inbox)).0,
        vec![request.clone()]
    );

    hub.approvals
        .answer(&hub, &request, Decision::Allow, Some("first".to_owned()))
        .unwrap();
    assert!(
        hub.approvals
            .answer(&hub, &request, Decision::Decline, Some("second".to_owned()))
            .is_err(),
        "a second answer settles nothing"
    );
    let (settled, asked_id) = asking.join().unwrap();
    assert_eq!(settled.decision, Decision::Allow);
    // Who answered is known to the asker, for the record.
    assert_eq!(settled.by.as_deref(), Some("first"));
    assert_eq!(asked_id, request);
    for inbox in [&mut first_inbox, &mut second_inbox, &mut late_inbox] {
        let (_, resolved) = asked_and_resolved(&drain(inbox));
        assert_eq!(resolved, vec![(request.clone(), "allow".to_owned())]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_cancels_a_question_and_nobody_answering_declines_it() {
    let (_dir, store, runtime) = session();
    let id = runtime.id();
    let hub = Arc::new(Hub::new(
        store,
        Limits::default(),
        Duration::from_millis(300),
    ));
    let (client, mut inbox) = Outbox::new(100);
    hub.subscribe(&id, None, &client).await.unwrap();

    let interrupt = Interrupt::new();
    let asking = {
        let (hub, id, interrupt) = (Arc::clone(&hub), id.clone(), interrupt.clone());
        std::thread::spawn(move || hub.approvals.ask(&hub, &id, question(&id), &interrupt))
    };
    while hub.approvals.is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    interrupt.raise();
    let (settled, _) = asking.join().unwrap();
    assert_eq!(settled.decision, Decision::Cancel);
    assert_eq!(settled.reason.as_deref(), Some("interrupted"));

    let started = std::time::Instant::now();
    let (settled, request) = {
        let hub = Arc::clone(&hub);
        tokio::task::spawn_blocking(move || {
            hub.approvals
                .ask(&hub, &id, question(&id), &Interrupt::new())
        })
        .await
        .unwrap()
    };
    assert_eq!(settled.decision, Decision::Decline);
    assert_eq!(settled.reason.as_deref(), Some("timed_out"));
    assert!(started.elapsed() >= Duration::from_millis(300));
    let (_, resolved) = asked_and_resolved(&drain(&mut inbox));
    assert_eq!(resolved.last().unwrap(), &(request, "decline".to_owned()));
    assert_eq!(resolved.len(), 2);
    assert!(hub.approvals.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backlog_larger_than_the_queue_reaches_a_client_that_reads() {
    let (_dir, store, runtime) = session();
    let id = runtime.id();
    let hub = hub_of(store, 16, 100_000);
    append_all(&runtime, 0..499);
    let (outbox, mut inbox) = Outbox::new(64);
    let reading = tokio::spawn(async move {
        let mut seqs = Vec::new();
        while let Some(line) = inbox.lines.recv().await {
            // A client that reads steadily, more slowly than the hub queues.
            tokio::time::sleep(Duration::from_millis(1)).await;
            let message: Value = serde_json::from_str(&line).unwrap();
            seqs.push(message["params"]["seq"].as_u64().unwrap());
            if seqs.len() == 500 {
                break;
            }
        }
        seqs
    });
    assert!(
        hub.subscribe(&id, None, &outbox).await.unwrap(),
        "the client was dropped"
    );
    assert_eq!(reading.await.unwrap(), (1..=500).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_replay_deep_in_a_long_log_numbers_every_event_as_the_log_does() {
    let (_dir, store, runtime) = session();
    let id = runtime.id();
    let hub = hub_of(store, 4, 100_000);
    // Read in two batches, so the feed's places in the log are noted across both.
    append_all(&runtime, 0..1500);
    hub.catch_up(&id);
    append_all(&runtime, 1500..3199);
    hub.catch_up(&id);
    for after in [0, 1022, 1023, 1024, 1025, 2047, 2048, 3100, 3199] {
        let (outbox, mut inbox) = Outbox::new(10_000);
        hub.subscribe(&id, Some(after), &outbox).await.unwrap();
        let messages = drain(&mut inbox);
        assert_eq!(
            seqs(&messages),
            (after + 1..=3200).collect::<Vec<_>>(),
            "after {after}"
        );
        // Each is the record the log holds at that place.
        let names: Vec<&str> = messages
            .iter()
            .filter(|m| m["params"]["record"]["type"] == "approval.timed_out")
            .map(|m| m["params"]["record"]["request"].as_str().unwrap())
            .collect();
        // Record 1 is `session.start`; record `n + 2` is question `q{n}`.
        let first = format!("q{}", after.max(1) - 1);
        assert_eq!(names.first(), Some(&first.as_str()), "after {after}");
        assert_eq!(names.len(), (3200 - after.max(1)) as usize, "after {after}");
    }
}

/// A turn goes on only after its question's settling was told: a client never sees the turn
/// move past a question before it hears how the question was settled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_subscriber_hears_a_question_settled_before_its_asker_goes_on() {
    let (_dir, store, runtime) = session();
    let id = runtime.id();
    let hub = Arc::new(Hub::new(store, Limits::default(), Duration::from_secs(30)));
    let (client, mut inbox) = Outbox::new(10_000);
    hub.subscribe(&id, None, &client).await.unwrap();
    drain(&mut inbox);
    let inbox = Arc::new(std::sync::Mutex::new(inbox));
    for _ in 0..200 {
        let asking = {
            let (hub, id, inbox) = (Arc::clone(&hub), id.clone(), Arc::clone(&inbox));
            std::thread::spawn(move || {
                let (settled, request) =
                    hub.approvals
                        .ask(&hub, &id, question(&id), &Interrupt::new());
                // What the client holds the moment the asker goes on.
                let (_, resolved) = asked_and_resolved(&drain(&mut inbox.lock().unwrap()));
                (settled, request, resolved)
            })
        };
        let request = loop {
            let asked = asked_and_resolved(&drain(&mut inbox.lock().unwrap())).0;
            if let Some(request) = asked.into_iter().next() {
                break request;
            }
            std::thread::yield_now();
        };
        hub.approvals
            .answer(&hub, &request, Decision::Allow, Some("first".to_owned()))
            .unwrap();
        let (settled, asked, resolved) = asking.join().unwrap();
        assert_eq!(settled.decision, Decision::Allow);
        assert_eq!(asked, request);
        assert_eq!(resolved, vec![(request, "allow".to_owned())]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_is_asked_every_sessions_questions_without_following_any_session() {
    let (_dir, store, runtime) = session();
    let id = runtime.id();
    let hub = Arc::new(Hub::new(store, Limits::default(), Duration::from_secs(30)));
    let ask = |hub: &Arc<Hub>| {
        let (hub, id) = (Arc::clone(hub), id.clone());
        std::thread::spawn(move || {
            hub.approvals
                .ask(&hub, &id, question(&id), &Interrupt::new())
        })
    };
    // A question waits before the watcher comes, and another comes after.
    let first = ask(&hub);
    while hub.approvals.is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let (watcher, mut inbox) = Outbox::new(100);
    hub.approvals.watch(&watcher);
    let second = ask(&hub);
    while hub.approvals.len() < 2 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let messages = drain(&mut inbox);
    let (asked, _) = asked_and_resolved(&messages);
    assert_eq!(asked.len(), 2, "{messages:?}");
    for request in &asked {
        hub.approvals
            .answer(&hub, request, Decision::Decline, None)
            .unwrap();
    }
    first.join().unwrap();
    second.join().unwrap();
    let messages = drain(&mut inbox);
    let (_, resolved) = asked_and_resolved(&messages);
    assert_eq!(
        resolved,
        asked
            .iter()
            .map(|r| (r.clone(), "decline".to_owned()))
            .collect::<Vec<_>>()
    );
    // Told which session, and no place in any session's events.
    for message in &messages {
        assert_eq!(message["params"]["session"], id.as_str(), "{message}");
        assert!(message["params"].get("seq").is_none(), "{message}");
    }
}
