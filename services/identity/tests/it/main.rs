//! The identity service's tests, one binary: each storage test runs as a named case per
//! backend (`…::case_1_sqlite`, `…::case_2_postgres`).

mod account;
mod admin;
mod admin_on_admins;
mod api_key;
mod builtin_providers;
mod common;
mod email_password;
mod id_token;
mod mail_links;
mod names;
mod provider_tokens;
mod schema;
mod security_notice;
mod social;
mod stand_in;
mod two_factor;
mod user;
mod username;
