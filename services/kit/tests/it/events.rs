//! Events have both sides: the outbox relay (refused rows parked without blocking the rest,
//! replicas never publishing the same row) and the consumer (inbox dedupe, retries, dead
//! letters and their replay), on both databases, on the in-process bus and on RabbitMQ.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use gatehouse_kit::bus::{Bus, BusError, Message, Topology};
use gatehouse_kit::consumer::{Consumer, Handler, HandlerFuture, RetryPolicy, replay_dead_letters};
use gatehouse_kit::db::{Backend, Db, Migrations, Tx, query};
use gatehouse_kit::foreground::{BURST, Foreground, Yield};
use gatehouse_kit::outbox::{self, OutboxEvent, RelayConfig};
use gatehouse_kit::testing::{TestDb, eventually};
use gatehouse_proto::events::Queue;
use gatehouse_proto::events::v1::{SessionRevoked, UserUpdated};
use rstest::rstest;
use sqlx::migrate::Migrator;
use tokio_util::sync::CancellationToken;

static EMPTY: Migrator = Migrator::DEFAULT;
const NONE: Migrations = Migrations {
    sqlite: &EMPTY,
    postgres: &EMPTY,
};
const RABBITMQ: &str = "amqp://guest:guest@127.0.0.1:5672/%2f";

/// A queue of its own for one test, bound to `user.updated` only.
fn test_queue() -> Queue {
    let name = format!("test.{}", gatehouse_kit::ids::random_alphanumeric(10));
    Queue {
        name: Box::leak(name.into_boxed_str()),
        topics: &["user.updated"],
    }
}

/// Only `queue`, on an exchange of this test's own (the shared one has an audit queue bound to
/// every topic, so nothing would be unroutable there).
fn topology(queue: Queue) -> Topology {
    Topology {
        exchange: format!("{}.exchange", queue.name),
        queues: vec![queue],
        audit: None,
    }
}

fn fast_relay() -> RelayConfig {
    RelayConfig {
        idle_poll: Duration::from_millis(20),
        retry_delay: Duration::from_millis(10),
        max_retry_delay: Duration::from_millis(20),
        max_attempts: 3,
        ..RelayConfig::default()
    }
}

fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        delays: vec![Duration::from_millis(50), Duration::from_millis(50)],
    }
}

async fn enqueue_updates(db: &Db, users: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut ids = Vec::new();
    let mut tx = db.begin().await.unwrap();
    for user_id in users {
        let event = OutboxEvent::new(&UserUpdated {
            user_id,
            ..Default::default()
        });
        ids.push(event.id.clone());
        tx.enqueue(&event).await.unwrap();
    }
    tx.commit().await.unwrap();
    ids
}

/// Records what it handled; fails the first `fail_first` times, and every time while `broken`.
#[derive(Default)]
struct Recorder {
    handled: std::sync::Mutex<Vec<String>>,
    calls: AtomicUsize,
    fail_first: usize,
    broken: std::sync::atomic::AtomicBool,
}

impl Handler for Recorder {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            let call = self.calls.fetch_add(1, Ordering::SeqCst);
            if call < self.fail_first || self.broken.load(Ordering::SeqCst) {
                return Err(format!("failure on call {call}").into());
            }
            // A write in the consumer's transaction, committed with the inbox row.
            query("INSERT INTO handled (event_id) VALUES ($1)")
                .bind(message.id.as_str())
                .execute(tx)
                .await?;
            self.handled.lock().unwrap().push(message.id.clone());
            Ok(())
        })
    }
}

async fn consumer_db(backend: Backend) -> (Db, TestDb) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&NONE).await;
    query("CREATE TABLE handled (event_id TEXT PRIMARY KEY)")
        .execute(&db)
        .await
        .unwrap();
    (db, database)
}

