//! The mailer: `mail.requested` events become mails in the recipient's language (`render/`),
//! queued and sent over SMTP (or to files in standalone mode) without ever being lost
//! (`delivery/`); the log of every mail is readable through `MailboxService` (`mailbox/`).

pub mod config;
pub mod delivery;
pub mod mailbox;
pub mod render;

use std::sync::Arc;

use gatehouse_kit::consumer::{Consumer, RetryPolicy};
use gatehouse_kit::db::{Db, Migrations};
use gatehouse_kit::service::{BoxError, Context, GrpcServices, ServicePart};
use gatehouse_proto::events::MAILER_MAIL_REQUESTS;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

pub use config::MailerConfig;
pub use gatehouse_proto::mailer::{DEFAULT_LISTEN, NAME};

pub const MIGRATIONS: Migrations = gatehouse_kit::service_migrations!();

/// The mailer as a part of the `gatehouse` binary.
pub const SERVICE: ServicePart = ServicePart {
    name: NAME,
    about: "The mailer alone",
    default_listen: DEFAULT_LISTEN,
    default_ops_listen: "127.0.0.1:9303",
    migrations: &MIGRATIONS,
    database_connections: gatehouse_kit::service::DEFAULT_DATABASE_CONNECTIONS,
    start: |db, context, shutdown| Box::pin(start(db, context, shutdown)),
};

async fn start(
    db: Db,
    context: Context,
    shutdown: CancellationToken,
) -> Result<GrpcServices, BoxError> {
    let config = MailerConfig::from_env(&context.env, &context.data_dir)?;
    tracing::info!(?config, "mailer configuration");
    // Every catalogue and template is checked here: a broken one stops the start, not a mail.
    let templates = Arc::new(render::Templates::new()?);
    let ca = match &config.tls_ca_file {
        Some(path) => {
            Some(std::fs::read(path).map_err(|e| format!("MAIL_TLS_CA_FILE {path}: {e}"))?)
        }
        None => None,
    };
    let transport = delivery::transport::Transport::from_url(
        &config.mail_url,
        config.concurrency,
        ca.as_deref(),
    )?;
    let queued = Arc::new(Notify::new());
    Consumer {
        queue: MAILER_MAIL_REQUESTS.name,
        db: db.clone(),
        bus: context.bus.clone(),
        handler: Arc::new(delivery::events::MailRequests {
            templates,
            base_url: config.base_url.clone(),
            queued: queued.clone(),
        }),
        retry: RetryPolicy::default(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown.clone());
    let sending = delivery::Delivery {
        db: db.clone(),
        transport,
        config,
        queued,
    }
    .spawn(shutdown);
    Ok(GrpcServices::new()
        .serve(mailbox::grpc::server(mailbox::Mailbox { db }))
        .drain(sending))
}
