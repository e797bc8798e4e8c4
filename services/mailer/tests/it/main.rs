//! The mailer's tests, one binary: a real mailer part (gRPC, its database on SQLite and
//! PostgreSQL, the in-process bus) sending to a real SMTP server process (`smtp_sink.py`,
//! aiosmtpd) that the tests start and stop.

mod delivery;
mod schema;
mod support;
mod tls;