async fn handled_rows(db: &Db) -> i64 {
    query("SELECT COUNT(*) FROM handled")
        .fetch_one::<(i64,)>(db)
        .await
        .unwrap()
        .0
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_refused_row_is_parked_without_blocking_the_rows_behind_it(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&NONE).await;
    let queue = test_queue();
    let bus = Bus::with_topology("memory://", topology(queue)).unwrap();
    // No queue takes session.revoked here: it comes back unroutable.
    let mut tx = db.begin().await.unwrap();
    tx.enqueue(&OutboxEvent::new(&SessionRevoked::default()))
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let behind = enqueue_updates(&db, ["u1".to_string(), "u2".to_string()]).await;

    let collector = Collector::start(&bus, queue.name).await;
    let shutdown = CancellationToken::new();
    outbox::spawn_relay(db.clone(), bus.clone(), fast_relay(), shutdown.clone());
    let parked = eventually(Duration::from_secs(10), || async {
        (outbox::parked(&db).await.ok() == Some(1)).then_some(())
    })
    .await;
    assert!(parked.is_some(), "{backend:?}: parked after its attempts");
    let (attempts, error): (i64, Option<String>) =
        query("SELECT attempts, last_error FROM outbox WHERE parked_at IS NOT NULL")
            .fetch_one(&db)
            .await
            .unwrap();
    assert_eq!(attempts, 3, "{backend:?}");
    assert!(error.unwrap().contains("no queue is bound"));
    assert_eq!(
        outbox::pending(&db).await.unwrap(),
        0,
        "{backend:?}: the rest went out"
    );

    let received = collector.collected(behind.len()).await;
    assert_eq!(received, behind, "{backend:?}: in order, once each");
    shutdown.cancel();
}

/// A consumer recording what reaches `queue`, started before anything is published.
struct Collector {
    recorder: Arc<Recorder>,
    shutdown: CancellationToken,
    _database: TestDb,
}

impl Collector {
    async fn start(bus: &Bus, queue: &'static str) -> Self {
        let (db, database) = consumer_db(Backend::Sqlite).await;
        let recorder = Arc::new(Recorder::default());
        let shutdown = CancellationToken::new();
        Consumer {
            queue,
            db,
            bus: bus.clone(),
            handler: recorder.clone(),
            retry: fast_retries(),
            concurrency: 1,
            yields: None,
        }
        .spawn(shutdown.clone());
        Self {
            recorder,
            shutdown,
            _database: database,
        }
    }

