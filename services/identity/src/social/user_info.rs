//! Reading the user from a built-in provider, each its own way (better-auth 1.7.7's): most
//! answer a `GET` with the access token; GitHub needs a second call for the verified address,
//! X one for the confirmed one, Facebook a check that the token is ours first, and a few put
//! the user in the id token.

use serde_json::Value;
use url::Url;

use super::builtin::{Answers, BuiltIn, UserSource};
use super::config::BuiltInEndpoints;
use super::provider::{Provider, ProviderError, Tokens, claims_of};
use gatehouse_kit::config::ExposeSecret;

fn unexpected(what: &'static str, detail: impl ToString) -> ProviderError {
    ProviderError::Unexpected {
        what,
        detail: detail.to_string(),
    }
}

/// `GET url` with the access token, its JSON answer.
pub async fn get(
    http: &reqwest::Client,
    url: &Url,
    access_token: &str,
) -> Result<Value, ProviderError> {
    Ok(http
        .get(url.clone())
        .bearer_auth(access_token)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?)
}

/// `url` with `query` added.
fn with_query(url: &Url, query: &[(&str, &str)]) -> Url {
    let mut url = url.clone();
    url.query_pairs_mut().extend_pairs(query);
    url
}

/// The built-in provider's answers about the user.
pub async fn read(
    provider: &Provider,
    built_in: &BuiltInEndpoints,
    tokens: &Tokens,
    apple_user: Option<&Value>,
) -> Result<Answers, ProviderError> {
    let http = provider.http();
    let url = &built_in.user_info;
    let access_token = tokens.access_token.as_str();
    let main = match built_in.spec.user {
        UserSource::IdToken => {
            let id_token = tokens
                .id_token
                .as_deref()
                .ok_or_else(|| unexpected("token answer", "no id_token"))?;
            let claims = claims_of(id_token).ok_or_else(|| unexpected("id token", "not a JWT"))?;
            return Ok(Answers {
                main: claims,
                more: apple_user.cloned(),
            });
        }
        UserSource::Get => match built_in.spec.kind {
            BuiltIn::Tiktok => {
                let fields = [("fields", "open_id,avatar_large_url,display_name,username")];
                get(http, &with_query(url, &fields), access_token).await?
            }
            _ => get(http, url, access_token).await?,
        },
        UserSource::Post => {
            http.post(url.clone())
                .bearer_auth(access_token)
                .send()
                .await?
                .error_for_status()?
                .json()
                .await?
        }
        UserSource::PostForm => {
            let form = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("access_token", access_token)
                .append_pair("client_id", &provider.config.client_id)
                .finish();
            http.post(url.clone())
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form)
                .send()
                .await?
                .error_for_status()?
                .json()
                .await?
        }
        UserSource::GithubEmails => {
            let user = get(http, url, access_token).await?;
            let emails_url = Url::parse(&format!("{}/emails", url.as_str().trim_end_matches('/')))
                .map_err(|e| unexpected("user info", e))?;
            // Without the addresses the user still signs in, by the profile's own (if any).
            let emails = get(http, &emails_url, access_token).await.ok();
            return Ok(Answers {
                main: user,
                more: emails,
            });
        }
        UserSource::TwitterTwice => {
            let user = get(
                http,
                &with_query(url, &[("user.fields", "profile_image_url")]),
                access_token,
            )
            .await?;
            let confirmed = get(
                http,
                &with_query(url, &[("user.fields", "confirmed_email")]),
                access_token,
            )
            .await
            .ok();
            return Ok(Answers {
                main: user,
                more: confirmed,
            });
        }
        UserSource::FacebookGraph => facebook(provider, url, access_token).await?,
    };
    Ok(Answers { main, more: None })
}

/// Facebook: the token must be one Facebook issued to this app (`debug_token`), for the user
/// `/me` then describes; a token of another app would otherwise sign its user in here.
async fn facebook(
    provider: &Provider,
    me: &Url,
    access_token: &str,
) -> Result<Value, ProviderError> {
    let app_token = format!(
        "{}|{}",
        provider.config.client_id,
        provider.config.client_secret.expose_secret()
    );
    let debug_url = me
        .join("debug_token")
        .map_err(|e| unexpected("user info", e))?;
    let debug = provider
        .http()
        .get(with_query(
            &debug_url,
            &[("input_token", access_token), ("access_token", &app_token)],
        ))
        .send()
        .await?
        .error_for_status()?
        .json::<Value>()
        .await?;
    let data = &debug["data"];
    let app_id = super::profile::text(data, "app_id");
    let user_id = super::profile::text(data, "user_id");
    if data["is_valid"] != Value::Bool(true)
        || app_id.as_deref() != Some(&provider.config.client_id)
    {
        return Err(unexpected("debug_token", "the token is not this app's"));
    }
    let profile = get(
        provider.http(),
        &with_query(me, &[("fields", "id,name,email,picture")]),
        access_token,
    )
    .await?;
    if user_id.is_none() || super::profile::text(&profile, "id") != user_id {
        return Err(unexpected(
            "user info",
            "the profile is not the token's user",
        ));
    }
    Ok(profile)
}
