//! What a token must be to pass: algorithms, keys, signature and claims.

mod support;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use gatehouse_jwks::{Algorithm, VerifyError};
use jsonwebtoken::{EncodingKey, Header};
use serde_json::{Value, json};
use support::{AUDIENCE, ISSUER, Jwks, TestKey, claims, expect, now, settings, unsigned};

#[derive(serde::Deserialize, Debug)]
struct Claims {
    sub: String,
    iss: String,
}

async fn verify(jwks: &Jwks, token: &str) -> Result<Value, VerifyError> {
    jwks.key_set(settings())
        .verify::<Value>(token, &expect())
        .await
}

fn with(change: &[(&str, Value)]) -> Value {
    let mut claims = claims();
    for (name, value) in change {
        claims[*name] = value.clone();
    }
    claims
}

#[tokio::test]
async fn each_supported_key_type_verifies() {
    let (ed, es, rs) = (
        TestKey::ed25519("ed"),
        TestKey::es256("es"),
        TestKey::rs256("rs"),
    );
    let jwks = Jwks::start(&[&ed, &es, &rs]).await;
    let keys = jwks.key_set(settings());
    for key in [&ed, &es, &rs] {
        let claims: Claims = keys
            .verify(&key.sign(&claims()), &expect())
            .await
            .expect("valid");
        assert_eq!(
            (claims.sub.as_str(), claims.iss.as_str()),
            ("user-1", ISSUER),
            "{}",
            key.kid
        );
    }
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn wrong_issuer_is_refused() {
    let key = TestKey::ed25519("k");
    let jwks = Jwks::start(&[&key]).await;
    let token = key.sign(&with(&[("iss", json!("https://other.test"))]));
    assert!(matches!(
        verify(&jwks, &token).await,
        Err(VerifyError::Issuer)
    ));
    // An array of issuers is not an issuer, even if it contains the right one.
    let token = key.sign(&with(&[("iss", json!([ISSUER]))]));
    assert!(matches!(
        verify(&jwks, &token).await,
        Err(VerifyError::Issuer)
    ));
    let mut no_iss = claims();
    no_iss.as_object_mut().expect("object").remove("iss");
    assert!(matches!(
        verify(&jwks, &key.sign(&no_iss)).await,
        Err(VerifyError::Issuer)
    ));
}

#[tokio::test]
async fn audience_may_be_a_string_or_an_array() {
    let key = TestKey::es256("k");
    let jwks = Jwks::start(&[&key]).await;
    let token = key.sign(&with(&[("aud", json!(["other", AUDIENCE]))]));
    assert!(verify(&jwks, &token).await.is_ok());
    let token = key.sign(&with(&[("aud", json!("other"))]));
    assert!(matches!(
        verify(&jwks, &token).await,
        Err(VerifyError::Audience)
    ));
    let token = key.sign(&with(&[("aud", json!(["other", "another"]))]));
    assert!(matches!(
        verify(&jwks, &token).await,
        Err(VerifyError::Audience)
    ));
    let mut no_aud = claims();
    no_aud.as_object_mut().expect("object").remove("aud");
    assert!(matches!(
        verify(&jwks, &key.sign(&no_aud)).await,
        Err(VerifyError::Audience)
    ));
}

#[tokio::test]
async fn times_are_checked_with_leeway() {
    let key = TestKey::ed25519("k");
    let jwks = Jwks::start(&[&key]).await;
    let now = now();
    let expired = key.sign(&with(&[("exp", json!(now - 120))]));
    assert!(matches!(
        verify(&jwks, &expired).await,
        Err(VerifyError::Expired)
    ));
    // Within the 60 s leeway.
    let just_expired = key.sign(&with(&[("exp", json!(now - 10))]));
    assert!(verify(&jwks, &just_expired).await.is_ok());
    let early = key.sign(&with(&[("nbf", json!(now + 120))]));
    assert!(matches!(
        verify(&jwks, &early).await,
        Err(VerifyError::NotYetValid)
    ));
    let issued_later = key.sign(&with(&[("iat", json!(now + 120))]));
    assert!(matches!(
        verify(&jwks, &issued_later).await,
        Err(VerifyError::NotYetValid)
    ));
    let mut no_exp = claims();
    no_exp.as_object_mut().expect("object").remove("exp");
    assert!(matches!(
        verify(&jwks, &key.sign(&no_exp)).await,
        Err(VerifyError::Malformed(_))
    ));
}

#[tokio::test]
async fn a_tampered_token_is_refused() {
    let key = TestKey::rs256("k");
    let jwks = Jwks::start(&[&key]).await;
    let token = key.sign(&claims());
    let parts: Vec<&str> = token.split('.').collect();
    // Other claims under the original signature.
    let forged = unsigned(&json!({}), &with(&[("sub", json!("admin"))]), "");
    let forged_claims = forged.split('.').nth(1).expect("claims part");
    let tampered = format!("{}.{forged_claims}.{}", parts[0], parts[2]);
    assert!(matches!(
        verify(&jwks, &tampered).await,
        Err(VerifyError::Signature)
    ));
    // One signature character changed (in the middle: the last one may only carry padding bits).
    let mut signature = parts[2].to_owned().into_bytes();
    let middle = signature.len() / 2;
    signature[middle] = if signature[middle] == b'A' {
        b'B'
    } else {
        b'A'
    };
    let signature = String::from_utf8(signature).expect("ascii");
    let tampered = format!("{}.{}.{signature}", parts[0], parts[1]);
    assert!(matches!(
        verify(&jwks, &tampered).await,
        Err(VerifyError::Signature)
    ));
    // Another key's signature under a kid of the set.
    let (published, impostor) = (TestKey::es256("k"), TestKey::es256("k"));
    let jwks = Jwks::start(&[&published]).await;
    let refused = verify(&jwks, &impostor.sign(&claims())).await;
    assert!(
        matches!(refused, Err(VerifyError::Signature)),
        "{refused:?}"
    );
}

#[tokio::test]
async fn only_allowed_algorithms_pass() {
    let (ed, es) = (TestKey::ed25519("ed"), TestKey::es256("es"));
    let jwks = Jwks::start(&[&ed, &es]).await;
    let keys = jwks.key_set(settings());
    let mut only_ed = expect();
    only_ed.algorithms = vec![Algorithm::EdDSA];
    let refused = keys.verify::<Value>(&es.sign(&claims()), &only_ed).await;
    assert!(
        matches!(refused, Err(VerifyError::Algorithm(_))),
        "{refused:?}"
    );
    assert!(
        keys.verify::<Value>(&ed.sign(&claims()), &only_ed)
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn alg_none_is_refused() {
    let key = TestKey::ed25519("k");
    let jwks = Jwks::start(&[&key]).await;
    for alg in ["none", "None", "NONE"] {
        let token = unsigned(&json!({ "alg": alg, "kid": "k" }), &claims(), "");
        assert!(
            matches!(verify(&jwks, &token).await, Err(VerifyError::Algorithm(_))),
            "{alg}"
        );
    }
    assert_eq!(jwks.fetches(), 0, "refused before any key is needed");
}

#[tokio::test]
async fn hs256_is_refused_even_with_a_secret_in_the_set_and_in_the_list() {
    let key = TestKey::ed25519("k");
    let jwks = Jwks::start(&[&key]).await;
    let secret = b"published-in-the-jwks";
    let oct =
        json!({ "kty": "oct", "kid": "hs", "k": URL_SAFE_NO_PAD.encode(secret), "alg": "HS256" });
    jwks.set_jwks(vec![key.jwk.clone(), oct]);
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("hs".into());
    let token =
        jsonwebtoken::encode(&header, &claims(), &EncodingKey::from_secret(secret)).expect("sign");
    let mut listing_hs = expect();
    listing_hs.algorithms.push(Algorithm::HS256);
    let refused = jwks
        .key_set(settings())
        .verify::<Value>(&token, &listing_hs)
        .await;
    assert!(
        matches!(refused, Err(VerifyError::Algorithm(_))),
        "{refused:?}"
    );
}

#[tokio::test]
async fn an_encryption_key_is_not_used_for_signatures() {
    let key = TestKey::es256("k").with_jwk(|jwk| {
        jwk.insert("use".into(), json!("enc"));
        jwk.remove("alg");
    });
    let jwks = Jwks::start(&[&key]).await;
    let refused = verify(&jwks, &key.sign(&claims())).await;
    assert!(
        matches!(refused, Err(VerifyError::UnknownKey)),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_key_is_used_only_for_its_own_alg() {
    // The JWK says PS256: an RS256 token under its kid is refused although the key would verify it.
    let key = TestKey::rs256("k").with_jwk(|jwk| {
        jwk.insert("alg".into(), json!("PS256"));
    });
    let jwks = Jwks::start(&[&key]).await;
    let refused = verify(&jwks, &key.sign(&claims())).await;
    assert!(
        matches!(refused, Err(VerifyError::UnknownKey)),
        "{refused:?}"
    );
    // A header claiming another key type under an existing kid.
    let es = TestKey::es256("k");
    let refused = verify(&jwks, &es.sign(&claims())).await;
    assert!(
        matches!(refused, Err(VerifyError::UnknownKey)),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_token_without_kid_needs_exactly_one_fitting_key() {
    let (ed, es) = (TestKey::ed25519("ed"), TestKey::es256("es"));
    let jwks = Jwks::start(&[&ed, &es]).await;
    let no_kid = ed.sign_with(Header::new(Algorithm::EdDSA), &claims());
    assert!(
        verify(&jwks, &no_kid).await.is_ok(),
        "one Ed25519 key: it is used"
    );
    jwks.set_keys(&[&ed, &TestKey::ed25519("ed2"), &es]);
    let refused = verify(&jwks, &no_kid).await;
    assert!(
        matches!(refused, Err(VerifyError::UnknownKey)),
        "two Ed25519 keys: {refused:?}"
    );
}

#[tokio::test]
async fn garbage_is_malformed() {
    let key = TestKey::ed25519("k");
    let jwks = Jwks::start(&[&key]).await;
    for token in ["", "abc", "a.b", "a.b.c.d", "!!.e30.sig"] {
        assert!(
            matches!(verify(&jwks, token).await, Err(VerifyError::Malformed(_))),
            "{token}"
        );
    }
    // Valid token, claims of the wrong shape for the caller's type.
    let odd = key.sign(&with(&[("sub", json!(42))]));
    let refused = jwks
        .key_set(settings())
        .verify::<Claims>(&odd, &expect())
        .await;
    assert!(
        matches!(refused, Err(VerifyError::Malformed(_))),
        "{refused:?}"
    );
}