    /// Waits for `expected` events (and a moment more, for any duplicate), then stops.
    async fn collected(self, expected: usize) -> Vec<String> {
        eventually(Duration::from_secs(30), || async {
            (self.recorder.handled.lock().unwrap().len() >= expected).then_some(())
        })
        .await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let handled = self.recorder.handled.lock().unwrap().clone();
        self.shutdown.cancel();
        handled
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn two_relays_on_one_outbox_publish_each_row_once(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&NONE).await;
    let second_db = database.connect(&NONE).await;
    let queue = test_queue();
    let bus = Bus::with_topology("memory://", topology(queue)).unwrap();
    let ids = enqueue_updates(&db, (0..300).map(|i| format!("user-{i}"))).await;
    let collector = Collector::start(&bus, queue.name).await;
    let shutdown = CancellationToken::new();
    let config = RelayConfig {
        batch: 7,
        ..fast_relay()
    };
    outbox::spawn_relay(db.clone(), bus.clone(), config.clone(), shutdown.clone());
    outbox::spawn_relay(second_db, bus.clone(), config, shutdown.clone());
    let done = eventually(Duration::from_secs(20), || async {
        (outbox::pending(&db).await.ok() == Some(0)).then_some(())
    })
    .await;
    assert!(done.is_some(), "{backend:?}: all published");
    let mut received = collector.collected(ids.len()).await;
    assert_eq!(
        received.len(),
        ids.len(),
        "{backend:?}: no row published twice"
    );
    received.sort();
    let mut expected = ids;
    expected.sort();
    assert_eq!(received, expected);
    shutdown.cancel();
}

/// The in-process consumer of a test queue on `db`, reconnected to `bus`.
fn memory_consumer(
    queue: Queue,
    db: &Db,
    bus: &Bus,
    handler: Arc<Recorder>,
    shutdown: &CancellationToken,
) {
    Consumer {
        queue: queue.name,
        db: db.clone(),
        bus: bus.clone(),
        handler,
        retry: fast_retries(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown.clone());
}

/// On the in-process bus a publish is confirmed only once its consumer handled it; a failure
/// goes back to the publisher's outbox, which tries again (and parks the row after its last
/// attempt), so a process that stops between a failure and its retry loses nothing.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn in_process_consumers_confirm_only_what_they_handled(#[case] backend: Backend) {
    let (db, _database) = consumer_db(backend).await;
    let publisher_database = TestDb::new(backend).await;
    let publisher = publisher_database.connect(&NONE).await;
    let queue = test_queue();
    let message = |id: &str| Message {
        id: id.into(),
        topic: "user.updated".into(),
        payload: Vec::new(),
        headers: Default::default(),
    };

    // A process whose consumer fails its first attempt, and which then stops.
    let bus = Bus::with_topology("memory://", topology(queue)).unwrap();
    let failing = Arc::new(Recorder::default());
    failing.broken.store(true, Ordering::SeqCst);
    let stopping = CancellationToken::new();
    memory_consumer(queue, &db, &bus, failing.clone(), &stopping);
    let ids = enqueue_updates(&publisher, ["u1".to_string()]).await;
    // Attempts enough that the row is not parked before the process stops.
    let patient = RelayConfig {
        max_attempts: 1000,
        ..fast_relay()
    };
    outbox::spawn_relay(publisher.clone(), bus.clone(), patient, stopping.clone());
    let tried = eventually(Duration::from_secs(5), || async {
        (failing.calls.load(Ordering::SeqCst) >= 1).then_some(())
    })
    .await;
    assert!(tried.is_some(), "{backend:?}: the consumer tried it");
    stopping.cancel();
    drop(bus);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        outbox::pending(&publisher).await.unwrap(),
        1,
        "{backend:?}: a failed attempt is not a confirmation; the outbox keeps the event"
    );

    // The process again: the event is published again and handled.
    let bus = Bus::with_topology("memory://", topology(queue)).unwrap();
    let working = Arc::new(Recorder::default());
    let shutdown = CancellationToken::new();
    memory_consumer(queue, &db, &bus, working.clone(), &shutdown);
    outbox::spawn_relay(
        publisher.clone(),
        bus.clone(),
        fast_relay(),
        shutdown.clone(),
    );
    let handled = eventually(Duration::from_secs(10), || async {
        (handled_rows(&db).await == 1).then_some(())
    })
    .await;
    assert!(handled.is_some(), "{backend:?}: handled after the restart");
    assert_eq!(*working.handled.lock().unwrap(), ids);
    let published = eventually(Duration::from_secs(5), || async {
        (outbox::pending(&publisher).await.ok() == Some(0)).then_some(())
    })
    .await;
    assert!(published.is_some(), "{backend:?}: confirmed once handled");

    // A redelivery of what was handled is skipped, and confirmed.
    bus.publish(&message(&ids[0])).await.unwrap();
    assert_eq!(handled_rows(&db).await, 1, "{backend:?}");

    // A publish waits for its consumer's outcome: a failure is the publisher's to retry.
    working.broken.store(true, Ordering::SeqCst);
    assert!(
        matches!(
            bus.publish(&message("doomed")).await,
            Err(BusError::NotHandled(_))
        ),
        "{backend:?}: a failure is refused back to the publisher"
    );
    // Through the outbox: tried on each of its attempts, then parked (the dead letters of
    // the in-process bus are parked rows of the publisher's outbox).
    let calls_before = working.calls.load(Ordering::SeqCst);
    enqueue_updates(&publisher, ["u2".to_string()]).await;
    let parked = eventually(Duration::from_secs(10), || async {
        (outbox::parked(&publisher).await.ok() == Some(1)).then_some(())
    })
    .await;
    assert!(
        parked.is_some(),
        "{backend:?}: parked after its last attempt"
    );
    assert_eq!(
        working.calls.load(Ordering::SeqCst) - calls_before,
        3,
        "{backend:?}: one call per attempt"
    );
    assert_eq!(handled_rows(&db).await, 1, "{backend:?}");
    shutdown.cancel();
}

