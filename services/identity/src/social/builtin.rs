//! better-auth's built-in providers (the spec's 18): where each is reached, what it is asked
//! for, how its code is exchanged and its user read, and how its answers map to a profile.
//! Facts from better-auth 1.7.7's `@better-auth/core/social-providers`. Every endpoint can be
//! overridden in `SOCIAL_PROVIDERS` (a self-hosted GitLab, a test stand-in).

use serde_json::Value;

use super::profile::{Profile, flag, text};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltIn {
    Apple,
    Discord,
    Facebook,
    Github,
    Microsoft,
    Google,
    Spotify,
    Twitch,
    Twitter,
    Dropbox,
    Kick,
    Linkedin,
    Gitlab,
    Tiktok,
    Reddit,
    Roblox,
    Vk,
    Zoom,
}

/// How the client proves itself at the token endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientAuth {
    /// `client_id` and `client_secret` in the body (better-auth's default).
    Post,
    /// HTTP Basic (X, Reddit).
    Basic,
    /// TikTok's `client_key` and `client_secret` in the body.
    ClientKey,
}

/// How the user is read once the code is exchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserSource {
    /// `GET` the user-info URL with the access token.
    Get,
    /// `POST` it with the access token and no body (Dropbox).
    Post,
    /// `POST` a form of `access_token` and `client_id`, no header (VK).
    PostForm,
    /// The token answer's id token (its claims; the answer came straight from the provider).
    IdToken,
    /// `/user`, then `/user/emails` for the address and whether it is verified (GitHub).
    GithubEmails,
    /// `/2/users/me` twice: the profile image, then the confirmed address (X).
    TwitterTwice,
    /// `debug_token` (is the token ours?), then `/me` with the fields (Facebook).
    FacebookGraph,
}

/// Verifying an app's id token (the `idToken` sign-in): the provider's keys and issuers.
#[derive(Clone, Copy, Debug)]
pub struct IdTokenKeys {
    pub jwks: &'static str,
    pub issuers: &'static [&'static str],
}

/// One built-in provider. `{tenant}` (Microsoft) and `{issuer}` (GitLab) in the URLs are
/// filled in from the provider's settings.
#[derive(Debug)]
pub struct Spec {
    pub kind: BuiltIn,
    pub id: &'static str,
    /// What its sign-in button says.
    pub name: &'static str,
    pub authorization: &'static str,
    pub token: &'static str,
    pub user_info: &'static str,
    pub scopes: &'static [&'static str],
    pub pkce: bool,
    pub auth: ClientAuth,
    pub user: UserSource,
    /// The `prompt` sent when none is configured.
    pub default_prompt: Option<&'static str>,
    /// Parameters every authorization request carries.
    pub authorize_params: &'static [(&'static str, &'static str)],
    pub id_token: Option<IdTokenKeys>,
}

