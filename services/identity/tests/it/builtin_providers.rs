//! Each of better-auth's 18 built-in providers, driven through `Social::start` → its API's
//! local stand-in (`stand_in.rs`, the endpoints overridden in `SOCIAL_PROVIDERS`) →
//! `Social::finish`: what the authorization URL asks for, how the code is exchanged, how the
//! user is read, and who signs in, as better-auth 1.7.7 does it (its facts:
//! `/work/notes/providers.md`); then the refusals (a blocked GitLab account, another app's
//! Facebook token, a refused code, an address nobody verified).

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use gatehouse_identity::social::config::{AccountLinking, providers};
use gatehouse_identity::social::tokens::VAULT_PURPOSE;
use gatehouse_identity::social::{Callback, Finished, Social, Start};
use gatehouse_identity::user::User;
use gatehouse_kit::auth_secret::AuthSecrets;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, query};
use rstest::rstest;
use serde_json::{Value, json};

use crate::common::{Setup, count, setup};
use crate::social::{AUTH_SECRET, signed_in};
use crate::stand_in::{Seen, StandIn, consent};

/// In a case's `authorize`: the parameter is not sent at all.
const ABSENT: &str = "";

/// How the client proves itself at the token endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Auth {
    /// `client_id` and `client_secret` in the form.
    Post,
    /// HTTP Basic, nothing of the client in the form (X, Reddit).
    Basic,
    /// TikTok's `client_key` and `client_secret` in the form.
    ClientKey,
}

/// One provider: its configuration, what it answers, and what must happen.
struct Case {
    id: &'static str,
    /// The `userInfoUrl`'s path under the provider's prefix.
    user_info: &'static str,
    /// More fields of its `SOCIAL_PROVIDERS` entry (`,"clientKey":"…"`).
    config: &'static str,
    /// The authorization URL's parameters besides `response_type=code`, `client_id`, `state`,
    /// `redirect_uri` and PKCE's (a value [`ABSENT`]: that one is not sent).
    authorize: &'static [(&'static str, &'static str)],
    pkce: bool,
    auth: Auth,
    /// The token endpoint's answer, its `access_token` (`at-<id>`) added.
    token: Value,
    /// The API's answers, by path (and query) under the provider's prefix.
    answers: Value,
    /// The requests for the user, in order, as [`described`].
    reads: &'static [&'static str],
    /// The new user (`name`, `email`, `email_verified`, `image`) and the account's `account_id`.
    expect: Value,
    /// The address is not verified: the sign-up needs the provider trusted.
    trusted: bool,
}

/// An id token as the code flow reads it (decoded, never verified): unsigned is enough.
fn jwt(claims: Value) -> String {
    let part = |value: Value| URL_SAFE_NO_PAD.encode(value.to_string());
    let header = part(json!({"alg": "RS256", "kid": "k1"}));
    format!("{header}.{}.sig", part(claims))
}

fn with_id_token(claims: Value) -> Value {
    json!({"token_type": "Bearer", "expires_in": 3600, "id_token": jwt(claims)})
}

const TWITCH_CLAIMS: &str =
    r#"{"id_token":{"email":null,"email_verified":null,"preferred_username":null,"picture":null}}"#;