#[tokio::test]
async fn rabbitmq_keeps_events_for_a_consumer_that_is_down_and_dead_letters_failures() {
    let (db, _database) = consumer_db(Backend::Postgres).await;
    let queue = test_queue();
    let bus = Bus::with_topology(RABBITMQ, topology(queue)).unwrap();
    let message = |id: &str| Message {
        id: id.into(),
        topic: "user.updated".into(),
        payload: Vec::new(),
        headers: Default::default(),
    };
    // The consumer has never run: the queue is declared by the publisher's topology.
    bus.publish(&message("while-down"))
        .await
        .expect("routed to the declared queue");
    let unrouted = Message {
        topic: "nobody.listens".into(),
        ..message("lost")
    };
    assert!(
        matches!(bus.publish(&unrouted).await, Err(BusError::Unroutable(_))),
        "a mandatory publish no queue takes is a failure"
    );

    let recorder = Arc::new(Recorder {
        fail_first: 1,
        ..Recorder::default()
    });
    let shutdown = CancellationToken::new();
    Consumer {
        queue: queue.name,
        db: db.clone(),
        bus: bus.clone(),
        handler: recorder.clone(),
        retry: fast_retries(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown.clone());
    let handled = eventually(Duration::from_secs(15), || async {
        (handled_rows(&db).await == 1).then_some(())
    })
    .await;
    assert!(
        handled.is_some(),
        "delivered after the consumer started, retried once"
    );
    assert_eq!(recorder.calls.load(Ordering::SeqCst), 2);

    recorder.broken.store(true, Ordering::SeqCst);
    let calls_before = recorder.calls.load(Ordering::SeqCst);
    bus.publish(&message("doomed")).await.unwrap();
    let dead = eventually(Duration::from_secs(15), || async {
        (recorder.calls.load(Ordering::SeqCst) >= calls_before + 3).then_some(())
    })
    .await;
    assert!(dead.is_some(), "tried on every attempt");
    tokio::time::sleep(Duration::from_millis(300)).await;
    recorder.broken.store(false, Ordering::SeqCst);
    let replayed = eventually(Duration::from_secs(10), || async {
        replay_dead_letters(&bus, queue.name)
            .await
            .ok()
            .filter(|n| *n > 0)
    })
    .await;
    assert_eq!(replayed, Some(1), "one dead letter, replayed");
    let handled = eventually(Duration::from_secs(15), || async {
        (handled_rows(&db).await == 2).then_some(())
    })
    .await;
    assert!(handled.is_some(), "handled after the replay");
    shutdown.cancel();
}

/// Holds every call until `width` calls are in flight at once; a call that waits longer fails.
struct Gate {
    barrier: tokio::sync::Barrier,
    calls: AtomicUsize,
}

impl Handler for Gate {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            self.calls.fetch_add(1, Ordering::SeqCst);
            tokio::time::timeout(Duration::from_secs(5), self.barrier.wait())
                .await
                .map_err(|_| "the other deliveries were not handled at the same time")?;
            query("INSERT INTO handled (event_id) VALUES ($1)")
                .bind(message.id.as_str())
                .execute(tx)
                .await?;
            Ok(())
        })
    }
}

/// Records each handled message's payload.
#[derive(Default)]
struct Payloads(std::sync::Mutex<Vec<Vec<u8>>>);

impl Handler for Payloads {
    fn handle<'a>(&'a self, _tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            self.0.lock().unwrap().push(message.payload.clone());
            Ok(())
        })
    }
}

