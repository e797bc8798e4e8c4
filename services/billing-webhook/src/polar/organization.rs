//! The seller organization (`organization.updated`; reference §4.2 Organization). The server
//! also sends the undeclared `notification_settings` (0.47.x SDKs require it); it is kept in
//! [`Organization::extra`] (reference §4.4).

use serde::{Deserialize, Serialize};

use super::common::{Extra, TaxBehavior, Timestamp, open_enum};

open_enum! {
    /// Organization `status`.
    pub enum OrganizationStatus {
        Created = "created",
        Review = "review",
        Snoozed = "snoozed",
        Denied = "denied",
        Active = "active",
        Blocked = "blocked",
        Offboarding = "offboarding",
        Offboarded = "offboarded",
    }
}

open_enum! {
    /// What happens to billing on a mid-period plan change.
    pub enum ProrationBehavior {
        Invoice = "invoice",
        Prorate = "prorate",
        NextPeriod = "next_period",
        Reset = "reset",
    }
}

open_enum! {
    /// A social link's platform.
    pub enum SocialPlatform {
        X = "x",
        Github = "github",
        Facebook = "facebook",
        Instagram = "instagram",
        Youtube = "youtube",
        Tiktok = "tiktok",
        Linkedin = "linkedin",
        Threads = "threads",
        Discord = "discord",
        Other = "other",
    }
}

/// The seller organization and its settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Organization {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub name: String,
    pub slug: String,
    pub avatar_url: Option<String>,
    pub proration_behavior: ProrationBehavior,
    pub allow_customer_updates: bool,
    pub email: Option<String>,
    pub website: Option<String>,
    pub socials: Vec<OrganizationSocial>,
    pub status: OrganizationStatus,
    pub details_submitted_at: Option<Timestamp>,
    pub onboarding_resubmission_requested_at: Option<Timestamp>,
    pub sso_enforced: bool,
    pub default_presentment_currency: String,
    pub default_tax_behavior: TaxBehavior,
    pub feature_settings: Option<OrganizationFeatureSettings>,
    pub subscription_settings: OrganizationSubscriptionSettings,
    pub customer_email_settings: CustomerEmailSettings,
    pub customer_portal_settings: CustomerPortalSettings,
    pub dispute_settings: DisputeSettings,
    pub embed_hosts: Vec<String>,
    #[serde(default)]
    pub country: Option<String>,
    pub account_id: Option<String>,
    pub payout_account_id: Option<String>,
    pub capabilities: OrganizationCapabilities,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Organization {
    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Timestamp {
        self.modified_at.unwrap_or(self.created_at)
    }
}

/// `{platform, url}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrganizationSocial {
    pub platform: SocialPlatform,
    pub url: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Feature flags, all optional and written back only when sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OrganizationFeatureSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_funding_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_based_pricing_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wallets_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member_model_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout_localization_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_proration_behavior_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_session_charges_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meter_cycling_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slack_benefit_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview_access_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disputes_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sso_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispute_auto_accept_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compass_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merchant_migration_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_ancestors_enforced: Option<bool>,
    /// Metric slugs on the dashboard overview (absent: `None`; `null`: `Some(None)`).
    #[serde(
        default,
        deserialize_with = "super::common::double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub overview_metrics: Option<Option<Vec<String>>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Subscription rules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrganizationSubscriptionSettings {
    pub allow_multiple_subscriptions: bool,
    pub proration_behavior: ProrationBehavior,
    /// Days.
    pub benefit_revocation_grace_period: i64,
    pub prevent_trial_abuse: bool,
    pub allow_customer_updates: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Which emails Polar sends customers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomerEmailSettings {
    pub order_confirmation: bool,
    pub payment_method_expiration_reminder: bool,
    pub subscription_cancellation: bool,
    pub subscription_confirmation: bool,
    pub subscription_cycled: bool,
    pub subscription_cycled_after_trial: bool,
    pub subscription_past_due: bool,
    pub subscription_paused: bool,
    pub subscription_resumed: bool,
    pub subscription_renewal_reminder: bool,
    pub subscription_revoked: bool,
    pub subscription_trial_conversion_reminder: bool,
    pub subscription_uncanceled: bool,
    pub subscription_updated: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// What customers may do in the customer portal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomerPortalSettings {
    pub usage: CustomerPortalUsageSettings,
    pub subscription: CustomerPortalSubscriptionSettings,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer: Option<CustomerPortalCustomerSettings>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{show}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomerPortalUsageSettings {
    pub show: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{update_seats, update_plan, update_units?, pause?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomerPortalSubscriptionSettings {
    pub update_seats: bool,
    pub update_plan: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_units: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{allow_email_change?}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CustomerPortalCustomerSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_email_change: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{auto_accept_below_amount}`: in Polar's settlement currency (USD) cents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DisputeSettings {
    pub auto_accept_below_amount: Option<i64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// What the organization may currently do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrganizationCapabilities {
    pub checkout_payments: bool,
    pub subscription_renewals: bool,
    pub payouts: bool,
    pub refunds: bool,
    pub api_access: bool,
    pub dashboard_access: bool,
    #[serde(flatten)]
    pub extra: Extra,
}
