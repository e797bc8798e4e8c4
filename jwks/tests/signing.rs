//! Keys made and tokens signed here, verified by this crate's verifier and by an independent
//! implementation (jsonwebtoken's RustCrypto backend).

mod support;

use gatehouse_jwks::signing::generate;
use gatehouse_jwks::{KnownKeys, Signer, SigningAlgorithm, VerifyError};
use jsonwebtoken::{DecodingKey, Validation};
use serde_json::{Value, json};
use support::{AUDIENCE, ISSUER, claims, expect};

const ALGORITHMS: [SigningAlgorithm; 3] = [
    SigningAlgorithm::EdDSA,
    SigningAlgorithm::ES256,
    SigningAlgorithm::RS256,
];

fn independent_check(jwk: &Value, token: &str) -> Value {
    let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(jwk.clone()).expect("a JWK");
    let key = DecodingKey::from_jwk(&jwk).expect("a decoding key");
    let alg = jsonwebtoken::decode_header(token).expect("a header").alg;
    let mut validation = Validation::new(alg);
    validation.set_issuer(&[ISSUER]);
    validation.set_audience(&[AUDIENCE]);
    jsonwebtoken::decode::<Value>(token, &key, &validation)
        .expect("verifies independently")
        .claims
}

#[test]
fn every_algorithm_signs_what_both_verifiers_accept() {
    for alg in ALGORITHMS {
        let pair = generate(alg, "key-1").expect("a key pair");
        assert_eq!(pair.public_jwk["alg"], alg.as_str());
        assert_eq!(pair.public_jwk["kid"], "key-1");
        assert!(
            pair.public_jwk.get("d").is_none(),
            "no private member is published"
        );
        let signer = Signer::from_pkcs8("key-1", alg, &pair.pkcs8).expect("loads");
        let token = signer.sign(&claims()).expect("signs");

        let header: Value = serde_json::from_slice(
            &base64::Engine::decode(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                token.split('.').next().unwrap_or_default(),
            )
            .expect("base64url"),
        )
        .expect("JSON");
        assert_eq!(header, json!({ "alg": alg.as_str(), "kid": "key-1" }));

        let keys =
            KnownKeys::from_document(json!({ "keys": [pair.public_jwk] }).to_string().as_bytes())
                .expect("a key set");
        let ours: Value = keys.verify(&token, &expect()).expect("verifies");
        assert_eq!(ours["sub"], "user-1", "{alg}");
        let theirs = independent_check(&pair.public_jwk, &token);
        assert_eq!(theirs, ours, "{alg}");
    }
}

#[test]
fn another_key_of_the_same_kid_does_not_verify() {
    let signed_with = generate(SigningAlgorithm::EdDSA, "k").expect("a key pair");
    let published = generate(SigningAlgorithm::EdDSA, "k").expect("a key pair");
    let token = Signer::from_pkcs8("k", SigningAlgorithm::EdDSA, &signed_with.pkcs8)
        .expect("loads")
        .sign(&claims())
        .expect("signs");
    let keys = KnownKeys::from_document(
        json!({ "keys": [published.public_jwk] })
            .to_string()
            .as_bytes(),
    )
    .expect("a key set");
    assert!(matches!(
        keys.verify::<Value>(&token, &expect()),
        Err(VerifyError::Signature)
    ));
    let unknown = Signer::from_pkcs8("other", SigningAlgorithm::EdDSA, &signed_with.pkcs8)
        .expect("loads")
        .sign(&claims())
        .expect("signs");
    assert!(matches!(
        keys.verify::<Value>(&unknown, &expect()),
        Err(VerifyError::UnknownKey)
    ));
}

#[test]
fn a_key_of_another_algorithm_is_refused() {
    let pair = generate(SigningAlgorithm::EdDSA, "k").expect("a key pair");
    assert!(matches!(
        Signer::from_pkcs8("k", SigningAlgorithm::ES256, &pair.pkcs8),
        Err(gatehouse_jwks::SignError::Key(SigningAlgorithm::ES256))
    ));
    assert!("HS256".parse::<SigningAlgorithm>().is_err());
}