/// The bus negotiates small frames (16 KiB, so lapin's per-connection buffers stay small): a
/// message many times that size still arrives whole.
#[tokio::test]
async fn a_message_larger_than_a_frame_arrives_whole() {
    let (db, _database) = consumer_db(Backend::Sqlite).await;
    let queue = test_queue();
    let bus = Bus::with_topology(RABBITMQ, topology(queue)).unwrap();
    let payloads = Arc::new(Payloads::default());
    let shutdown = CancellationToken::new();
    Consumer {
        queue: queue.name,
        db,
        bus: bus.clone(),
        handler: payloads.clone(),
        retry: fast_retries(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown.clone());
    let payload: Vec<u8> = (0..200 * 1024).map(|n| (n % 251) as u8).collect();
    let message = Message {
        id: "large".into(),
        topic: "user.updated".into(),
        payload: payload.clone(),
        headers: Default::default(),
    };
    let published = bus.publish_all(std::slice::from_ref(&message)).await;
    assert!(published.broken.is_none() && published.settled.iter().all(Result::is_ok));
    let received = eventually(Duration::from_secs(15), || async {
        payloads.0.lock().unwrap().first().cloned()
    })
    .await;
    assert_eq!(received.map(|p| p.len()), Some(payload.len()));
    assert_eq!(payloads.0.lock().unwrap()[0], payload);
    shutdown.cancel();
}

#[rstest]
#[case::in_process("memory://")]
#[case::rabbitmq(RABBITMQ)]
#[tokio::test]
async fn a_batch_is_confirmed_message_by_message_and_a_wide_consumer_handles_it_at_once(
    #[case] url: &str,
) {
    let (db, _database) = consumer_db(Backend::Postgres).await;
    let queue = test_queue();
    let bus = Bus::with_topology(url, topology(queue)).unwrap();
    let message = |id: &str, topic: &str| Message {
        id: id.into(),
        topic: topic.into(),
        payload: Vec::new(),
        headers: Default::default(),
    };
    const WIDTH: usize = 4;
    let gate = Arc::new(Gate {
        barrier: tokio::sync::Barrier::new(WIDTH),
        calls: AtomicUsize::new(0),
    });
    let shutdown = CancellationToken::new();
    Consumer {
        queue: queue.name,
        db: db.clone(),
        bus: bus.clone(),
        handler: gate.clone(),
        retry: fast_retries(),
        concurrency: WIDTH as u16,
        yields: None,
    }
    .spawn(shutdown.clone());

    // One refused message in the middle of a batch is that message's failure alone.
    let mut batch: Vec<Message> = (0..WIDTH)
        .map(|n| message(&format!("wide-{n}"), "user.updated"))
        .collect();
    batch.insert(2, message("nobody", "nobody.listens"));
    let published = eventually(Duration::from_secs(15), || async {
        // The in-process bus confirms once a consumer has handled the message: the consumer
        // may still be subscribing on the first try.
        let published = bus.publish_all(&batch).await;
        published.broken.is_none().then_some(published)
    })
    .await
    .expect("the broker confirmed the batch");
    let outcomes: Vec<bool> = published.settled.iter().map(Result::is_ok).collect();
    assert_eq!(outcomes, [true, true, false, true, true], "{url}");
    assert!(matches!(published.settled[2], Err(BusError::Unroutable(_))));

    // Every one handled, each on its first call: all four were in flight together.
    let handled = eventually(Duration::from_secs(15), || async {
        (handled_rows(&db).await == WIDTH as i64).then_some(())
    })
    .await;
    assert!(handled.is_some(), "{url}: every delivery handled");
    assert_eq!(
        gate.calls.load(Ordering::SeqCst),
        WIDTH,
        "{url}: none retried"
    );
    shutdown.cancel();
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_insert_with_its_event_writes_the_event_only_when_it_inserted(#[case] backend: Backend) {
    let (db, _database) = consumer_db(backend).await;
    let insert = |id: &str| {
        query("INSERT INTO handled (event_id) VALUES ($1) ON CONFLICT (event_id) DO NOTHING")
            .bind(id.to_string())
    };
    let event = |user: &str| {
        OutboxEvent::new(&UserUpdated {
            user_id: user.into(),
            ..Default::default()
        })
    };
    assert!(
        db.insert_with_event(insert("a"), &event("u1"))
            .await
            .unwrap()
    );
    assert_eq!(outbox::pending(&db).await.unwrap(), 1, "{backend:?}");
    // The same row again inserts nothing, and so enqueues nothing.
    assert!(
        !db.insert_with_event(insert("a"), &event("u2"))
            .await
            .unwrap()
    );
    assert_eq!(outbox::pending(&db).await.unwrap(), 1, "{backend:?}");
    assert!(
        db.insert_with_event(insert("b"), &event("u3"))
            .await
            .unwrap()
    );
    assert_eq!(outbox::pending(&db).await.unwrap(), 2, "{backend:?}");
    assert_eq!(handled_rows(&db).await, 2, "{backend:?}");
}

/// Counts how many deliveries it is handling at once, and the most it ever did.
#[derive(Default)]
struct Width {
    running: AtomicUsize,
    widest: AtomicUsize,
}

impl Handler for Width {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.widest.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(40)).await;
            let inserted = query("INSERT INTO handled (event_id) VALUES ($1)")
                .bind(message.id.as_str())
                .execute(tx)
                .await;
            // Counted out on failure too, or its retry would look twice as wide.
            self.running.fetch_sub(1, Ordering::SeqCst);
            inserted?;
            Ok(())
        })
    }
}