/// Each provider as better-auth 1.7.7 drives it, with its API's answers (notes, section 3).
fn case(id: &'static str) -> Case {
    let base = Case {
        id,
        user_info: "/userinfo",
        config: "",
        authorize: &[],
        pkce: false,
        auth: Auth::Post,
        token: json!({"token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt"}),
        answers: json!({}),
        reads: &[],
        expect: Value::Null,
        trusted: false,
    };
    match id {
        "apple" => Case {
            authorize: &[
                ("response_type", "code id_token"),
                ("scope", "email name"),
                ("response_mode", "form_post"),
            ],
            pkce: true,
            token: with_id_token(json!({"iss": "https://appleid.apple.com",
                "sub": "001.apple", "aud": "apple-client",
                "email": "Ann.Lee@PrivateRelay.AppleID.com", "email_verified": "true"})),
            expect: json!({"name": "Ann Lee", "email": "ann.lee@privaterelay.appleid.com",
                "email_verified": true, "image": null, "account_id": "001.apple"}),
            ..base
        },
        "discord" => Case {
            user_info: "/users/@me",
            authorize: &[("scope", "identify email"), ("prompt", "none")],
            answers: json!({"/users/@me": {"id": "80351110224678912", "username": "dee",
                "global_name": "Dee", "discriminator": "0", "avatar": "a_1f2e",
                "email": "Dee@Example.com", "verified": true}}),
            reads: &["GET /users/@me bearer"],
            expect: json!({"name": "Dee", "email": "dee@example.com", "email_verified": true,
                "image": "https://cdn.discordapp.com/avatars/80351110224678912/a_1f2e.gif",
                "account_id": "80351110224678912"}),
            ..base
        },
        "facebook" => Case {
            user_info: "/me",
            authorize: &[("scope", "email public_profile")],
            token: json!({"token_type": "bearer", "expires_in": 5183944}),
            answers: json!({
                "/debug_token": {"data": {"is_valid": true, "app_id": "facebook-client",
                    "user_id": "123"}},
                "/me": {"id": "123", "name": "Fay", "email": "Fay@Example.com",
                    "picture": {"data": {"url": "https://graph.example/fay.jpg"}}}}),
            reads: &[
                // The app's own token (`<clientId>|<clientSecret>`) asks, not the user's.
                concat!(
                    "GET /debug_token?input_token=at-facebook",
                    "&access_token=facebook-client|facebook-secret -"
                ),
                "GET /me?fields=id,name,email,picture bearer",
            ],
            // The Graph API says nothing of verification: unverified, as better-auth's.
            expect: json!({"name": "Fay", "email": "fay@example.com", "email_verified": false,
                "image": "https://graph.example/fay.jpg", "account_id": "123"}),
            trusted: true,
            ..base
        },
        "github" => Case {
            user_info: "/user",
            authorize: &[("scope", "read:user user:email")],
            pkce: true,
            token: json!({"token_type": "bearer", "scope": "read:user,user:email"}),
            answers: json!({
                "/user": {"id": 1, "login": "octo", "name": null, "email": null,
                    "avatar_url": "https://avatars.example/u/1"},
                "/user/emails": [
                    {"email": "other@example.com", "primary": false, "verified": false},
                    {"email": "Octo@Example.com", "primary": true, "verified": true}]}),
            reads: &["GET /user bearer", "GET /user/emails bearer"],
            expect: json!({"name": "octo", "email": "octo@example.com", "email_verified": true,
                "image": "https://avatars.example/u/1", "account_id": "1"}),
            ..base
        },
        "microsoft" => Case {
            authorize: &[("scope", "openid profile email User.Read offline_access")],
            pkce: true,
            token: with_id_token(json!({"oid": "00000000-0000-0000-66f3-3332eca7ea81",
                "sub": "pairwise", "tid": "9188040d-6c67-4c5b-b112-36a304b66dad",
                "email": "Max@Contoso.com", "name": "Max",
                "verified_primary_email": ["Max@Contoso.com"]})),
            expect: json!({"name": "Max", "email": "max@contoso.com", "email_verified": true,
                "image": null, "account_id": "00000000-0000-0000-66f3-3332eca7ea81"}),
            ..base
        },
        "google" => Case {
            authorize: &[
                ("scope", "email profile openid"),
                ("include_granted_scopes", "true"),
            ],
            pkce: true,
            token: with_id_token(json!({"iss": "https://accounts.google.com",
                "aud": "google-client", "sub": "1089", "email": "Gia@Gmail.com",
                "email_verified": true, "name": "Gia", "picture": "https://lh3.example/gia"})),
            expect: json!({"name": "Gia", "email": "gia@gmail.com", "email_verified": true,
                "image": "https://lh3.example/gia", "account_id": "1089"}),
            ..base
        },
        "spotify" => Case {
            user_info: "/v1/me",
            authorize: &[("scope", "user-read-email")],
            pkce: true,
            answers: json!({"/v1/me": {"id": "u1", "display_name": "Sam",
                "email": "Sam@Example.com", "images": [{"url": "https://i.scdn.example/sam"}]}}),
            reads: &["GET /v1/me bearer"],
            expect: json!({"name": "Sam", "email": "sam@example.com", "email_verified": false,
                "image": "https://i.scdn.example/sam", "account_id": "u1"}),
            trusted: true,
            ..base
        },
        "twitch" => Case {
            authorize: &[
                ("scope", "user:read:email openid"),
                ("claims", TWITCH_CLAIMS),
            ],
            // Twitch's own answer: its `scope` is a JSON array.
            token: json!({"token_type": "bearer", "expires_in": 14373, "refresh_token": "rt",
                "scope": ["openid", "user:read:email"],
                "id_token": jwt(json!({"sub": "t-1", "email": "Tia@Example.com",
                    "email_verified": true, "preferred_username": "Tia",
                    "picture": "https://static-cdn.example/tia.png"}))}),
            expect: json!({"name": "Tia", "email": "tia@example.com", "email_verified": true,
                "image": "https://static-cdn.example/tia.png", "account_id": "t-1"}),
            ..base
        },
        "twitter" => Case {
            user_info: "/2/users/me",
            authorize: &[("scope", "users.read tweet.read offline.access users.email")],
            pkce: true,
            auth: Auth::Basic,
            answers: json!({
                "/2/users/me?user.fields=profile_image_url": {"data": {"id": "42", "name": "Xa",
                    "username": "xa", "profile_image_url": "https://pbs.example/xa.jpg"}},
                "/2/users/me?user.fields=confirmed_email": {"data": {"id": "42", "name": "Xa",
                    "username": "xa", "confirmed_email": "Xa@Example.com"}}}),
            reads: &[
                "GET /2/users/me?user.fields=profile_image_url bearer",
                "GET /2/users/me?user.fields=confirmed_email bearer",
            ],
            expect: json!({"name": "Xa", "email": "xa@example.com", "email_verified": true,
                "image": "https://pbs.example/xa.jpg", "account_id": "42"}),
            ..base
        },
        "dropbox" => Case {
            user_info: "/2/users/get_current_account",
            authorize: &[("scope", "account_info.read")],
            pkce: true,
            answers: json!({"/2/users/get_current_account": {"account_id": "dbid:AAH4f99",
                "name": {"display_name": "Dot"}, "email": "Dot@Example.com",
                "email_verified": true, "profile_photo_url": "https://dl.example/dot.jpg"}}),
            reads: &["POST /2/users/get_current_account bearer"],
            expect: json!({"name": "Dot", "email": "dot@example.com", "email_verified": true,
                "image": "https://dl.example/dot.jpg", "account_id": "dbid:AAH4f99"}),
            ..base
        },
        "kick" => Case {
            user_info: "/public/v1/users",
            authorize: &[("scope", "user:read")],
            pkce: true,
            answers: json!({"/public/v1/users": {"data": [{"user_id": 123, "name": "Kit",
                "email": "Kit@Example.com", "profile_picture": "https://kick.example/kit.png"}]}}),
            reads: &["GET /public/v1/users bearer"],
            expect: json!({"name": "Kit", "email": "kit@example.com", "email_verified": false,
                "image": "https://kick.example/kit.png", "account_id": "123"}),
            trusted: true,
            ..base
        },
        "linkedin" => Case {
            user_info: "/v2/userinfo",
            authorize: &[("scope", "profile email openid")],
            answers: json!({"/v2/userinfo": {"sub": "li-abc", "name": "Lin",
                "email": "Lin@Example.com", "email_verified": true,
                "picture": "https://media.licdn.example/lin"}}),
            reads: &["GET /v2/userinfo bearer"],
            expect: json!({"name": "Lin", "email": "lin@example.com", "email_verified": true,
                "image": "https://media.licdn.example/lin", "account_id": "li-abc"}),
            ..base
        },
        "gitlab" => Case {
            user_info: "/api/v4/user",
            authorize: &[("scope", "read_user")],
            pkce: true,
            // GitLab's `/user` has no `email_verified`: unverified, as better-auth's default.
            answers: json!({"/api/v4/user": {"id": 7, "username": "gil", "name": "Gil",
                "email": "Gil@Example.com", "avatar_url": "https://gitlab.example/gil.png",
                "state": "active", "locked": false}}),
            reads: &["GET /api/v4/user bearer"],
            expect: json!({"name": "Gil", "email": "gil@example.com", "email_verified": false,
                "image": "https://gitlab.example/gil.png", "account_id": "7"}),
            trusted: true,
            ..base
        },
        "tiktok" => Case {
            user_info: "/v2/user/info/",
            config: r#","clientKey":"tiktok-key","scopes":["video.list"]"#,
            authorize: &[
                ("client_id", ABSENT),
                ("client_key", "tiktok-key"),
                ("scope", "user.info.profile,video.list"),
            ],
            auth: Auth::ClientKey,
            token: json!({"token_type": "Bearer", "expires_in": 86400, "open_id": "oid-1",
                "refresh_token": "rt", "refresh_expires_in": 31536000,
                "scope": "user.info.profile,video.list"}),
            answers: json!({"/v2/user/info/": {"data": {"user": {"open_id": "oid-1",
                "display_name": "Tik", "username": "tik",
                "avatar_large_url": "https://tiktok.example/tik.jpg"}},
                "error": {"code": "ok", "message": "", "log_id": "x"}}}),
            reads: &[concat!(
                "GET /v2/user/info/",
                "?fields=open_id,avatar_large_url,display_name,username bearer"
            )],
            expect: json!({"name": "Tik", "email": "oid-1@tiktok.placeholder.invalid",
                "email_verified": false, "image": "https://tiktok.example/tik.jpg",
                "account_id": "oid-1"}),
            ..base
        },
        "reddit" => Case {
            user_info: "/api/v1/me",
            authorize: &[("scope", "identity")],
            auth: Auth::Basic,
            answers: json!({"/api/v1/me": {"id": "t2abc", "name": "red",
                "icon_img": "https://styles.example/red.png?width=256&s=1"}}),
            reads: &["GET /api/v1/me bearer"],
            expect: json!({"name": "red", "email": "t2abc@reddit.placeholder.invalid",
                "email_verified": false, "image": "https://styles.example/red.png",
                "account_id": "t2abc"}),
            ..base
        },
        "roblox" => Case {
            user_info: "/oauth/v1/userinfo",
            authorize: &[
                ("scope", "openid profile"),
                ("prompt", "select_account consent"),
            ],
            answers: json!({"/oauth/v1/userinfo": {"sub": "123", "preferred_username": "rob",
                "nickname": "Rob", "picture": "https://tr.rbxcdn.example/rob.png"}}),
            reads: &["GET /oauth/v1/userinfo bearer"],
            expect: json!({"name": "Rob", "email": "123@roblox.placeholder.invalid",
                "email_verified": false, "image": "https://tr.rbxcdn.example/rob.png",
                "account_id": "123"}),
            ..base
        },
        "vk" => Case {
            user_info: "/oauth2/user_info",
            authorize: &[("scope", "email phone")],
            pkce: true,
            answers: json!({"/oauth2/user_info": {"user": {"user_id": "1", "first_name": "Vera",
                "last_name": "K", "email": "Vera@Example.com",
                "avatar": "https://vk.example/vera.jpg", "birthday": "01.01.2000", "sex": 1}}}),
            reads: &["POST /oauth2/user_info - access_token=at-vk&client_id=vk-client"],
            expect: json!({"name": "Vera K", "email": "vera@example.com", "email_verified": false,
                "image": "https://vk.example/vera.jpg", "account_id": "1"}),
            trusted: true,
            ..base
        },
        "zoom" => Case {
            user_info: "/v2/users/me",
            // No `scope` at all: a Zoom app's scopes are set in its settings.
            pkce: true,
            answers: json!({"/v2/users/me": {"id": "z1", "display_name": "Zed",
                "email": "Zed@Example.com", "verified": 1,
                "pic_url": "https://zoom.example/zed.jpg"}}),
            reads: &["GET /v2/users/me bearer"],
            expect: json!({"name": "Zed", "email": "zed@example.com", "email_verified": true,
                "image": "https://zoom.example/zed.jpg", "account_id": "z1"}),
            ..base
        },
        other => panic!("no case for {other}"),
    }
}

