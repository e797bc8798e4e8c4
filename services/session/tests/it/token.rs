//! The signing keys of users' tokens, on SQLite and on PostgreSQL: one key for every replica and
//! restart, rotation with a grace period, a rotated auth secret, a change of algorithm, and the
//! gRPC service as the gateway and other services call it.

use std::time::Duration;

use gatehouse_jwks::{Signer, SigningAlgorithm};
use gatehouse_kit::auth_secret::AuthSecrets;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_kit::errors::base;
use gatehouse_kit::sealing::SealingKey;
use gatehouse_kit::service::{Context, Part};
use gatehouse_kit::service_auth::ServiceToken;
use gatehouse_kit::testing::TestDb;
use gatehouse_proto::session::v1 as pb;
use gatehouse_proto::session::v1::token_service_client::TokenServiceClient;
use gatehouse_session::MIGRATIONS;
use gatehouse_session::config::TokenSettings;
use gatehouse_session::error::SessionError;
use gatehouse_session::token::{self, SigningKeys};
use rstest::rstest;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const ISSUER: &str = "http://localhost:3000";
const OLD_SECRET: &str = "old-auth-secret-old-auth-secret-0001";
const NEW_SECRET: &str = "new-auth-secret-new-auth-secret-0002";
const SERVICE_TOKEN: &str = "token-tests-service-token-0123456789";

fn settings(algorithm: SigningAlgorithm, rotation_secs: u64, grace_secs: u64) -> TokenSettings {
    TokenSettings {
        algorithm,
        rotation_interval: Duration::from_secs(rotation_secs),
        grace_period: Duration::from_secs(grace_secs),
        issuer: ISSUER.into(),
    }
}

fn secrets(pairs: &[(&str, &str)]) -> AuthSecrets {
    AuthSecrets::from_env(&Env::from_pairs(pairs.iter().copied()))
        .unwrap()
        .unwrap()
}

/// One replica's (or one start's) view of the keys: its own in-process cache.
fn replica(db: &Db, secrets: &AuthSecrets, settings: TokenSettings) -> SigningKeys {
    SigningKeys::new(db.clone(), secrets.vault(token::VAULT_PURPOSE), settings)
}

fn default_replica(db: &Db) -> SigningKeys {
    replica(
        db,
        &secrets(&[("AUTH_SECRET", OLD_SECRET)]),
        settings(SigningAlgorithm::EdDSA, 30 * 86_400, 30 * 86_400),
    )
}

async fn rows(db: &Db) -> i64 {
    let (n,): (i64,) = query("SELECT COUNT(*) FROM signing_keys")
        .fetch_one(db)
        .await
        .unwrap();
    n
}

/// A token as the gateway signs it, with the key the service names now.
async fn signed_by(keys: &SigningKeys, lifetime_secs: i64) -> (String, String) {
    let current = keys.load().await.unwrap().current.clone();
    let now = chrono::Utc::now().timestamp();
    let signer = Signer::from_pkcs8(current.id.clone(), current.alg, &current.pkcs8).unwrap();
    let claims = json!({ "iat": now, "sub": "user-1", "exp": now + lifetime_secs, "iss": ISSUER, "aud": ISSUER, "email": "sam@example.com" });
    (signer.sign(&claims).unwrap(), current.id)
}

fn published(key_set_json: &str) -> Vec<String> {
    let document: Value = serde_json::from_str(key_set_json).unwrap();
    document["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|key| {
            assert!(key.get("d").is_none(), "a private member was published");
            key["kid"].as_str().unwrap().to_string()
        })
        .collect()
}

