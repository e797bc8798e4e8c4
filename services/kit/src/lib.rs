//! Gatehouse's shared runtime. Every service builds on the same pieces so that they behave the
//! same way: configuration from the environment, telemetry, storage pools with migrations, a
//! cache, an event bus fed by a transactional outbox, listeners with timeouts and limits (gRPC
//! behind the service token; metrics and health on a separate operations listener), service
//! start-up, and errors that travel whole from a service to the gateway.

pub mod access;
pub mod amqp;
pub mod auth_secret;
pub mod bus;
pub mod cache;
pub mod client;
pub mod config;
pub mod consumer;
pub mod db;
pub mod errors;
pub mod foreground;
pub mod ids;
pub mod language;
pub mod listener;
pub mod listing;
pub mod outbox;
pub mod redact;
pub mod sealing;
pub mod server;
pub mod service;
pub mod service_auth;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
pub mod validate;
pub mod worker;

pub use errors::{ErrorCode, Failure};
pub use sqlx;
