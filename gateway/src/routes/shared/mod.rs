//! What more than one route group needs, in one home, so that no group imports another: how
//! the request's fields are read ([`input`]) and how a session is started or its cookies
//! issued again ([`session`]). Who the caller is to the organization service, and the
//! organization permission, are the extractors' ([`crate::extract::organization`]).

pub mod input;
pub mod session;
