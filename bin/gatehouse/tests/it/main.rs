//! End-to-end tests of the whole binary, one test binary: the stack in this process
//! (standalone wiring, real gRPC over loopback) or as separate processes (distributed), driven
//! over HTTP like a browser or the better-auth client would.

#![allow(dead_code)]

mod account;
mod admin;
mod admin_on_admins;
mod allocator;
mod api_key_replicas;
mod auth_http;
mod backends;
mod billing_endpoints;
mod billing_intake;
mod brute_force;
mod captcha;
mod common;
mod degraded;
mod dev_mailbox;
mod distributed;
mod faults;
mod listeners;
mod mail_flows;
mod names;
mod observability;
mod openapi;
mod organization;
mod service_auth;
mod sessions;
mod tokens;
mod trace_context;
