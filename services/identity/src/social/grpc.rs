//! `gatehouse.identity.v1.SocialService`.

use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::social_service_server::{SocialService, SocialServiceServer};
use tonic::{Request, Response, Status};

use super::id_token::IdTokenSignIn;
use super::tokens::AccountSelector;
use super::{Callback, Finished, Social, Start};

pub fn server(social: Social) -> SocialServiceServer<Social> {
    SocialServiceServer::new(social)
}

fn nonempty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.is_empty())
}

/// The request's user and account; one named by neither field is none of theirs.
fn selected(r: Option<pb::ProviderAccount>) -> Result<(String, AccountSelector), Status> {
    let r = r.unwrap_or_default();
    if r.user_id.is_empty() {
        return Err(base::VALIDATION_ERROR
            .with_message("user_id is required")
            .into());
    }
    let selector = AccountSelector::from_parts(nonempty(r.provider_id), nonempty(r.account_id))
        .ok_or(base::ACCOUNT_NOT_FOUND)?;
    Ok((r.user_id, selector))
}

fn unix_ms(at: Option<chrono::DateTime<chrono::Utc>>) -> Option<i64> {
    at.map(|at| at.timestamp_millis())
}

#[tonic::async_trait]
impl SocialService for Social {
    async fn list_providers(
        &self,
        _: Request<pb::ListProvidersRequest>,
    ) -> Result<Response<pb::ListProvidersResponse>, Status> {
        let providers = self
            .providers
            .values()
            .map(|provider| pb::SocialProvider {
                id: provider.config.id.clone(),
                name: provider.display_name().to_string(),
            })
            .collect();
        Ok(Response::new(pb::ListProvidersResponse { providers }))
    }

    async fn start_social_sign_in(
        &self,
        request: Request<pb::StartSocialSignInRequest>,
    ) -> Result<Response<pb::StartSocialSignInResponse>, Status> {
        let r = request.into_inner();
        if r.redirect_uri.is_empty() || r.callback_url.is_empty() {
            return Err(base::VALIDATION_ERROR
                .with_message("redirect_uri and callback_url are required")
                .into());
        }
        let (url, state) = self
            .start(Start {
                provider_id: r.provider_id,
                callback_url: r.callback_url,
                new_user_callback_url: nonempty(r.new_user_callback_url),
                error_callback_url: nonempty(r.error_callback_url),
                scopes: r.scopes,
                login_hint: nonempty(r.login_hint),
                additional_params: r.additional_params.into_iter().collect(),
                request_sign_up: r.request_sign_up,
                redirect_uri: r.redirect_uri,
                link_user_id: nonempty(r.link_user_id),
                language: r.language,
            })
            .await?;
        Ok(Response::new(pb::StartSocialSignInResponse { url, state }))
    }

    async fn unlink_account(
        &self,
        request: Request<pb::UnlinkAccountRequest>,
    ) -> Result<Response<pb::UnlinkAccountResponse>, Status> {
        let r = request.into_inner();
        if r.user_id.is_empty() {
            return Err(base::VALIDATION_ERROR
                .with_message("user_id is required")
                .into());
        }
        self.unlink(
            &r.user_id,
            nonempty(r.provider_id).as_deref(),
            nonempty(r.account_id).as_deref(),
        )
        .await?;
        Ok(Response::new(pb::UnlinkAccountResponse {}))
    }

