//! Benefits: what a product grants (reference §4.2 Benefit). A union on `type` whose
//! `properties` depend on the type; checkouts carry the slim [`BenefitPublic`] instead.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{
    Extra, Metadata, Timestamp, Visibility, double_option, open_enum, raw_modified_or_created,
    raw_str, tagged_union,
};

open_enum! {
    /// Benefit `type`. Polar has `feature_flag` and `slack_shared_channel` beyond our spec's
    /// six (reference §4.1, §8.6).
    pub enum BenefitType {
        Custom = "custom",
        Discord = "discord",
        GithubRepository = "github_repository",
        Downloadables = "downloadables",
        LicenseKeys = "license_keys",
        MeterCredit = "meter_credit",
        FeatureFlag = "feature_flag",
        SlackSharedChannel = "slack_shared_channel",
    }
}

open_enum! {
    /// The access a GitHub repository benefit grants.
    pub enum GithubPermission {
        Pull = "pull",
        Triage = "triage",
        Push = "push",
        Maintain = "maintain",
        Admin = "admin",
    }
}

open_enum! {
    /// License key expiry `timeframe`.
    pub enum LicenseKeyTimeframe {
        Year = "year",
        Month = "month",
        Day = "day",
    }
}

tagged_union! {
    /// A benefit, discriminated by `type`. An unknown type keeps the raw object.
    pub enum Benefit (tag = "type") {
        Custom(TypedBenefit<CustomProperties>) = "custom",
        Discord(TypedBenefit<DiscordProperties>) = "discord",
        GithubRepository(TypedBenefit<GithubRepositoryProperties>) = "github_repository",
        Downloadables(TypedBenefit<DownloadablesProperties>) = "downloadables",
        LicenseKeys(TypedBenefit<LicenseKeysProperties>) = "license_keys",
        MeterCredit(TypedBenefit<MeterCreditProperties>) = "meter_credit",
        FeatureFlag(TypedBenefit<FeatureFlagProperties>) = "feature_flag",
        SlackSharedChannel(TypedBenefit<SlackSharedChannelProperties>) = "slack_shared_channel",
    }
}

impl Benefit {
    /// The benefit type (an unknown one as `BenefitType::Unknown`).
    pub fn kind(&self) -> BenefitType {
        BenefitType::from(self.tag().unwrap_or_default())
    }

    /// The fields every known variant shares; `None` for an unknown type.
    pub fn common(&self) -> Option<&BenefitCommon> {
        Some(match self {
            Self::Custom(b) => &b.common,
            Self::Discord(b) => &b.common,
            Self::GithubRepository(b) => &b.common,
            Self::Downloadables(b) => &b.common,
            Self::LicenseKeys(b) => &b.common,
            Self::MeterCredit(b) => &b.common,
            Self::FeatureFlag(b) => &b.common,
            Self::SlackSharedChannel(b) => &b.common,
            Self::Unknown(_) => return None,
        })
    }

    /// The benefit id (read from the raw object for an unknown type).
    pub fn id(&self) -> Option<&str> {
        match self {
            Self::Unknown(raw) => raw_str(raw, "id"),
            known => known.common().map(|common| common.id.as_str()),
        }
    }

    /// The organization the benefit belongs to.
    pub fn organization_id(&self) -> Option<&str> {
        match self {
            Self::Unknown(raw) => raw_str(raw, "organization_id"),
            known => known.common().map(|common| common.organization_id.as_str()),
        }
    }

    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Option<Timestamp> {
        match self {
            Self::Unknown(raw) => raw_modified_or_created(raw),
            known => known
                .common()
                .map(|common| common.modified_at.unwrap_or(common.created_at)),
        }
    }
}

/// A benefit of one known type: the shared fields, the type's `properties`, and undeclared keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TypedBenefit<P> {
    #[serde(flatten)]
    pub common: BenefitCommon,
    pub properties: P,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The fields every benefit type has (the `type` tag itself lives in [`Benefit`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenefitCommon {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub description: String,
    pub selectable: bool,
    pub deletable: bool,
    pub is_deleted: bool,
    pub organization_id: String,
    pub metadata: Metadata,
    pub visibility: Visibility,
    pub visibility_configurable: bool,
}

/// `custom`: a note shown to the customer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomProperties {
    pub note: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `discord`: the guild and role to grant. The server also sends the undeclared
/// `guild_token` (a JWT that 0.x SDKs require); it is kept in `extra` (reference §4.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiscordProperties {
    pub guild_id: String,
    pub role_id: String,
    pub kick_member: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

impl DiscordProperties {
    /// The undeclared `guild_token`, if sent.
    pub fn guild_token(&self) -> Option<&str> {
        self.extra
            .get("guild_token")
            .and_then(serde_json::Value::as_str)
    }
}

/// `github_repository`: the repository and the permission to grant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GithubRepositoryProperties {
    pub repository_owner: String,
    pub repository_name: String,
    pub permission: GithubPermission,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `downloadables`: file ids, and which of them are archived.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DownloadablesProperties {
    pub archived: BTreeMap<String, bool>,
    pub files: Vec<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `license_keys`: key prefix, expiry, activation limit and usage limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LicenseKeysProperties {
    pub prefix: Option<String>,
    pub expires: Option<LicenseKeyExpiration>,
    pub activations: Option<LicenseKeyActivations>,
    pub limit_usage: Option<i64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{ttl, timeframe}`: a key expires `ttl` timeframes after it is granted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LicenseKeyExpiration {
    pub ttl: i64,
    pub timeframe: LicenseKeyTimeframe,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{limit, enable_customer_admin}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LicenseKeyActivations {
    pub limit: i64,
    pub enable_customer_admin: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `meter_credit`: units credited to a meter each period.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeterCreditProperties {
    pub units: i64,
    pub rollover: bool,
    pub meter_id: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `feature_flag`: no declared properties (`{}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FeatureFlagProperties {
    #[serde(flatten)]
    pub extra: Extra,
}

/// `slack_shared_channel`: the integration and channel settings. The last four keys are
/// optional in the schema and written back only when they were sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlackSharedChannelProperties {
    pub slack_integration_id: String,
    pub channel_name_template: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private: Option<bool>,
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub welcome_message: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_on_revoke: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_invitees: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The slim benefit in checkout products (BenefitPublic): no metadata, visibility or
/// properties, except that `meter_credit` adds `properties {units, meter_id}`
/// (reference §4.2, after Benefit). One struct with an open `type`, not a union.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenefitPublic {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    #[serde(rename = "type")]
    pub kind: BenefitType,
    pub description: String,
    pub selectable: bool,
    pub deletable: bool,
    pub is_deleted: bool,
    pub organization_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<BenefitPublicProperties>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `properties` of a public `meter_credit` benefit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenefitPublicProperties {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meter_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}
