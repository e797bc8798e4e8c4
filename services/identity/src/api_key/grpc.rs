//! `gatehouse.identity.v1.ApiKeyService`.

use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::api_key_service_server::{ApiKeyService, ApiKeyServiceServer};
use tonic::{Request, Response, Status};

use super::usage::Permissions;
use super::{ApiKeys, KeyUpdate, Limits, NewKey, Sort};

pub fn server(keys: ApiKeys) -> ApiKeyServiceServer<ApiKeys> {
    ApiKeyServiceServer::new(keys)
}

/// Whose keys a request acts on: the organization it names, else the user.
fn owner(user_id: &str, organization_id: Option<&str>) -> Result<String, Status> {
    require("user_id", user_id)?;
    Ok(organization_id
        .filter(|id| !id.is_empty())
        .unwrap_or(user_id)
        .to_string())
}

fn require(field: &str, value: &str) -> Result<(), Status> {
    if value.is_empty() {
        return Err(base::VALIDATION_ERROR
            .with_message(format!("{field} is required"))
            .into());
    }
    Ok(())
}

/// A list's sort field, named as on the wire, and its column.
fn sort_column(field: &str) -> Option<&'static str> {
    Some(match field {
        "id" => "id",
        "configId" => "config_id",
        "name" => "name",
        "start" => "start",
        "referenceId" => "reference_id",
        "prefix" => "prefix",
        "refillInterval" => "refill_interval",
        "refillAmount" => "refill_amount",
        "lastRefillAt" => "last_refill_at",
        "enabled" => "enabled",
        "rateLimitEnabled" => "rate_limit_enabled",
        "rateLimitTimeWindow" => "rate_limit_time_window",
        "rateLimitMax" => "rate_limit_max",
        "requestCount" => "request_count",
        "remaining" => "remaining",
        "lastRequest" => "last_request",
        "expiresAt" => "expires_at",
        "createdAt" => "created_at",
        "updatedAt" => "updated_at",
        _ => return None,
    })
}

impl From<Option<pb::ApiKeyLimits>> for Limits {
    fn from(limits: Option<pb::ApiKeyLimits>) -> Self {
        let limits = limits.unwrap_or_default();
        Limits {
            remaining: limits.remaining,
            refill_amount: limits.refill_amount,
            refill_interval_ms: limits.refill_interval_ms,
            rate_limit_enabled: limits.rate_limit_enabled,
            rate_limit_time_window_ms: limits.rate_limit_time_window_ms,
            rate_limit_max: limits.rate_limit_max,
            permissions: limits.permissions_json,
        }
    }
}

#[tonic::async_trait]
impl ApiKeyService for ApiKeys {
    async fn create_api_key(
        &self,
        request: Request<pb::CreateApiKeyRequest>,
    ) -> Result<Response<pb::CreateApiKeyResponse>, Status> {
        let r = request.into_inner();
        require("user_id", &r.user_id)?;
        let (key, plain) = ApiKeys::create(
            self,
            NewKey {
                user_id: r.user_id,
                organization_id: r.organization_id.filter(|id| !id.is_empty()),
                config_id: r.config_id,
                name: r.name,
                expires_in_secs: r.expires_in_secs,
                prefix: r.prefix,
                metadata: r.metadata_json,
                limits: r.limits.into(),
            },
        )
        .await?;
        Ok(Response::new(pb::CreateApiKeyResponse {
            api_key: Some(key.into()),
            key: plain,
        }))
    }

    async fn get_api_key(
        &self,
        request: Request<pb::GetApiKeyRequest>,
    ) -> Result<Response<pb::GetApiKeyResponse>, Status> {
        let r = request.into_inner();
        let owner = owner(&r.user_id, r.organization_id.as_deref())?;
        let key = ApiKeys::get(self, &owner, &r.id).await?;
        Ok(Response::new(pb::GetApiKeyResponse {
            api_key: Some(key.into()),
        }))
    }