#[rstest]
#[case::in_process("memory://")]
#[case::rabbitmq(RABBITMQ)]
#[tokio::test]
async fn a_consumer_narrows_while_a_burst_of_requests_is_in_flight_and_widens_after(
    #[case] url: &str,
) {
    let (db, _database) = consumer_db(Backend::Postgres).await;
    let queue = test_queue();
    let bus = Bus::with_topology(url, topology(queue)).unwrap();
    let requests = Foreground::default();
    let width = Arc::new(Width::default());
    let shutdown = CancellationToken::new();
    Consumer {
        queue: queue.name,
        db: db.clone(),
        bus: bus.clone(),
        handler: width.clone(),
        retry: fast_retries(),
        concurrency: 4,
        yields: Some(Yield {
            to: requests.clone(),
            concurrency: 1,
        }),
    }
    .spawn(shutdown.clone());
    let batch = |round: &str| -> Vec<Message> {
        (0..8)
            .map(|n| Message {
                id: format!("{round}-{n}"),
                topic: "user.updated".into(),
                payload: Vec::new(),
                headers: Default::default(),
            })
            .collect()
    };
    let handled = |count: i64| {
        let db = db.clone();
        async move {
            eventually(Duration::from_secs(15), || async {
                (handled_rows(&db).await == count).then_some(())
            })
            .await
        }
    };

    // A burst in flight: the consumer still handles everything, one at a time.
    let burst: Vec<_> = (0..BURST).map(|_| requests.enter()).collect();
    let published = eventually(Duration::from_secs(15), || async {
        let published = bus.publish_all(&batch("burst")).await;
        published.broken.is_none().then_some(())
    });
    assert!(
        published.await.is_some(),
        "{url}: the broker took the batch"
    );
    assert!(
        handled(8).await.is_some(),
        "{url}: handled during the burst"
    );
    assert_eq!(width.widest.load(Ordering::SeqCst), 1, "{url}");

    // The burst is over: the same consumer is four wide again.
    drop(burst);
    width.widest.store(0, Ordering::SeqCst);
    assert!(bus.publish_all(&batch("quiet")).await.broken.is_none());
    assert!(
        handled(16).await.is_some(),
        "{url}: handled after the burst"
    );
    let widest = width.widest.load(Ordering::SeqCst);
    assert!(widest > 1, "{url}: {widest} at once after the burst");
    shutdown.cancel();
}