/// Tells the stand-in what `case`'s provider answers.
fn prepare(stand_in: &StandIn, case: &Case) {
    let mut token = case.token.clone();
    token["access_token"] = json!(format!("at-{}", case.id));
    stand_in.answer(&format!("/{}/token", case.id), 200, token);
    for (path, answer) in case.answers.as_object().unwrap() {
        stand_in.answer(&format!("/{}{path}", case.id), 200, answer.clone());
    }
}

/// `Social` with `case`'s provider at the stand-in; `trusted`: `ACCOUNT_LINKING_TRUSTED_PROVIDERS`.
fn social(t: &Setup, stand_in: &StandIn, case: &Case, trusted: &str) -> Social {
    let (id, base) = (case.id, &stand_in.base);
    let entry = format!(
        r#"{{"{id}":{{"clientId":"{id}-client","clientSecret":"{id}-secret",
            "authorizationUrl":"{base}/{id}/authorize","tokenUrl":"{base}/{id}/token",
            "userInfoUrl":"{base}/{id}{}"{}}}}}"#,
        case.user_info, case.config
    );
    let configured = providers(&Env::from_pairs([("SOCIAL_PROVIDERS", entry)])).unwrap();
    let linking = Env::from_pairs([("ACCOUNT_LINKING_TRUSTED_PROVIDERS", trusted)]);
    let vault = AuthSecrets::single(AUTH_SECRET.to_string().into())
        .unwrap()
        .vault(VAULT_PURPOSE);
    let linking = AccountLinking::from_env(&linking).unwrap();
    Social::new(t.db.clone(), configured, linking, t.rules.clone(), vault).unwrap()
}

