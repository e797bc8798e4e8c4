//! The billing-webhook service: the payments platform's (Polar's) webhooks taken in verified
//! and stored (`intake/`, IntakeService), projected (`projection/`: the current state of each
//! customer, subscription, order, refund and benefit grant), and fanned out to sellers'
//! endpoints (`endpoint/`, `fan_out`, `delivery/`: signed attempts on a retry schedule); a
//! deleted organization's endpoints go with it (`endpoint/events.rs`).
//! `polar` is the typed model of what the payments platform sends.

pub mod config;
pub mod convert;
pub mod customer;
pub mod delivery;
pub mod endpoint;
pub mod error;
pub mod fan_out;
pub mod intake;
pub mod polar;
pub mod projection;
pub mod purchases;
pub mod stored_events;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_kit::consumer::{Consumer, RetryPolicy};
use gatehouse_kit::db::{Db, Migrations};
use gatehouse_kit::foreground::Yield;
use gatehouse_kit::service::{BoxError, Context, GrpcServices, ServicePart};
use gatehouse_kit::worker::{Schedule, Worker};
use gatehouse_proto::events::{BILLING_DELIVERIES, BILLING_EVENTS, BILLING_ORGANIZATION_EVENTS};
use tokio_util::sync::CancellationToken;

pub use config::BillingWebhookConfig;
pub use gatehouse_proto::billing_webhook::{DEFAULT_LISTEN, NAME};

pub const MIGRATIONS: Migrations = gatehouse_kit::service_migrations!();

/// The billing-webhook service as a part of the `gatehouse` binary.
pub const SERVICE: ServicePart = ServicePart {
    name: NAME,
    about: "The billing-webhook service alone (the payments platform's webhooks)",
    default_listen: DEFAULT_LISTEN,
    default_ops_listen: "127.0.0.1:9305",
    migrations: &MIGRATIONS,
    database_connections: DATABASE_CONNECTIONS,
    start: |db, context, shutdown| Box::pin(start(db, context, shutdown)),
};

/// Its pool, unless `BILLING_WEBHOOK_DATABASE_MAX_CONNECTIONS` says otherwise: twice the
/// others'. The stored-events consumer alone holds up to [`EVENT_CONCURRENCY`] connections for
/// its transactions, and with the usual 10 the intake — whose sender is waiting — queued for
/// what was left: about a tenth more deliveries a second with 20 (bench/RESULTS.md).
const DATABASE_CONNECTIONS: u32 = 20;

/// Stored events handled at once. Neither step depends on the order events come in: a
/// projection files an entity only over an older state of it, and an event fans out to each
/// endpoint once (the inbox, and one delivery per event and endpoint). At once, the consumer
/// does not wait on one database round trip at a time while the intake takes thousands a
/// second.
const EVENT_CONCURRENCY: u16 = 8;

/// While a burst of deliveries is in the intake (kit's `foreground::BURST` at once), the
/// stored-events consumer handles at most this many at a time, and the outbox relay publishes
/// less, so that the intake, whose sender is waiting, has the cores and the database; the
/// stored events wait their turn and are handled at full width once the burst is over
/// (bench/RESULTS.md).
const EVENT_CONCURRENCY_IN_A_BURST: u16 = 2;

async fn start(
    db: Db,
    context: Context,
    shutdown: CancellationToken,
) -> Result<GrpcServices, BoxError> {
    let config = BillingWebhookConfig::from_env(&context.env)?;
    // The intake counts its deliveries as the service's requests (kit's outbox relay yields to them).
    let intake_requests = context.foreground.clone();
    Consumer {
        queue: BILLING_EVENTS.name,
        db: db.clone(),
        bus: context.bus.clone(),
        handler: Arc::new(stored_events::StoredEvents {
            fan_out: fan_out::FanOut {
                platform_organizations: config.fan_out.platform_organizations.clone(),
            },
        }),
        retry: RetryPolicy::default(),
        concurrency: EVENT_CONCURRENCY,
        yields: Some(Yield {
            to: intake_requests.clone(),
            concurrency: EVENT_CONCURRENCY_IN_A_BURST,
        }),
    }
    .spawn(shutdown.clone());
    Consumer {
        queue: BILLING_ORGANIZATION_EVENTS.name,
        db: db.clone(),
        bus: context.bus.clone(),
        handler: Arc::new(endpoint::events::OrganizationEvents),
        retry: RetryPolicy::default(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown.clone());
    // reqwest's own message ("builder error") names no cause.
    let deliverer =
        delivery::Deliverer::new(db.clone(), config.fan_out.clone()).map_err(|error| {
            format!("building the deliveries' HTTP client (system CA certificates?): {error:?}")
        })?;
    let scheduler = delivery::scheduler::Nudge::default();
    delivery::scheduler::Scheduler {
        db: db.clone(),
        tick: config.fan_out.scheduler_tick,
        nudged: scheduler.clone(),
        slots: deliverer.slots(),
    }
    .spawn(shutdown.clone());
    Worker {
        queue: BILLING_DELIVERIES.name,
        bus: context.bus.clone(),
        // Retries of a job that could not record its attempt (the database was away); the
        // endpoints' own schedule is the scheduler's.
        schedule: Schedule {
            delays: [1, 5, 30].map(Duration::from_secs).to_vec(),
            jitter: 0.2,
        },
        concurrency: config.fan_out.concurrency,
        job: Arc::new(deliverer),
    }
    .spawn(shutdown);
    let verifier = match &config.polar_webhook_secret {
        Some(secret) => Some(Arc::new(intake::Verifier::polar(secret)?)),
        None => {
            tracing::warn!(
                "POLAR_WEBHOOK_SECRET is not set: the billing webhook intake answers 503 until it is"
            );
            None
        }
    };
    let replays = delivery::replay::Replays {
        db: db.clone(),
        log: delivery::log::EventLog {
            db: db.clone(),
            platform_organizations: config.fan_out.platform_organizations.clone(),
        },
        scheduler,
    };
    Ok(GrpcServices::new()
        .serve(endpoint::grpc::server(endpoint::manage::Endpoints::new(
            db.clone(),
            config.fan_out.clone(),
        )))
        .serve(delivery::grpc::server(delivery::grpc::Deliveries(replays)))
        .serve(customer::grpc::server(customer::Customers {
            db: db.clone(),
        }))
        .serve(intake::grpc::server(intake::Intake {
            db,
            verifier,
            requests: intake_requests,
        })))
}
