//! The `captcha` group: `GET /captcha`, what the web app needs to show the provider's widget on
//! the guarded forms (not better-auth's: its apps configure the widget in their own code; here
//! it comes from `CAPTCHA_*`). The check itself runs before every guarded route
//! ([`crate::captcha`]).

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::Group;
use crate::config::CaptchaProvider;
use crate::error::ApiError;
use crate::openapi::QueryErrors;
use crate::policy::Policy;
use crate::reply::Reply;
use crate::state::AppState;

pub fn router() -> Group {
    Group::new().route(route!(captcha_config), Policy::DEFAULT)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaptchaConfig {
    /// `null` when captcha is off.
    provider: Option<CaptchaProvider>,
    /// The widget's public site key.
    site_key: Option<String>,
    /// The guarded paths below `/api/auth` (`*` for any run of characters): requests to them
    /// carry the widget's token in `x-captcha-response`.
    endpoints: Vec<String>,
}

/// The captcha provider and its public site key, for the sign-in screens.
#[utoipa::path(get, path = "/captcha", tag = "captcha",
    responses((status = 200, body = CaptchaConfig, description = "The provider, or `null` when captcha is off"), QueryErrors))]
async fn captcha_config(State(state): State<AppState>) -> Result<Reply, ApiError> {
    let config = match &state.captcha {
        Some(captcha) => {
            let settings = captcha.settings();
            CaptchaConfig {
                provider: Some(settings.provider),
                site_key: settings.site_key.clone(),
                endpoints: settings.endpoints.clone(),
            }
        }
        None => CaptchaConfig {
            provider: None,
            site_key: None,
            endpoints: Vec::new(),
        },
    };
    Ok(Reply::json(&config))
}
