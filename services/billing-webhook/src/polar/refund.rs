//! Refunds and the dispute they may answer (reference §4.2 Refund).

use serde::{Deserialize, Serialize};

use super::common::{Extra, Metadata, Timestamp, open_enum};

open_enum! {
    /// Refund `status`. `refund.created` fires whatever the status (reference §3).
    pub enum RefundStatus {
        Pending = "pending",
        Succeeded = "succeeded",
        Failed = "failed",
        Canceled = "canceled",
    }
}

open_enum! {
    /// Refund `reason`.
    pub enum RefundReason {
        Duplicate = "duplicate",
        Fraudulent = "fraudulent",
        CustomerRequest = "customer_request",
        ServiceDisruption = "service_disruption",
        SatisfactionGuarantee = "satisfaction_guarantee",
        DisputePrevention = "dispute_prevention",
        Other = "other",
    }
}

open_enum! {
    /// Dispute `status`.
    pub enum DisputeStatus {
        Prevented = "prevented",
        EarlyWarning = "early_warning",
        NeedsResponse = "needs_response",
        UnderReview = "under_review",
        Lost = "lost",
        Won = "won",
    }
}

/// A refund (`refund.*`): amounts in cents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refund {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub metadata: Metadata,
    pub status: RefundStatus,
    pub reason: RefundReason,
    pub amount: i64,
    pub tax_amount: i64,
    pub currency: String,
    pub organization_id: String,
    pub order_id: String,
    pub subscription_id: Option<String>,
    pub customer_id: String,
    pub revoke_benefits: bool,
    pub dispute: Option<Dispute>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Refund {
    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Timestamp {
        self.modified_at.unwrap_or(self.created_at)
    }
}

/// A payment dispute (chargeback or early warning).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dispute {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub status: DisputeStatus,
    pub resolved: bool,
    pub closed: bool,
    pub amount: i64,
    pub tax_amount: i64,
    pub currency: String,
    pub reason: Option<String>,
    pub evidence_due_by: Option<Timestamp>,
    pub past_due: bool,
    pub order_id: String,
    pub payment_id: String,
    #[serde(flatten)]
    pub extra: Extra,
}