    async fn finish_social_sign_in(
        &self,
        request: Request<pb::FinishSocialSignInRequest>,
    ) -> Result<Response<pb::FinishSocialSignInResponse>, Status> {
        let r = request.into_inner();
        let finished = self
            .finish(Callback {
                provider_id: r.provider_id,
                state: r.state,
                state_cookie_matches: r.state_cookie_matches,
                code: r.code,
                error: r.error,
                error_description: r.error_description,
                iss: r.iss,
                redirect_uri: r.redirect_uri,
                device_id: nonempty(r.device_id),
                user: nonempty(r.user),
            })
            .await?;
        Ok(Response::new(match finished {
            Finished::SignedIn {
                user,
                new_user,
                redirect_to,
            } => pb::FinishSocialSignInResponse {
                user: Some(user.into()),
                new_user,
                redirect_to,
                ..Default::default()
            },
            Finished::Linked { redirect_to } => pb::FinishSocialSignInResponse {
                redirect_to,
                linked: true,
                ..Default::default()
            },
            Finished::Refused {
                error,
                description,
                redirect_to,
            } => pb::FinishSocialSignInResponse {
                redirect_to,
                error: Some(error),
                error_description: Some(description),
                ..Default::default()
            },
        }))
    }

    async fn sign_in_with_id_token(
        &self,
        request: Request<pb::SignInWithIdTokenRequest>,
    ) -> Result<Response<pb::SignInWithIdTokenResponse>, Status> {
        let r = request.into_inner();
        let sign_in = IdTokenSignIn {
            provider_id: r.provider_id,
            token: r.token,
            nonce: nonempty(r.nonce),
            access_token: nonempty(r.access_token),
            request_sign_up: r.request_sign_up,
            language: r.language,
        };
        if let Some(user_id) = nonempty(r.link_user_id) {
            let user = crate::user::store::get(&self.db, &user_id)
                .await
                .map_err(crate::error::IdentityError::from)?
                .ok_or(base::USER_NOT_FOUND)?;
            self.link_with_id_token(&user, sign_in).await?;
            return Ok(Response::new(pb::SignInWithIdTokenResponse::default()));
        }
        let (user, new_user) = self.sign_in_with_id_token(sign_in).await?;
        Ok(Response::new(pb::SignInWithIdTokenResponse {
            user: Some(user.into()),
            new_user,
        }))
    }

    async fn get_access_token(
        &self,
        request: Request<pb::GetAccessTokenRequest>,
    ) -> Result<Response<pb::GetAccessTokenResponse>, Status> {
        let (user_id, selector) = selected(request.into_inner().account)?;
        let token = self.access_token(&user_id, &selector).await?;
        Ok(Response::new(pb::GetAccessTokenResponse {
            access_token: token.access_token,
            access_token_expires_at_unix_ms: unix_ms(token.access_token_expires_at),
            scopes: token.scopes,
            id_token: token.id_token,
        }))
    }

    async fn refresh_token(
        &self,
        request: Request<pb::RefreshTokenRequest>,
    ) -> Result<Response<pb::RefreshTokenResponse>, Status> {
        let (user_id, selector) = selected(request.into_inner().account)?;
        let refreshed = Social::refresh_token(self, &user_id, &selector).await?;
        let tokens = refreshed.tokens;
        Ok(Response::new(pb::RefreshTokenResponse {
            access_token: tokens.access_token,
            refresh_token: tokens.refresh_token,
            access_token_expires_at_unix_ms: unix_ms(tokens.access_token_expires_at),
            refresh_token_expires_at_unix_ms: unix_ms(tokens.refresh_token_expires_at),
            scope: refreshed.scope,
            id_token: tokens.id_token,
            provider_id: refreshed.provider_id,
            account_id: refreshed.account_id,
        }))
    }

    async fn get_account_info(
        &self,
        request: Request<pb::GetAccountInfoRequest>,
    ) -> Result<Response<pb::GetAccountInfoResponse>, Status> {
        let (user_id, selector) = selected(request.into_inner().account)?;
        let info = self.account_info(&user_id, &selector).await?;
        let profile = info.profile;
        Ok(Response::new(pb::GetAccountInfoResponse {
            account: Some(info.account.into()),
            profile_json: info.data.to_string(),
            user: Some(pb::ProviderProfile {
                id: profile.id,
                name: profile.name,
                email: profile.email,
                image: profile.image,
                email_verified: profile.email_verified,
            }),
        }))
    }
}
