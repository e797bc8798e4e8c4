//! kit's tests against real backends, one binary: the storage API on both databases (a named
//! case per backend), the PostgreSQL pool, the Redis cache through a cuttable proxy.

mod cache;
mod db;
mod events;
mod pool;
mod service;
mod transport;