/// One sign-in, and what the stand-in received meanwhile.
struct Flow {
    authorization: url::Url,
    state: String,
    finished: Finished,
    seen: Vec<Seen>,
}

fn redirect_uri(id: &str) -> String {
    format!("http://localhost:4000/api/auth/callback/{id}")
}

/// Starts a sign-in, goes to the stand-in's authorization endpoint, which sends the browser
/// straight back, and finishes with the callback it made.
async fn sign_in(t: &Setup, stand_in: &StandIn, case: &Case, trusted: &str) -> Flow {
    let id = case.id;
    let before = stand_in.seen().len();
    let social = social(t, stand_in, case, trusted);
    let start = Start {
        provider_id: id.into(),
        callback_url: "/dashboard".into(),
        new_user_callback_url: Some("/welcome".into()),
        error_callback_url: Some("/sign-in".into()),
        redirect_uri: redirect_uri(id),
        ..Default::default()
    };
    let (url, state) = social.start(start).await.unwrap();
    let back = consent(&url).await;
    assert!(back.as_str().starts_with(&redirect_uri(id)), "{id}: {back}");
    let back: Vec<(String, String)> = back.query_pairs().into_owned().collect();
    let param = |key: &str| value_of(&back, key);
    assert_eq!(param("state"), Some(state.clone()), "{id}: state");
    let callback = Callback {
        provider_id: id.into(),
        state: state.clone(),
        state_cookie_matches: true,
        code: param("code"),
        redirect_uri: redirect_uri(id),
        device_id: (id == "vk").then(|| "device-vk".into()),
        user: (id == "apple").then(|| r#"{"name":{"firstName":"Ann","lastName":"Lee"}}"#.into()),
        ..Default::default()
    };
    let finished = social.finish(callback).await.unwrap();
    Flow {
        authorization: url::Url::parse(&url).unwrap(),
        state,
        finished,
        seen: stand_in.seen().split_off(before),
    }
}

/// A request as one line: `GET <path under the prefix>?<query> <auth> <form>`, where `<auth>`
/// is `bearer` for `Bearer at-<id>`, `-` for no `Authorization`; the form only when one was
/// sent as such.
fn described(id: &str, seen: &Seen) -> String {
    let join = |pairs: Vec<(String, String)>| {
        let pairs: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        pairs.join("&")
    };
    let path = seen
        .path
        .strip_prefix(&format!("/{id}"))
        .unwrap_or(&seen.path);
    let query = join(seen.query.clone());
    let query = if query.is_empty() {
        query
    } else {
        format!("?{query}")
    };
    let auth = match seen.header("authorization") {
        None => "-",
        Some(bearer) if bearer == format!("Bearer at-{id}") => "bearer",
        Some(other) => other,
    };
    let body = match seen.header("content-type") {
        _ if seen.body.is_empty() => String::new(),
        Some("application/x-www-form-urlencoded") => format!(" {}", join(seen.form())),
        other => format!(" {other:?} {}", seen.body),
    };
    format!("{} {path}{query} {auth}{body}", seen.method)
}

fn value_of(pairs: &[(String, String)], key: &str) -> Option<String> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

/// Pairs in order, to compare as sets (a key sent twice shows).
fn sorted<K: ToString, V: ToString>(
    pairs: impl IntoIterator<Item = (K, V)>,
) -> Vec<(String, String)> {
    let mut pairs: Vec<_> = pairs
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    pairs.sort();
    pairs
}

/// PKCE's S256 challenge of `verifier`.
fn s256(verifier: &str) -> String {
    let hex = gatehouse_kit::ids::sha256_hex(verifier);
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Everything the provider received, and the user the sign-in made (returned).
async fn check(t: &Setup, case: &Case, flow: Flow) -> User {
    let id = case.id;
    let at = |path: &str| format!("/{id}{path}");
    let (client, secret) = (format!("{id}-client"), format!("{id}-secret"));

    // 1. The code exchange: one POST, its form, how the client authenticated.
    let (authorize, token) = (at("/authorize"), at("/token"));
    let tokens: Vec<&Seen> = flow.seen.iter().filter(|s| s.path == token).collect();
    let [exchange] = tokens[..] else {
        panic!("{id}: one token request, got {}", tokens.len())
    };
    assert_eq!(exchange.method, "POST", "{id}: the token request");
    let form = exchange.form();
    let verifier = value_of(&form, "code_verifier").unwrap_or_default();
    let mut expected = vec![
        ("grant_type", "authorization_code".to_string()),
        ("code", format!("code-{id}")),
        ("redirect_uri", redirect_uri(id)),
    ];
    match case.auth {
        Auth::Post => expected.extend([
            ("client_id", client.clone()),
            ("client_secret", secret.clone()),
        ]),
        Auth::Basic => {}
        Auth::ClientKey => expected.extend([
            ("client_key", "tiktok-key".into()),
            ("client_secret", secret.clone()),
        ]),
    }
    if case.pkce {
        assert_eq!(verifier.len(), 128, "{id}: better-auth's verifier length");
        expected.push(("code_verifier", verifier.clone()));
    }
    if id == "vk" {
        expected.push(("device_id", "device-vk".into()));
    }
    assert_eq!(sorted(form), sorted(expected), "{id}: token form");
    let basic = format!("Basic {}", STANDARD.encode(format!("{client}:{secret}")));
    let basic = (case.auth == Auth::Basic).then_some(basic.as_str());
    assert_eq!(exchange.header("authorization"), basic, "{id}: client auth");

    // 2. The authorization URL, every parameter.
    assert_eq!(flow.authorization.path(), authorize, "{id}");
    let mut expected = vec![
        ("response_type", "code".to_string()),
        ("client_id", client.clone()),
        ("redirect_uri", redirect_uri(id)),
        ("state", flow.state.clone()),
    ];
    for &(key, value) in case.authorize {
        expected.retain(|(k, _)| *k != key);
        if value != ABSENT {
            expected.push((key, value.to_string()));
        }
    }
    if case.pkce {
        expected.push(("code_challenge", s256(&verifier)));
        expected.push(("code_challenge_method", "S256".into()));
    }
    let sent = sorted(flow.authorization.query_pairs().into_owned());
    assert_eq!(sent, sorted(expected), "{id}: the authorization URL");

    // 3. How the user was read: each request, in order, by Gatehouse's client.
    let reads: Vec<&Seen> = (flow.seen.iter())
        .filter(|s| ![&authorize, &token].contains(&&s.path))
        .collect();
    let lines: Vec<String> = reads.iter().map(|s| described(id, s)).collect();
    assert_eq!(lines, case.reads, "{id}: the user reads");
    for seen in reads {
        let agent = seen.header("user-agent").unwrap_or_default();
        assert!(agent.starts_with("Gatehouse/"), "{id}: {agent}");
    }

    // 4. Who signed in: a new user, and the provider's account for them.
    if !matches!(flow.finished, Finished::SignedIn { .. }) {
        panic!("{id}: expected a sign-in, got {:?}", flow.finished);
    }
    let (user, new_user, redirect_to) = signed_in(flow.finished);
    assert!(new_user && redirect_to == "/welcome", "{id}: a new user");
    let (provider_id, account_id): (String, String) =
        query("SELECT provider_id, account_id FROM accounts WHERE user_id = $1")
            .bind(user.id.as_str())
            .fetch_one(&t.db)
            .await
            .unwrap();
    assert_eq!(provider_id, id);
    let signed_up = json!({"name": user.name, "email": user.email,
        "email_verified": user.email_verified, "image": user.image, "account_id": account_id});
    assert_eq!(signed_up, case.expect, "{id}: the user");
    user
}

#[rstest]
#[case::apple("apple")]
#[case::discord("discord")]
#[case::facebook("facebook")]
#[case::github("github")]
#[case::microsoft("microsoft")]
#[case::google("google")]
#[case::spotify("spotify")]
#[case::twitch("twitch")]
#[case::twitter("twitter")]
#[case::dropbox("dropbox")]
#[case::kick("kick")]
#[case::linkedin("linkedin")]
#[case::gitlab("gitlab")]
#[case::tiktok("tiktok")]
#[case::reddit("reddit")]
#[case::roblox("roblox")]
#[case::vk("vk")]
#[case::zoom("zoom")]
#[tokio::test]
async fn signs_in_through_the_provider_s_api(#[case] id: &'static str) {
    let t = setup(Backend::Sqlite).await;
    let stand_in = StandIn::start().await;
    let case = case(id);
    prepare(&stand_in, &case);
    let flow = sign_in(&t, &stand_in, &case, if case.trusted { id } else { "" }).await;
    check(&t, &case, flow).await;
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn github_signs_up_then_in_again(#[case] backend: Backend) {
    let t = setup(backend).await;
    let stand_in = StandIn::start().await;
    let github = case("github");
    prepare(&stand_in, &github);
    let first = sign_in(&t, &stand_in, &github, "").await;
    let user = check(&t, &github, first).await;

    let again = sign_in(&t, &stand_in, &github, "").await;
    let (same, new_user, redirect_to) = signed_in(again.finished);
    assert_eq!((same.id.as_str(), new_user), (user.id.as_str(), false));
    assert_eq!(redirect_to, "/dashboard");
    assert_eq!(users_and_accounts(&t).await, (1, 1));
}

async fn users_and_accounts(t: &Setup) -> (i64, i64) {
    (count(&t.db, "users").await, count(&t.db, "accounts").await)
}

fn refusal(finished: &Finished) -> &str {
    match finished {
        Finished::Refused { error, .. } => error,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_blocked_gitlab_account_is_refused() {
    let t = setup(Backend::Sqlite).await;
    let stand_in = StandIn::start().await;
    let mut gitlab = case("gitlab");
    gitlab.answers["/api/v4/user"]["state"] = json!("blocked");
    prepare(&stand_in, &gitlab);
    let flow = sign_in(&t, &stand_in, &gitlab, "gitlab").await;
    assert_eq!(refusal(&flow.finished), "unable_to_get_user_info");
    assert_eq!(users_and_accounts(&t).await, (0, 0));
}

#[tokio::test]
async fn a_facebook_token_issued_to_another_app_signs_nobody_in() {
    let t = setup(Backend::Sqlite).await;
    let stand_in = StandIn::start().await;
    let mut facebook = case("facebook");
    facebook.answers["/debug_token"]["data"]["app_id"] = json!("another-app");
    prepare(&stand_in, &facebook);
    let flow = sign_in(&t, &stand_in, &facebook, "facebook").await;
    assert_eq!(refusal(&flow.finished), "unable_to_get_user_info");
    let last = flow.seen.last().map(|s| s.path.as_str());
    assert_eq!(last, Some("/facebook/debug_token"), "`/me` is not asked");
    assert_eq!(users_and_accounts(&t).await, (0, 0));
}

#[tokio::test]
async fn a_code_the_provider_refuses_is_an_invalid_code() {
    let t = setup(Backend::Sqlite).await;
    let stand_in = StandIn::start().await;
    let github = case("github");
    prepare(&stand_in, &github);
    stand_in.answer("/github/token", 400, json!({"error": "invalid_grant"}));
    let flow = sign_in(&t, &stand_in, &github, "").await;
    assert_eq!(refusal(&flow.finished), "invalid_code");
    // GitHub's own way to refuse a code: 200, and an error for a body.
    let error = json!({"error": "bad_verification_code", "error_description": "expired"});
    stand_in.answer("/github/token", 200, error);
    let again = sign_in(&t, &stand_in, &github, "").await;
    assert_eq!(refusal(&again.finished), "invalid_code");
    let last = [&flow, &again].map(|f| f.seen.last().unwrap().path.clone());
    assert_eq!(last, ["/github/token", "/github/token"], "no user read");
    assert_eq!(users_and_accounts(&t).await, (0, 0));
}

#[tokio::test]
async fn an_unverified_address_signs_up_only_through_a_trusted_provider() {
    let t = setup(Backend::Sqlite).await;
    let stand_in = StandIn::start().await;
    let spotify = case("spotify");
    prepare(&stand_in, &spotify);
    // Stricter than better-auth (mod.rs): nobody verified this address.
    let flow = sign_in(&t, &stand_in, &spotify, "").await;
    assert_eq!(refusal(&flow.finished), "email_not_verified");
    assert_eq!(count(&t.db, "users").await, 0);

    let flow = sign_in(&t, &stand_in, &spotify, "spotify").await;
    let user = check(&t, &spotify, flow).await;
    assert!(!user.email_verified);
}

#[tokio::test]
async fn x_without_a_confirmed_address_signs_up_with_a_placeholder() {
    let t = setup(Backend::Sqlite).await;
    let stand_in = StandIn::start().await;
    let mut twitter = case("twitter");
    prepare(&stand_in, &twitter);
    // The address call fails (the app may not read addresses): the user still signs in.
    let forbidden = json!({"title": "Forbidden", "status": 403});
    let address = "/twitter/2/users/me?user.fields=confirmed_email";
    stand_in.answer(address, 403, forbidden);
    twitter.expect = json!({"name": "Xa", "email": "42@twitter.placeholder.invalid",
        "email_verified": false, "image": "https://pbs.example/xa.jpg", "account_id": "42"});
    let flow = sign_in(&t, &stand_in, &twitter, "").await;
    check(&t, &twitter, flow).await;
}
