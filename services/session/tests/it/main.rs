//! The session service's tests, one binary: each storage test runs as a named case per
//! backend (`…::case_1_sqlite`, `…::case_2_postgres`).

mod schema;
mod session;
mod token;