#[tokio::test]
async fn the_relay_holds_back_during_a_burst_of_requests_and_not_after() {
    let database = TestDb::new(Backend::Sqlite).await;
    let db = database.connect(&NONE).await;
    let queue = test_queue();
    let bus = Bus::with_topology("memory://", topology(queue)).unwrap();
    let collector = Collector::start(&bus, queue.name).await;
    let requests = Foreground::default();
    let shutdown = CancellationToken::new();
    let config = RelayConfig {
        batch: 2,
        yields_to: Some(requests.clone()),
        busy_pause: Duration::from_secs(2),
        ..fast_relay()
    };
    let published_all = |within: Duration| {
        let db = db.clone();
        async move {
            eventually(within, || async {
                (outbox::pending(&db).await.ok() == Some(0)).then_some(())
            })
            .await
            .is_some()
        }
    };

    // A burst in flight: a batch of 2 rows every 2 s.
    let burst: Vec<_> = (0..BURST).map(|_| requests.enter()).collect();
    let ids = enqueue_updates(&db, (0..6).map(|i| format!("user-{i}"))).await;
    outbox::spawn_relay(db.clone(), bus.clone(), config, shutdown.clone());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(outbox::pending(&db).await.unwrap(), 6, "held back");
    assert!(
        published_all(Duration::from_secs(20)).await,
        "but never stopped"
    );

    // The burst is over: 100 rows, 50 batches, without a pause between them (with one: 100 s).
    drop(burst);
    let more = enqueue_updates(&db, (6..106).map(|i| format!("user-{i}"))).await;
    assert!(
        published_all(Duration::from_secs(25)).await,
        "published at full pace after the burst"
    );
    shutdown.cancel();
    let mut received = collector.collected(106).await;
    received.sort();
    let mut expected = [ids, more].concat();
    expected.sort();
    assert_eq!(received, expected);
}

/// Messages in `queue` at the broker, or `None` when it does not exist.
async fn broker_count(channel: &lapin::Channel, queue: &str) -> Option<u32> {
    channel
        .queue_declare(
            queue.into(),
            lapin::options::QueueDeclareOptions {
                passive: true,
                ..Default::default()
            },
            lapin::types::FieldTable::default(),
        )
        .await
        .ok()
        .map(|declared| declared.message_count())
}

/// The audit queue gets its copy apart, on an exchange of its own: a publish whose consumer
/// queue is gone from the broker comes back unroutable (the outbox keeps it) instead of
/// landing in the audit queue alone, and a topic no consumer takes is kept by the audit queue.
#[tokio::test]
async fn the_audit_copy_never_hides_a_missing_consumer_queue() {
    let queue = test_queue();
    let audit = format!("{}.audit", queue.name);
    let bus = Bus::with_topology(
        RABBITMQ,
        Topology {
            audit: Some(audit.clone()),
            ..topology(queue)
        },
    )
    .unwrap();
    let message = |id: &str, topic: &str| Message {
        id: id.into(),
        topic: topic.into(),
        payload: Vec::new(),
        headers: Default::default(),
    };
    bus.publish(&message("consumed", "user.updated"))
        .await
        .expect("routed to its consumer queue");
    bus.publish(&message("unconsumed", "session.revoked"))
        .await
        .expect("a topic no consumer takes is kept by the audit queue");

    let connection = lapin::Connection::connect(RABBITMQ, lapin::ConnectionProperties::default())
        .await
        .unwrap();
    let channel = connection.create_channel().await.unwrap();
    let counted = eventually(Duration::from_secs(5), || async {
        let counts = (
            broker_count(&channel, queue.name).await,
            broker_count(&channel, &audit).await,
        );
        (counts == (Some(1), Some(2))).then_some(())
    })
    .await;
    assert!(
        counted.is_some(),
        "one in the consumer queue, both in the audit queue"
    );

    // The consumer queue is deleted at the broker (by hand, by a policy, by a reset).
    channel
        .queue_delete(
            queue.name.into(),
            lapin::options::QueueDeleteOptions::default(),
        )
        .await
        .unwrap();
    let lost = bus.publish(&message("orphaned", "user.updated")).await;
    assert!(
        matches!(lost, Err(BusError::Unroutable(_))),
        "a consumed topic with no queue bound is unroutable, audit copy or not: {lost:?}"
    );
    bus.publish(&message("again", "user.updated"))
        .await
        .expect("the next publish declares the consumer queue again and reaches it");
    assert_eq!(broker_count(&channel, queue.name).await, Some(1));
    for name in [audit.as_str(), queue.name, &format!("{}.dead", queue.name)] {
        let _ = channel
            .queue_delete(name.into(), lapin::options::QueueDeleteOptions::default())
            .await;
    }
}
