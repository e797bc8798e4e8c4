//! What more than one route group needs, in one home, so that no group imports another: how
//! the request's fields are read ([`input`]), who the caller is to the organization service
//! ([`organization`]), and how a session is started or its cookies issued again ([`session`]).

pub mod input;
pub mod organization;
pub mod permission;
pub mod session;
