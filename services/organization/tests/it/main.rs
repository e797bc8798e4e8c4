//! The organization service's tests, one binary: each storage test runs as a named case per
//! backend (`…::case_1_sqlite`, `…::case_2_postgres`), against real identity and session
//! services.

mod invitation;
mod invitation_links;
mod invitation_mails;
mod member;
mod member_users;
mod names;
mod organization;
mod owners;
mod schema;
mod support;
mod team;
