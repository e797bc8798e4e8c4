//! Benefit grants: a benefit given to a customer (reference §4.2 BenefitGrant). Polar's
//! schema is a union keyed by the *embedded* `benefit.type`; here it is one struct whose
//! `properties` / `previous_properties` are typed after the embedded benefit's type.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::benefit::{Benefit, BenefitType, GithubPermission};
use super::common::{Extra, Timestamp, double_option};
use super::customer::{Customer, Member};

/// A benefit grant (`benefit_grant.*`): who got which benefit, through which subscription or
/// order, with the full customer, member and benefit embedded.
///
/// Deserialise it through serde's traits (`serde_json::from_*`, or as a field): they type
/// `properties` after `benefit`. The derive uses `#[serde(remote = "Self")]` to wrap its own
/// body, which also leaves inherent `BenefitGrant::serialize` / `BenefitGrant::deserialize`
/// functions; the latter leaves `properties` as raw `GrantProperties::Unknown`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct BenefitGrant {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    #[serde(default)]
    pub granted_at: Option<Timestamp>,
    pub is_granted: bool,
    #[serde(default)]
    pub revoked_at: Option<Timestamp>,
    pub is_revoked: bool,
    /// Set when a subscription granted it.
    pub subscription_id: Option<String>,
    /// Set when a one-time order granted it.
    pub order_id: Option<String>,
    pub customer_id: String,
    #[serde(default)]
    pub member_id: Option<String>,
    pub benefit_id: String,
    /// Set when granting failed for good.
    #[serde(default)]
    pub error: Option<BenefitGrantError>,
    pub customer: Customer,
    #[serde(default)]
    pub member: Option<Member>,
    pub benefit: Benefit,
    /// Typed after `benefit`'s type.
    pub properties: GrantProperties,
    /// The properties before this change (e.g. on `benefit_grant.updated` / `cycled`).
    #[serde(default)]
    pub previous_properties: Option<GrantProperties>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Serialize for BenefitGrant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The serde-derived body (`remote = "Self"` makes it an inherent function).
        BenefitGrant::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for BenefitGrant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut grant = BenefitGrant::deserialize(deserializer)?;
        let kind = grant.benefit.kind();
        grant.properties = grant.properties.resolve(&kind).map_err(D::Error::custom)?;
        grant.previous_properties = grant
            .previous_properties
            .map(|previous| previous.resolve(&kind))
            .transpose()
            .map_err(D::Error::custom)?;
        Ok(grant)
    }
}

impl BenefitGrant {
    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Timestamp {
        self.modified_at.unwrap_or(self.created_at)
    }
}

/// `error` on a grant that failed for good.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenefitGrantError {
    pub message: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub timestamp: Timestamp,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A grant's `properties`, per benefit type; every key is optional and written back only when
/// it was sent. The discriminator is the sibling benefit type, so on its own this
/// deserialises to `Unknown(raw)`; [`BenefitGrant`] and
/// [`CustomerStateBenefitGrant`](super::customer::CustomerStateBenefitGrant) call
/// [`GrantProperties::resolve`]. An unknown benefit type stays `Unknown(raw)`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum GrantProperties {
    Custom(EmptyGrantProperties),
    Discord(DiscordGrantProperties),
    GithubRepository(GithubRepositoryGrantProperties),
    Downloadables(DownloadablesGrantProperties),
    LicenseKeys(LicenseKeysGrantProperties),
    MeterCredit(MeterCreditGrantProperties),
    FeatureFlag(EmptyGrantProperties),
    SlackSharedChannel(SlackSharedChannelGrantProperties),
    /// Not (yet) typed: an unknown benefit type, or not resolved.
    Unknown(Value),
}

impl<'de> Deserialize<'de> for GrantProperties {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::Unknown)
    }
}

impl GrantProperties {
    /// Types raw (`Unknown`) properties after the benefit type they belong to. Already typed
    /// properties and unknown benefit types are returned unchanged.
    pub fn resolve(self, kind: &BenefitType) -> Result<Self, serde_json::Error> {
        let Self::Unknown(raw) = self else {
            return Ok(self);
        };
        Ok(match kind {
            BenefitType::Custom => Self::Custom(serde_json::from_value(raw)?),
            BenefitType::Discord => Self::Discord(serde_json::from_value(raw)?),
            BenefitType::GithubRepository => Self::GithubRepository(serde_json::from_value(raw)?),
            BenefitType::Downloadables => Self::Downloadables(serde_json::from_value(raw)?),
            BenefitType::LicenseKeys => Self::LicenseKeys(serde_json::from_value(raw)?),
            BenefitType::MeterCredit => Self::MeterCredit(serde_json::from_value(raw)?),
            BenefitType::FeatureFlag => Self::FeatureFlag(serde_json::from_value(raw)?),
            BenefitType::SlackSharedChannel => {
                Self::SlackSharedChannel(serde_json::from_value(raw)?)
            }
            BenefitType::Unknown(_) => Self::Unknown(raw),
        })
    }
}

/// `custom` and `feature_flag` grants: `{}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyGrantProperties {
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `discord` grant: the connected account and the guild/role granted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiscordGrantProperties {
    /// Absent: `None`; `null`: `Some(None)`.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub account_id: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guild_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_account_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `github_repository` grant: the connected account and the repository access granted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GithubRepositoryGrantProperties {
    /// Absent: `None`; `null`: `Some(None)`.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub account_id: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository_owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<GithubPermission>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_account_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `downloadables` grant: the file ids granted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DownloadablesGrantProperties {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `license_keys` grant: the key issued (only its display form is sent).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LicenseKeysGrantProperties {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_provided_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license_key_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_key: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `meter_credit` grant: the last credit applied.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MeterCreditGrantProperties {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_credited_meter_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_credited_units: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_credited_at: Option<Timestamp>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `slack_shared_channel` grant: the invitation and channel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SlackSharedChannelGrantProperties {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invited_email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connected_team_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}
