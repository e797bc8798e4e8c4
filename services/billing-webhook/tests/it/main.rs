//! The billing-webhook service's tests, one binary: the typed models against the reference
//! fixtures, and a real billing-webhook part (gRPC, its database on SQLite and PostgreSQL).

mod answers;
mod customer;
mod endpoints;
mod event_log;
mod fan_out;
mod fault;
mod intake;
mod organization_deleted;
mod pacing;
mod polar_models;
mod projection;
mod purchases;
mod schema;
mod support;
