//! What owners and admins do with their organization's endpoints. The caller (the gateway)
//! has checked that the actor may manage the organization's billing; every operation here is
//! confined to that organization.

use chrono::{SecondsFormat, TimeDelta};
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::billing as codes;
use gatehouse_kit::ids;

use super::{Endpoint, MAX_ENDPOINTS, Registrant, Settings, secret, store};
use crate::config::FanOutConfig;
use crate::delivery::destination::Policy;
use crate::error::BillingError;
use crate::intake::store as received;

/// The type of the events [`Endpoints::send_test`] sends. Not one of the payments platform's:
/// a receiver that refuses unknown types (its SDK's `validateEvent` does) answers it with an
/// error, which is what it should not do with the platform's new types either (reference §8.4).
pub const TEST_EVENT_TYPE: &str = "webhook.test";

pub struct Endpoints {
    pub db: Db,
    pub policy: Policy,
    pub config: FanOutConfig,
}

impl Endpoints {
    pub fn new(db: Db, config: FanOutConfig) -> Self {
        Self {
            db,
            policy: Policy {
                allowed: config.allowed_networks.clone(),
            },
            config,
        }
    }

    /// A new endpoint with a new secret; a URL is required.
    pub async fn create(
        &self,
        organization_id: &str,
        created_by: Registrant,
        settings: Settings,
    ) -> Result<Endpoint, BillingError> {
        let settings = settings.checked(&self.policy)?;
        let url = settings.url.ok_or(codes::INVALID_ENDPOINT_URL)?;
        if store::count(&self.db, organization_id).await? >= MAX_ENDPOINTS as i64 {
            return Err(codes::TOO_MANY_ENDPOINTS.into());
        }
        let now = ids::now();
        let endpoint = Endpoint {
            id: format!("ep_{}", ids::new_id()),
            organization_id: organization_id.to_string(),
            url,
            description: settings.description.unwrap_or_default(),
            event_types: settings.event_types.unwrap_or_default(),
            enabled: settings.enabled.unwrap_or(true),
            disabled_reason: None,
            secret: secret::generate(),
            polar_signing: settings.polar_signing.unwrap_or(false),
            previous_secret: None,
            previous_polar_signing: None,
            previous_secret_expires_at: None,
            failing_since: None,
            created_by,
            created_at: now,
            updated_at: now,
        };
        store::insert(&self.db, &endpoint).await?;
        Ok(endpoint)
    }

    pub async fn get(&self, organization_id: &str, id: &str) -> Result<Endpoint, BillingError> {
        store::get(&self.db, organization_id, id)
            .await?
            .ok_or_else(|| codes::ENDPOINT_NOT_FOUND.into())
    }

    pub async fn list(&self, organization_id: &str) -> Result<Vec<Endpoint>, BillingError> {
        Ok(store::list(&self.db, organization_id).await?)
    }

    /// Changes the fields `settings` names, in one statement ([`store::update_settings`]).
    /// Enabling clears the failing streak and the reason it was disabled; changing how it
    /// signs keeps the old way signing for the overlap, as a rotation does.
    pub async fn update(
        &self,
        organization_id: &str,
        id: &str,
        settings: Settings,
    ) -> Result<Endpoint, BillingError> {
        let settings = settings.checked(&self.policy)?;
        let now = ids::now();
        store::update_settings(
            &self.db,
            organization_id,
            id,
            &settings,
            now + self.overlap(),
            now,
        )
        .await?
        .ok_or(codes::ENDPOINT_NOT_FOUND.into())
    }

    /// A new secret; the old one keeps signing beside it for the configured overlap.
    pub async fn rotate_secret(
        &self,
        organization_id: &str,
        id: &str,
    ) -> Result<Endpoint, BillingError> {
        let now = ids::now();
        store::rotate_secret(
            &self.db,
            organization_id,
            id,
            &secret::generate(),
            now + self.overlap(),
            now,
        )
        .await?
        .ok_or(codes::ENDPOINT_NOT_FOUND.into())
    }

    fn overlap(&self) -> TimeDelta {
        TimeDelta::from_std(self.config.secret_overlap).unwrap_or(TimeDelta::zero())
    }

    /// Stores a test event for this endpoint alone and delivers it on the retry schedule like
    /// any other; returns the event's id and the delivery's (the `webhook-id` sent).
    pub async fn send_test(
        &self,
        organization_id: &str,
        id: &str,
    ) -> Result<(String, String), BillingError> {
        let endpoint = self.get(organization_id, id).await?;
        if !endpoint.enabled {
            return Err(codes::ENDPOINT_DISABLED.into());
        }
        let now = ids::now();
        let event_id = ids::new_id();
        let body = serde_json::json!({
            "type": TEST_EVENT_TYPE,
            "timestamp": now.to_rfc3339_opts(SecondsFormat::Micros, true),
            "data": {
                "endpoint_id": endpoint.id,
                "organization_id": organization_id,
                "message": "A test event from Gatehouse: this endpoint receives billing webhooks.",
            },
        })
        .to_string();
        let mut tx = self.db.begin().await?;
        received::insert_test(
            &mut tx,
            &event_id,
            TEST_EVENT_TYPE,
            organization_id,
            body.as_bytes(),
            now,
        )
        .await?;
        let delivery_id = crate::fan_out::deliver(&mut tx, &event_id, &endpoint.id, now)
            .await?
            .ok_or(gatehouse_kit::errors::base::INTERNAL_SERVER_ERROR)?;
        tx.commit().await?;
        Ok((event_id, delivery_id))
    }

    /// Removes the endpoint; its deliveries and their attempts go with it (cascade).
    pub async fn delete(&self, organization_id: &str, id: &str) -> Result<(), BillingError> {
        if !store::delete(&self.db, organization_id, id).await? {
            return Err(codes::ENDPOINT_NOT_FOUND.into());
        }
        Ok(())
    }
}
