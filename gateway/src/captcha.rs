//! Captcha on the guarded routes (better-auth's captcha plugin): a request to one of
//! `CAPTCHA_ENDPOINTS` carries the provider's token in `x-captcha-response`, which is checked
//! with the provider's siteverify before the route runs. Missing: `400 MISSING_RESPONSE`;
//! refused: `403 VERIFICATION_FAILED`; the provider unreachable, slow past the timeout or
//! answering nonsense: `500 UNKNOWN_ERROR`, failing closed. Each provider's request is the
//! plugin's, byte for byte: Turnstile takes JSON, reCAPTCHA and hCaptcha a form.

use axum::http::HeaderMap;
use gatehouse_kit::errors::captcha;
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};

use crate::client_ip::ClientIp;
use crate::config::{CaptchaProvider, CaptchaSettings};
use crate::error::ApiError;

/// The header the token comes in.
pub const HEADER: &str = "x-captcha-response";
/// A token longer than this is refused without asking the provider (theirs are about 2 KB).
const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// The check, with its HTTP client (connections to the provider are reused).
pub struct Captcha {
    settings: CaptchaSettings,
    http: reqwest::Client,
}

/// What a siteverify answers, as far as the decision goes.
#[derive(Deserialize)]
struct Verdict {
    success: bool,
    /// reCAPTCHA v3 only: 1.0 is very likely a person.
    score: Option<f64>,
    #[serde(rename = "error-codes", default)]
    error_codes: Vec<String>,
}

#[derive(Serialize)]
struct Form<'a> {
    secret: &'a str,
    response: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sitekey: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    remoteip: Option<String>,
}

impl Captcha {
    pub fn new(settings: CaptchaSettings) -> Self {
        Self {
            settings,
            http: reqwest::Client::new(),
        }
    }

    pub fn settings(&self) -> &CaptchaSettings {
        &self.settings
    }

    /// Whether `path` (a route below `/api/auth`) is guarded. A route registered as another's
    /// alias ([`crate::policy::Policy::alias_of`]) is asked under both names, or the alias would
    /// be the way around the check.
    pub fn guards(&self, path: &str) -> bool {
        self.settings
            .endpoints
            .iter()
            .any(|endpoint| matches_pattern(endpoint, path))
    }

    /// Checks the request's token with the provider.
    pub async fn check(&self, headers: &HeaderMap, client: ClientIp) -> Result<(), ApiError> {
        let token = headers
            .get(HEADER)
            .and_then(|value| value.to_str().ok())
            .filter(|token| !token.is_empty())
            .ok_or(captcha::MISSING_RESPONSE)?;
        if token.len() > MAX_TOKEN_BYTES {
            return Err(captcha::VERIFICATION_FAILED.into());
        }
        let verdict = self.ask(token, client).await.map_err(|reason| {
            tracing::error!(provider = %self.settings.provider, %reason, "captcha provider unusable: refusing");
            metrics::counter!("captcha_checks_total", "outcome" => "unavailable").increment(1);
            ApiError::from(captcha::UNKNOWN_ERROR)
        })?;
        let low_score = self.settings.provider == CaptchaProvider::GoogleRecaptcha
            && verdict
                .score
                .is_some_and(|score| score < self.settings.min_score);
        if !verdict.success || low_score {
            tracing::info!(provider = %self.settings.provider, errors = ?verdict.error_codes, score = ?verdict.score, "captcha refused");
            metrics::counter!("captcha_checks_total", "outcome" => "refused").increment(1);
            return Err(captcha::VERIFICATION_FAILED.into());
        }
        metrics::counter!("captcha_checks_total", "outcome" => "passed").increment(1);
        Ok(())
    }

    async fn ask(&self, token: &str, client: ClientIp) -> Result<Verdict, String> {
        let s = &self.settings;
        let secret = s.secret_key.expose_secret();
        let remoteip = client.0.map(|ip| ip.to_string());
        let request = self.http.post(s.site_verify_url.clone()).timeout(s.timeout);
        let request = match s.provider {
            CaptchaProvider::CloudflareTurnstile => request.json(&Form {
                secret,
                response: token,
                sitekey: None,
                remoteip,
            }),
            CaptchaProvider::GoogleRecaptcha | CaptchaProvider::Hcaptcha => {
                let sitekey = match s.provider {
                    CaptchaProvider::Hcaptcha => s.site_key.as_deref(),
                    _ => None,
                };
                let form = serde_urlencoded::to_string(Form {
                    secret,
                    response: token,
                    sitekey,
                    remoteip,
                })
                .map_err(|e| e.to_string())?;
                request
                    .header(
                        reqwest::header::CONTENT_TYPE,
                        "application/x-www-form-urlencoded",
                    )
                    .body(form)
            }
        };
        let response = request.send().await.map_err(|e| {
            if e.is_timeout() {
                format!("no answer within {:?}", s.timeout)
            } else {
                format!("{e}: {:?}", std::error::Error::source(&e))
            }
        })?;
        if !response.status().is_success() {
            return Err(format!("siteverify answered {}", response.status()));
        }
        response
            .json::<Verdict>()
            .await
            .map_err(|e| format!("siteverify answered no verdict: {e}"))
    }
}

/// better-auth's endpoint patterns: exact, or with `*` standing for any run of characters.
fn matches_pattern(pattern: &str, path: &str) -> bool {
    let Some((head, rest)) = pattern.split_once('*') else {
        return pattern == path;
    };
    let Some(mut remaining) = path.strip_prefix(head) else {
        return false;
    };
    let mut parts = rest.split('*').peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            return remaining.ends_with(part);
        }
        match remaining.find(part) {
            Some(at) => remaining = &remaining[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::matches_pattern;

    #[test]
    fn patterns_match_exactly_or_by_wildcard() {
        assert!(matches_pattern("/sign-in/email", "/sign-in/email"));
        assert!(!matches_pattern("/sign-in/email", "/sign-in/email/x"));
        assert!(matches_pattern("/sign-in/*", "/sign-in/username"));
        assert!(matches_pattern("/sign-in/*", "/sign-in/social"));
        assert!(!matches_pattern("/sign-in/*", "/sign-up/email"));
        assert!(matches_pattern("/*/email", "/sign-up/email"));
        assert!(matches_pattern("*", "/anything"));
        assert!(!matches_pattern("/*/email", "/sign-up/username"));
    }
}