    async fn list_api_keys(
        &self,
        request: Request<pb::ListApiKeysRequest>,
    ) -> Result<Response<pb::ListApiKeysResponse>, Status> {
        let r = request.into_inner();
        let owner = owner(&r.user_id, r.organization_id.as_deref())?;
        let sort = match r.sort_by.as_deref() {
            Some(field) => Some(Sort {
                column: sort_column(field).ok_or_else(|| {
                    Status::from(base::VALIDATION_ERROR.with_message(format!(
                        "[query.sortBy] Invalid option: {field:?} is not a field of an API key"
                    )))
                })?,
                descending: r.descending,
            }),
            None => None,
        };
        let (keys, total) = ApiKeys::list(
            self,
            &owner,
            sort,
            r.limit.map(u64::from),
            r.offset.map(u64::from),
        )
        .await?;
        Ok(Response::new(pb::ListApiKeysResponse {
            api_keys: keys.into_iter().map(Into::into).collect(),
            total,
        }))
    }

    async fn update_api_key(
        &self,
        request: Request<pb::UpdateApiKeyRequest>,
    ) -> Result<Response<pb::UpdateApiKeyResponse>, Status> {
        let r = request.into_inner();
        let owner = owner(&r.user_id, r.organization_id.as_deref())?;
        let expires_in_secs = if r.clear_expiry {
            Some(None)
        } else {
            r.expires_in_secs.map(Some)
        };
        let key = ApiKeys::update(
            self,
            &owner,
            &r.id,
            KeyUpdate {
                name: r.name,
                enabled: r.enabled,
                expires_in_secs,
                metadata: r.metadata_json,
                limits: r.limits.into(),
            },
        )
        .await?;
        Ok(Response::new(pb::UpdateApiKeyResponse {
            api_key: Some(key.into()),
        }))
    }

    async fn delete_api_key(
        &self,
        request: Request<pb::DeleteApiKeyRequest>,
    ) -> Result<Response<pb::DeleteApiKeyResponse>, Status> {
        let r = request.into_inner();
        let owner = owner(&r.user_id, r.organization_id.as_deref())?;
        ApiKeys::delete(self, &owner, &r.id).await?;
        Ok(Response::new(pb::DeleteApiKeyResponse {}))
    }

    async fn verify_api_key(
        &self,
        request: Request<pb::VerifyApiKeyRequest>,
    ) -> Result<Response<pb::VerifyApiKeyResponse>, Status> {
        let r = request.into_inner();
        let required: Option<Permissions> = match r.permissions_json.as_deref() {
            Some(json) => Some(serde_json::from_str(json).map_err(|_| {
                Status::from(
                    base::VALIDATION_ERROR.with_message("permissions_json is not a permission map"),
                )
            })?),
            None => None,
        };
        let (key, user) = ApiKeys::verify(self, &r.key, required.as_ref()).await?;
        Ok(Response::new(pb::VerifyApiKeyResponse {
            api_key: Some(key.into()),
            user: user.map(Into::into),
        }))
    }

    async fn get_api_key_owner(
        &self,
        request: Request<pb::GetApiKeyOwnerRequest>,
    ) -> Result<Response<pb::GetApiKeyOwnerResponse>, Status> {
        let (reference_id, organization_owned) =
            ApiKeys::owner(self, &request.into_inner().id).await?;
        Ok(Response::new(pb::GetApiKeyOwnerResponse {
            reference_id,
            organization_owned,
        }))
    }

    async fn delete_expired_api_keys(
        &self,
        _: Request<pb::DeleteExpiredApiKeysRequest>,
    ) -> Result<Response<pb::DeleteExpiredApiKeysResponse>, Status> {
        let deleted = ApiKeys::delete_expired(self).await?;
        Ok(Response::new(pb::DeleteExpiredApiKeysResponse { deleted }))
    }
}