fn refused_as_invalid(result: Result<Value, SessionError>) -> bool {
    matches!(result, Err(SessionError::Refused(failure)) if failure.is(base::INVALID_TOKEN))
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn replicas_and_restarts_sign_with_one_key(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&MIGRATIONS).await;
    // Two replicas meeting an empty table at the same moment mint one key between them.
    let (first, second) = (default_replica(&db), default_replica(&db));
    let (a, b) = tokio::join!(first.load(), second.load());
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.current.id, b.current.id);
    assert_eq!(rows(&db).await, 1);
    // A restart reads the same key rather than minting another.
    let restarted = default_replica(&db);
    let c = restarted.load().await.unwrap();
    assert_eq!(c.current.id, a.current.id);
    assert_eq!(published(&c.key_set_json), vec![a.current.id.clone()]);
    assert_eq!(rows(&db).await, 1);
    // What one replica signs, another verifies.
    let (token, _) = signed_by(&first, 900).await;
    let claims = restarted.verify(&token).await.unwrap();
    assert_eq!(claims["sub"], "user-1");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_key_rotates_and_stays_published_for_its_grace_period(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&MIGRATIONS).await;
    let secrets = secrets(&[("AUTH_SECRET", OLD_SECRET)]);
    let keys = replica(&db, &secrets, settings(SigningAlgorithm::EdDSA, 2, 3));
    // (A grace of 3 s: tokens here live 900 s, so the test signs them directly rather than
    // through settings the service would refuse.)
    let (old_token, first_kid) = signed_by(&keys, 900).await;

    // Past the rotation interval: the next key signs, the first is still published.
    tokio::time::sleep(Duration::from_millis(2_200)).await;
    let (new_token, second_kid) = signed_by(&keys, 900).await;
    assert_ne!(second_kid, first_kid);
    let loaded = keys.load().await.unwrap();
    assert_eq!(
        published(&loaded.key_set_json),
        vec![first_kid.clone(), second_kid.clone()],
        "oldest first, as better-auth lists them"
    );
    assert_eq!(keys.verify(&old_token).await.unwrap()["sub"], "user-1");
    assert_eq!(keys.verify(&new_token).await.unwrap()["sub"], "user-1");

    // Past the first key's grace period: it is gone, and so are its tokens.
    tokio::time::sleep(Duration::from_millis(3_200)).await;
    let loaded = keys.load().await.unwrap();
    assert!(!published(&loaded.key_set_json).contains(&first_kid));
    assert!(published(&loaded.key_set_json).contains(&second_kid));
    assert!(refused_as_invalid(keys.verify(&old_token).await));
    assert_eq!(keys.verify(&new_token).await.unwrap()["sub"], "user-1");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_rotated_auth_secret_keeps_the_key_and_a_replaced_one_mints_the_next(
    #[case] backend: Backend,
) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&MIGRATIONS).await;
    let long = settings(SigningAlgorithm::EdDSA, 30 * 86_400, 30 * 86_400);
    let before = replica(&db, &secrets(&[("AUTH_SECRET", OLD_SECRET)]), long.clone());
    let (token, kid) = signed_by(&before, 900).await;
    let stored: (String,) = query("SELECT private_key FROM signing_keys")
        .fetch_one(&db)
        .await
        .unwrap();
    assert!(
        stored.0.starts_with("$gh$1$"),
        "encrypted with secret version 1"
    );

    // The secret rotated (the old one kept as version 1): the same key signs on.
    let rotation = format!("2:{NEW_SECRET},1:{OLD_SECRET}");
    let rotated = replica(
        &db,
        &secrets(&[("AUTH_SECRETS", rotation.as_str())]),
        long.clone(),
    );
    assert_eq!(rotated.load().await.unwrap().current.id, kid);
    assert_eq!(rotated.verify(&token).await.unwrap()["sub"], "user-1");

    // The secret replaced outright: the key no longer opens, so the next one is minted (under
    // the new secret) while the old public key still verifies what it signed.
    let replaced = replica(&db, &secrets(&[("AUTH_SECRET", NEW_SECRET)]), long.clone());
    let loaded = replaced.load().await.unwrap();
    assert_ne!(loaded.current.id, kid);
    assert_eq!(published(&loaded.key_set_json).len(), 2);
    assert_eq!(replaced.verify(&token).await.unwrap()["sub"], "user-1");
    assert_eq!(rows(&db).await, 2);

    // Replicas that disagree on the secret (a rollout half done) each sign with the newest key
    // they can open, rather than minting keys against each other every reload.
    let still_old = replica(&db, &secrets(&[("AUTH_SECRET", OLD_SECRET)]), long.clone());
    assert_eq!(still_old.load().await.unwrap().current.id, kid);
    let still_new = replica(&db, &secrets(&[("AUTH_SECRET", NEW_SECRET)]), long);
    assert_eq!(
        still_new.load().await.unwrap().current.id,
        loaded.current.id
    );
    assert_eq!(rows(&db).await, 2);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_change_of_algorithm_mints_a_key_of_the_new_kind(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&MIGRATIONS).await;
    let secrets = secrets(&[("AUTH_SECRET", OLD_SECRET)]);
    let mut tokens = Vec::new();
    for algorithm in [
        SigningAlgorithm::EdDSA,
        SigningAlgorithm::ES256,
        SigningAlgorithm::RS256,
    ] {
        let keys = replica(&db, &secrets, settings(algorithm, 86_400, 86_400));
        let loaded = keys.load().await.unwrap();
        assert_eq!(loaded.current.alg, algorithm);
        tokens.push(signed_by(&keys, 900).await.0);
    }
    let keys = replica(
        &db,
        &secrets,
        settings(SigningAlgorithm::RS256, 86_400, 86_400),
    );
    let document: Value = serde_json::from_str(&keys.load().await.unwrap().key_set_json).unwrap();
    let algs: Vec<&str> = document["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["alg"].as_str().unwrap())
        .collect();
    assert_eq!(algs, vec!["EdDSA", "ES256", "RS256"]);
    for token in tokens {
        assert_eq!(keys.verify(&token).await.unwrap()["sub"], "user-1");
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn verification_refuses_what_this_deployment_did_not_sign_as_valid(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&MIGRATIONS).await;
    let keys = default_replica(&db);
    let (expired, _) = signed_by(&keys, -120).await;
    assert!(refused_as_invalid(keys.verify(&expired).await));
    // Signed by a key of another deployment under the same kid.
    let kid = keys.load().await.unwrap().current.id.clone();
    let stranger = gatehouse_jwks::signing::generate(SigningAlgorithm::EdDSA, &kid).unwrap();
    let now = chrono::Utc::now().timestamp();
    let forged = Signer::from_pkcs8(kid, SigningAlgorithm::EdDSA, &stranger.pkcs8)
        .unwrap()
        .sign(
            &json!({ "sub": "admin", "iat": now, "exp": now + 900, "iss": ISSUER, "aud": ISSUER }),
        )
        .unwrap();
    assert!(refused_as_invalid(keys.verify(&forged).await));
    assert!(refused_as_invalid(keys.verify("not.a.token").await));
}

/// The gRPC service as the gateway uses it: the private key arrives sealed with the service
/// token's key, signs, and VerifyToken accepts the result.
#[tokio::test]
async fn the_grpc_service_hands_the_sealed_key_and_verifies_its_tokens() {
    let database = TestDb::new(Backend::Sqlite).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let env = Env::from_pairs([
        ("SESSION_DATABASE_URL", database.url.as_str()),
        ("SERVICE_TOKEN", SERVICE_TOKEN),
        ("AUTH_SECRET", OLD_SECRET),
        ("IDENTITY_URL", "http://127.0.0.1:9"),
    ]);
    let shutdown = CancellationToken::new();
    tokio::spawn(gatehouse_session::SERVICE.run(
        Context::from_env(env).unwrap(),
        listener,
        shutdown.clone(),
    ));
    let service_token = ServiceToken::new(SERVICE_TOKEN).unwrap();
    let mut client =
        TokenServiceClient::new(gatehouse_kit::client::lazy_channel(&url, &service_token).unwrap());
    let mut answer = None;
    for _ in 0..50 {
        match client.get_signing_keys(pb::GetSigningKeysRequest {}).await {
            Ok(response) => {
                answer = Some(response.into_inner());
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let answer = answer.expect("the session service answers");
    let current = answer.current.unwrap();
    assert_eq!(current.alg, "EdDSA");
    assert!(published(&answer.key_set_json).contains(&current.id));
    assert!((1_000..=60_000).contains(&answer.refresh_in_ms));
    assert!(
        current.signs_for_ms > 29 * 86_400_000,
        "a fresh key signs for 30 days"
    );
    let pkcs8 = SealingKey::from_service_token(&service_token)
        .open(token::grpc::SEALING_CONTEXT, &current.sealed_private_key)
        .expect("sealed with the service token's key");
    let now = chrono::Utc::now().timestamp();
    let token = Signer::from_pkcs8(current.id, SigningAlgorithm::EdDSA, &pkcs8)
        .unwrap()
        .sign(
            &json!({ "sub": "user-7", "iat": now, "exp": now + 900, "iss": ISSUER, "aud": ISSUER }),
        )
        .unwrap();
    let verified = client
        .verify_token(pb::VerifyTokenRequest { token })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(verified.subject, "user-7");
    let refused = client
        .verify_token(pb::VerifyTokenRequest {
            token: "a.b.c".into(),
        })
        .await
        .unwrap_err();
    assert!(gatehouse_kit::errors::Failure::from_status(&refused).is(base::INVALID_TOKEN));
    shutdown.cancel();
}