impl PartialEq for Spec {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Spec {}

const NONE: &[(&str, &str)] = &[];

macro_rules! spec {
    ($kind:ident, $id:literal, $name:literal, $authorization:literal, $token:literal,
     $user_info:literal, [$($scope:literal),*], pkce: $pkce:literal, $auth:ident, $user:ident
     $(, prompt: $prompt:literal)? $(, params: $params:expr)? $(, id_token: $keys:expr)?) => {
        Spec {
            kind: BuiltIn::$kind,
            id: $id,
            name: $name,
            authorization: $authorization,
            token: $token,
            user_info: $user_info,
            scopes: &[$($scope),*],
            pkce: $pkce,
            auth: ClientAuth::$auth,
            user: UserSource::$user,
            default_prompt: spec!(@opt $($prompt)?),
            authorize_params: spec!(@params $($params)?),
            id_token: spec!(@opt $($keys)?),
        }
    };
    (@opt) => { None };
    (@opt $value:expr) => { Some($value) };
    (@params) => { NONE };
    (@params $value:expr) => { $value };
}

pub static SPECS: [Spec; 18] = [
    spec!(Apple, "apple", "Apple", "https://appleid.apple.com/auth/authorize",
        "https://appleid.apple.com/auth/token", "https://appleid.apple.com/auth/keys",
        ["email", "name"], pkce: true, Post, IdToken,
        params: &[("response_mode", "form_post"), ("response_type", "code id_token")],
        id_token: IdTokenKeys { jwks: "https://appleid.apple.com/auth/keys",
            issuers: &["https://appleid.apple.com"] }),
    spec!(Discord, "discord", "Discord", "https://discord.com/api/oauth2/authorize",
        "https://discord.com/api/oauth2/token", "https://discord.com/api/users/@me",
        ["identify", "email"], pkce: false, Post, Get, prompt: "none"),
    spec!(Facebook, "facebook", "Facebook", "https://www.facebook.com/v24.0/dialog/oauth",
        "https://graph.facebook.com/v24.0/oauth/access_token", "https://graph.facebook.com/me",
        ["email", "public_profile"], pkce: false, Post, FacebookGraph,
        id_token: IdTokenKeys { jwks: "https://limited.facebook.com/.well-known/oauth/openid/jwks/",
            issuers: &["https://www.facebook.com"] }),
    spec!(Github, "github", "GitHub", "https://github.com/login/oauth/authorize",
        "https://github.com/login/oauth/access_token", "https://api.github.com/user",
        ["read:user", "user:email"], pkce: true, Post, GithubEmails),
    spec!(Microsoft, "microsoft", "Microsoft",
        "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize",
        "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",
        "https://graph.microsoft.com/oidc/userinfo",
        ["openid", "profile", "email", "User.Read", "offline_access"], pkce: true, Post, IdToken,
        id_token: IdTokenKeys { jwks: "https://login.microsoftonline.com/{tenant}/discovery/v2.0/keys",
            issuers: &["https://login.microsoftonline.com/{tenant}/v2.0"] }),
    spec!(Google, "google", "Google", "https://accounts.google.com/o/oauth2/v2/auth",
        "https://oauth2.googleapis.com/token", "https://openidconnect.googleapis.com/v1/userinfo",
        ["email", "profile", "openid"], pkce: true, Post, IdToken,
        params: &[("include_granted_scopes", "true")],
        id_token: IdTokenKeys { jwks: "https://www.googleapis.com/oauth2/v3/certs",
            issuers: &["https://accounts.google.com", "accounts.google.com"] }),
    spec!(Spotify, "spotify", "Spotify", "https://accounts.spotify.com/authorize",
        "https://accounts.spotify.com/api/token", "https://api.spotify.com/v1/me",
        ["user-read-email"], pkce: true, Post, Get),
    spec!(Twitch, "twitch", "Twitch", "https://id.twitch.tv/oauth2/authorize",
        "https://id.twitch.tv/oauth2/token", "https://id.twitch.tv/oauth2/userinfo",
        ["user:read:email", "openid"], pkce: false, Post, IdToken,
        params: &[("claims", r#"{"id_token":{"email":null,"email_verified":null,"preferred_username":null,"picture":null}}"#)]),
    spec!(Twitter, "twitter", "X", "https://x.com/i/oauth2/authorize",
        "https://api.x.com/2/oauth2/token", "https://api.x.com/2/users/me",
        ["users.read", "tweet.read", "offline.access", "users.email"], pkce: true, Basic,
        TwitterTwice),
    spec!(Dropbox, "dropbox", "Dropbox", "https://www.dropbox.com/oauth2/authorize",
        "https://api.dropboxapi.com/oauth2/token",
        "https://api.dropboxapi.com/2/users/get_current_account",
        ["account_info.read"], pkce: true, Post, Post),
    spec!(Kick, "kick", "Kick", "https://id.kick.com/oauth/authorize",
        "https://id.kick.com/oauth/token", "https://api.kick.com/public/v1/users",
        ["user:read"], pkce: true, Post, Get),
    spec!(Linkedin, "linkedin", "LinkedIn", "https://www.linkedin.com/oauth/v2/authorization",
        "https://www.linkedin.com/oauth/v2/accessToken", "https://api.linkedin.com/v2/userinfo",
        ["profile", "email", "openid"], pkce: false, Post, Get),
    spec!(Gitlab, "gitlab", "GitLab", "{issuer}/oauth/authorize", "{issuer}/oauth/token",
        "{issuer}/api/v4/user", ["read_user"], pkce: true, Post, Get),
    spec!(Tiktok, "tiktok", "TikTok", "https://www.tiktok.com/v2/auth/authorize",
        "https://open.tiktokapis.com/v2/oauth/token/", "https://open.tiktokapis.com/v2/user/info/",
        ["user.info.profile"], pkce: false, ClientKey, Get),
    spec!(Reddit, "reddit", "Reddit", "https://www.reddit.com/api/v1/authorize",
        "https://www.reddit.com/api/v1/access_token", "https://oauth.reddit.com/api/v1/me",
        ["identity"], pkce: false, Basic, Get),
    spec!(Roblox, "roblox", "Roblox", "https://apis.roblox.com/oauth/v1/authorize",
        "https://apis.roblox.com/oauth/v1/token", "https://apis.roblox.com/oauth/v1/userinfo",
        ["openid", "profile"], pkce: false, Post, Get, prompt: "select_account consent"),
    spec!(Vk, "vk", "VK", "https://id.vk.com/authorize", "https://id.vk.com/oauth2/auth",
        "https://id.vk.com/oauth2/user_info", ["email", "phone"], pkce: true, Post, PostForm),
    spec!(Zoom, "zoom", "Zoom", "https://zoom.us/oauth/authorize", "https://zoom.us/oauth/token",
        "https://api.zoom.us/v2/users/me", [], pkce: true, Post, Get),
];

/// The built-in provider with this id.
pub fn spec(id: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|spec| spec.id == id)
}

/// An address for a provider that shares none (better-auth's): it reaches nobody and can
/// never be another user's.
fn placeholder(id: &str, provider: &str) -> String {
    format!("{id}@{provider}.placeholder.invalid")
}

/// Whether `email` is such a placeholder.
pub fn is_placeholder(email: &str) -> bool {
    email.ends_with(".placeholder.invalid")
}

/// The provider's answers about the user: the main one (the user-info answer, or the id
/// token's claims) and, for some, a second (GitHub's addresses, X's confirmed address,
/// Apple's first-sign-in `user` form field).
#[derive(Clone, Debug, Default)]
pub struct Answers {
    pub main: Value,
    pub more: Option<Value>,
}

/// The profile better-auth maps from a provider's answers; `None` when they do not name the
/// user (or GitLab says the account is blocked).
pub fn map(kind: BuiltIn, answers: &Answers) -> Option<Profile> {
    let main = &answers.main;
    let more = answers.more.as_ref().unwrap_or(&Value::Null);
    let s = |value: &Value, key: &str| text(value, key);
    let profile = |id: String, email: Option<String>, verified: bool, name: &str, image| {
        Some(Profile::new(id, email, verified, name, image))
    };
    match kind {
        BuiltIn::Apple => {
            let id = s(main, "sub")?;
            let given = &more["name"];
            let full = format!(
                "{} {}",
                s(given, "firstName").unwrap_or_default(),
                s(given, "lastName").unwrap_or_default()
            );
            let name = Some(full.trim().to_string())
                .filter(|n| !n.is_empty())
                .or_else(|| s(main, "name"))
                .unwrap_or_default();
            profile(
                id,
                s(main, "email"),
                flag(main, "email_verified"),
                &name,
                None,
            )
        }
        BuiltIn::Discord => {
            let id = s(main, "id")?;
            let name = s(main, "global_name").or_else(|| s(main, "username"));
            profile(
                id.clone(),
                s(main, "email"),
                flag(main, "verified"),
                &name.unwrap_or_default(),
                Some(discord_avatar(&id, main)),
            )
        }
        BuiltIn::Facebook => profile(
            s(main, "id").or_else(|| s(main, "sub"))?,
            s(main, "email"),
            flag(main, "email_verified"),
            &s(main, "name").unwrap_or_default(),
            s(&main["picture"]["data"], "url").or_else(|| s(main, "picture")),
        ),
        BuiltIn::Github => {
            let emails = more.as_array().map(Vec::as_slice).unwrap_or_default();
            let email = s(main, "email").or_else(|| {
                let primary = emails.iter().find(|e| flag(e, "primary"));
                primary.or(emails.first()).and_then(|e| s(e, "email"))
            });
            let verified = emails
                .iter()
                .find(|e| email.is_some() && s(e, "email") == email)
                .is_some_and(|e| flag(e, "verified"));
            let name = s(main, "name").or_else(|| s(main, "login"));
            profile(
                s(main, "id")?,
                email,
                verified,
                &name.unwrap_or_default(),
                s(main, "avatar_url"),
            )
        }
        BuiltIn::Microsoft => {
            let email = s(main, "email");
            let listed = |key: &str| {
                main[key].as_array().is_some_and(|list| {
                    list.iter()
                        .any(|e| e.as_str().is_some() && e.as_str() == email.as_deref())
                })
            };
            let verified = match main.get("email_verified") {
                Some(_) => flag(main, "email_verified"),
                None => listed("verified_primary_email") || listed("verified_secondary_email"),
            };
            let name = s(main, "name").unwrap_or_default();
            profile(s(main, "oid")?, email, verified, &name, None)
        }
        BuiltIn::Google | BuiltIn::Linkedin => profile(
            s(main, "sub")?,
            s(main, "email"),
            flag(main, "email_verified"),
            &s(main, "name").unwrap_or_default(),
            s(main, "picture"),
        ),
        BuiltIn::Spotify => profile(
            s(main, "id")?,
            s(main, "email"),
            false,
            &s(main, "display_name").unwrap_or_default(),
            s(&main["images"][0], "url"),
        ),
        BuiltIn::Twitch => profile(
            s(main, "sub")?,
            s(main, "email"),
            flag(main, "email_verified"),
            &s(main, "preferred_username").unwrap_or_default(),
            s(main, "picture"),
        ),
        BuiltIn::Twitter => {
            let user = &main["data"];
            let id = s(user, "id")?;
            let confirmed = s(&more["data"], "confirmed_email");
            let verified = confirmed.is_some();
            let email = confirmed.unwrap_or_else(|| placeholder(&id, "twitter"));
            let name = s(user, "name").unwrap_or_default();
            profile(
                id,
                Some(email),
                verified,
                &name,
                s(user, "profile_image_url"),
            )
        }
        BuiltIn::Dropbox => profile(
            s(main, "account_id")?,
            s(main, "email"),
            flag(main, "email_verified"),
            &s(&main["name"], "display_name").unwrap_or_default(),
            s(main, "profile_photo_url"),
        ),
        BuiltIn::Kick => {
            let user = &main["data"][0];
            profile(
                s(user, "user_id")?,
                s(user, "email"),
                false,
                &s(user, "name").unwrap_or_default(),
                s(user, "profile_picture"),
            )
        }
        BuiltIn::Gitlab => {
            let active = s(main, "state").as_deref() == Some("active");
            if !active || flag(main, "locked") {
                return None;
            }
            let name = s(main, "name").or_else(|| s(main, "username"));
            profile(
                s(main, "id")?,
                s(main, "email"),
                flag(main, "email_verified"),
                &name.unwrap_or_default(),
                s(main, "avatar_url"),
            )
        }
        BuiltIn::Tiktok => {
            let user = &main["data"]["user"];
            let id = s(user, "open_id")?;
            let email = s(user, "email").unwrap_or_else(|| placeholder(&id, "tiktok"));
            let name = s(user, "display_name").or_else(|| s(user, "username"));
            let image = s(user, "avatar_large_url");
            profile(id, Some(email), false, &name.unwrap_or_default(), image)
        }
        BuiltIn::Reddit => {
            let id = s(main, "id")?;
            let image = s(main, "icon_img").map(|url| url.split('?').next().unwrap_or("").into());
            let name = s(main, "name").unwrap_or_default();
            profile(
                id.clone(),
                Some(placeholder(&id, "reddit")),
                false,
                &name,
                image,
            )
        }
        BuiltIn::Roblox => {
            let id = s(main, "sub")?;
            let name = s(main, "nickname").or_else(|| s(main, "preferred_username"));
            let email = Some(placeholder(&id, "roblox"));
            profile(
                id,
                email,
                false,
                &name.unwrap_or_default(),
                s(main, "picture"),
            )
        }
        BuiltIn::Vk => {
            let user = &main["user"];
            let name = format!(
                "{} {}",
                s(user, "first_name").unwrap_or_default(),
                s(user, "last_name").unwrap_or_default()
            );
            profile(
                s(user, "user_id")?,
                s(user, "email"),
                false,
                &name,
                s(user, "avatar"),
            )
        }
        BuiltIn::Zoom => {
            let verified = match main.get("verified") {
                Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0),
                Some(Value::Bool(b)) => *b,
                _ => false,
            };
            profile(
                s(main, "id")?,
                s(main, "email"),
                verified,
                &s(main, "display_name").unwrap_or_default(),
                s(main, "pic_url"),
            )
        }
    }
}

/// Discord's avatar URL: the user's own, or the default one their id or tag picks.
fn discord_avatar(id: &str, user: &Value) -> String {
    match text(user, "avatar") {
        Some(avatar) => {
            let extension = if avatar.starts_with("a_") {
                "gif"
            } else {
                "png"
            };
            format!("https://cdn.discordapp.com/avatars/{id}/{avatar}.{extension}")
        }
        None => {
            let index = match text(user, "discriminator").as_deref() {
                None | Some("0") => id.parse::<u64>().map_or(0, |id| (id >> 22) % 6),
                Some(tag) => tag.parse::<u64>().map_or(0, |tag| tag % 5),
            };
            format!("https://cdn.discordapp.com/embed/avatars/{index}.png")
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn mapped(kind: BuiltIn, main: Value, more: Option<Value>) -> Profile {
        map(kind, &Answers { main, more }).unwrap()
    }

    #[test]
    fn every_built_in_is_specified_once() {
        for spec in &SPECS {
            assert_eq!(super::spec(spec.id).map(|s| s.kind), Some(spec.kind));
        }
        assert_eq!(SPECS.len(), 18);
    }

    #[test]
    fn github_takes_the_primary_address_and_its_verification() {
        let emails = json!([{"email": "Other@x.dev", "primary": false, "verified": true},
            {"email": "octo@x.dev", "primary": true, "verified": true}]);
        let user = json!({"id": 1, "login": "octo", "name": null, "email": null, "avatar_url": "https://a/1"});
        let octo = mapped(BuiltIn::Github, user.clone(), Some(emails));
        assert_eq!((octo.id.as_str(), octo.name.as_str()), ("1", "octo"));
        assert_eq!(
            (octo.email.as_deref(), octo.email_verified),
            (Some("octo@x.dev"), true)
        );
        let unverified = json!([{"email": "octo@x.dev", "primary": true, "verified": false}]);
        assert!(!mapped(BuiltIn::Github, user, Some(unverified)).email_verified);
    }

    #[test]
    fn providers_without_addresses_get_placeholders_never_verified() {
        let reddit = mapped(
            BuiltIn::Reddit,
            json!({"id": "t2abc", "name": "n", "icon_img": "https://i/x.png?s=1"}),
            None,
        );
        assert_eq!(
            reddit.email.as_deref(),
            Some("t2abc@reddit.placeholder.invalid")
        );
        assert!(!reddit.email_verified && is_placeholder(reddit.email.as_deref().unwrap()));
        assert_eq!(reddit.image.as_deref(), Some("https://i/x.png"));
        let x = mapped(
            BuiltIn::Twitter,
            json!({"data": {"id": "42", "name": "N"}}),
            Some(json!({"data": {"id": "42", "confirmed_email": "n@x.com"}})),
        );
        assert_eq!(
            (x.email.as_deref(), x.email_verified),
            (Some("n@x.com"), true)
        );
    }

    #[test]
    fn microsoft_is_its_oid_and_discord_draws_a_default_avatar() {
        let ms = mapped(
            BuiltIn::Microsoft,
            json!({"sub": "pairwise", "oid": "00000000-1", "email": "a@contoso.com",
                "verified_primary_email": ["a@contoso.com"], "name": "A"}),
            None,
        );
        assert_eq!((ms.id.as_str(), ms.email_verified), ("00000000-1", true));
        assert!(
            map(
                BuiltIn::Microsoft,
                &Answers {
                    main: json!({"sub": "s"}),
                    more: None
                }
            )
            .is_none()
        );
        let discord = mapped(
            BuiltIn::Discord,
            json!({"id": "80351110224678912", "username": "u", "global_name": null,
                "discriminator": "0", "avatar": null, "email": "d@x.com", "verified": true}),
            None,
        );
        assert_eq!(discord.name, "u");
        assert_eq!(
            discord.image.as_deref(),
            Some("https://cdn.discordapp.com/embed/avatars/5.png")
        );
    }

    #[test]
    fn apple_names_come_from_the_first_sign_in_and_gitlab_refuses_blocked_accounts() {
        let apple = mapped(
            BuiltIn::Apple,
            json!({"sub": "001.a", "email": "a@privaterelay.appleid.com", "email_verified": "true"}),
            Some(json!({"name": {"firstName": "Ann", "lastName": "Lee"}})),
        );
        assert_eq!(
            (apple.name.as_str(), apple.email_verified),
            ("Ann Lee", true)
        );
        let blocked = json!({"id": 7, "username": "u", "state": "blocked", "email": "g@x.com"});
        assert!(
            map(
                BuiltIn::Gitlab,
                &Answers {
                    main: blocked,
                    more: None
                }
            )
            .is_none()
        );
    }
}
