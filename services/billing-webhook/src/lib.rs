//! The billing-webhook service: the payments platform's (Polar's) webhooks taken in verified and
//! stored, projected, and fanned out to sellers' endpoints. `polar` is the typed model of what
//! the payments platform sends.

pub mod polar;
