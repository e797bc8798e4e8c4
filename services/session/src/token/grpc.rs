//! `gatehouse.session.v1.TokenService`.

use gatehouse_kit::sealing::SealingKey;
use gatehouse_proto::session::v1 as pb;
use gatehouse_proto::session::v1::token_service_server::{TokenService, TokenServiceServer};
use tonic::{Request, Response, Status};

use super::SigningKeys;

/// What the private key is sealed to on its way to the gateway.
pub const SEALING_CONTEXT: &str = "session.v1.SigningKey.sealed_private_key";

pub fn server(keys: SigningKeys, sealing: SealingKey) -> TokenServiceServer<TokenGrpc> {
    TokenServiceServer::new(TokenGrpc { keys, sealing })
}

pub struct TokenGrpc {
    keys: SigningKeys,
    sealing: SealingKey,
}

#[tonic::async_trait]
impl TokenService for TokenGrpc {
    async fn get_signing_keys(
        &self,
        _request: Request<pb::GetSigningKeysRequest>,
    ) -> Result<Response<pb::GetSigningKeysResponse>, Status> {
        let loaded = self.keys.load().await?;
        let current = &loaded.current;
        let now = gatehouse_kit::ids::now();
        Ok(Response::new(pb::GetSigningKeysResponse {
            current: Some(pb::SigningKey {
                id: current.id.clone(),
                alg: current.alg.as_str().to_string(),
                sealed_private_key: self.sealing.seal(SEALING_CONTEXT, &current.pkcs8),
                signs_for_ms: (current.expires_at - now).num_milliseconds().max(0),
            }),
            key_set_json: loaded.key_set_json.to_string(),
            // At least a second: a key due this instant is replaced by the next call anyway.
            refresh_in_ms: (loaded.refresh_at - now).num_milliseconds().max(1_000),
        }))
    }

    async fn verify_token(
        &self,
        request: Request<pb::VerifyTokenRequest>,
    ) -> Result<Response<pb::VerifyTokenResponse>, Status> {
        let claims = self.keys.verify(&request.into_inner().token).await?;
        Ok(Response::new(pb::VerifyTokenResponse {
            subject: claims["sub"].as_str().unwrap_or_default().to_string(),
            claims_json: claims.to_string(),
        }))
    }
}
