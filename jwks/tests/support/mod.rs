//! A JWKS endpoint the tests control, and keys to sign tokens with.
// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use gatehouse_jwks::{Expectations, KeySet, Settings};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _, RsaKeyPair,
};
use serde_json::{Value, json};
use tokio::net::TcpListener;

pub const ISSUER: &str = "https://issuer.test";
pub const AUDIENCE: &str = "client-1";

/// What the endpoint serves and how.
struct Served {
    keys: Vec<Value>,
    fetches: usize,
    delay: Duration,
    up: bool,
}

/// A JWKS endpoint on 127.0.0.1: switchable keys, a fetch counter, an optional delay, on/off.
#[derive(Clone)]
pub struct Jwks {
    served: Arc<Mutex<Served>>,
    pub url: url::Url,
}

impl Jwks {
    pub async fn start(keys: &[&TestKey]) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        Self::serve(listener, keys)
    }

    /// Serves on a given address (to bring back an endpoint that was down).
    pub async fn start_on(addr: SocketAddr, keys: &[&TestKey]) -> Self {
        let listener = TcpListener::bind(addr).await.expect("bind again");
        Self::serve(listener, keys)
    }

    fn serve(listener: TcpListener, keys: &[&TestKey]) -> Self {
        let addr = listener.local_addr().expect("addr");
        let served = Arc::new(Mutex::new(Served {
            keys: keys.iter().map(|k| k.jwk.clone()).collect(),
            fetches: 0,
            delay: Duration::ZERO,
            up: true,
        }));
        let app = Router::new()
            .route("/jwks", get(jwks))
            .with_state(served.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        let url = format!("http://{addr}/jwks").parse().expect("url");
        Self { served, url }
    }

    pub fn set_keys(&self, keys: &[&TestKey]) {
        self.set_jwks(keys.iter().map(|k| k.jwk.clone()).collect());
    }

    pub fn set_jwks(&self, keys: Vec<Value>) {
        self.served.lock().expect("lock").keys = keys;
    }

    pub fn fetches(&self) -> usize {
        self.served.lock().expect("lock").fetches
    }

    pub fn set_delay(&self, delay: Duration) {
        self.served.lock().expect("lock").delay = delay;
    }

    pub fn set_up(&self, up: bool) {
        self.served.lock().expect("lock").up = up;
    }

    pub fn key_set(&self, settings: Settings) -> KeySet {
        KeySet::new(self.url.clone(), client(), settings)
    }

    /// Waits (up to 5 s) until the endpoint has been asked `n` times.
    pub async fn wait_for_fetches(&self, n: usize) {
        tokio::time::timeout(Duration::from_secs(5), async {
            while self.fetches() < n {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("expected {n} fetches, saw {}", self.fetches()));
    }
}

async fn jwks(State(served): State<Arc<Mutex<Served>>>) -> Response {
    let (delay, up, keys) = {
        let mut served = served.lock().expect("lock");
        served.fetches += 1;
        (served.delay, served.up, served.keys.clone())
    };
    tokio::time::sleep(delay).await;
    if !up {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    axum::Json(json!({ "keys": keys })).into_response()
}

pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().build().expect("client")
}

/// Short intervals so the tests run fast; each test sets what it exercises.
pub fn settings() -> Settings {
    Settings {
        fetch_timeout: Duration::from_secs(5),
        min_refetch_interval: Duration::from_millis(200),
        max_age: Duration::from_secs(3600),
    }
}

pub fn expect() -> Expectations {
    Expectations::new(ISSUER, AUDIENCE)
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

/// Claims that pass `expect()`.
pub fn claims() -> Value {
    let now = now();
    json!({ "iss": ISSUER, "aud": AUDIENCE, "sub": "user-1", "iat": now, "exp": now + 300 })
}

/// A private key to sign with and its public JWK.
pub struct TestKey {
    pub kid: String,
    pub alg: Algorithm,
    encoding: EncodingKey,
    pub jwk: Value,
}

impl TestKey {
    pub fn ed25519(kid: &str) -> Self {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).expect("generate");
        let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).expect("parse");
        let x = URL_SAFE_NO_PAD.encode(pair.public_key().as_ref());
        Self {
            kid: kid.into(),
            alg: Algorithm::EdDSA,
            encoding: EncodingKey::from_ed_der(pkcs8.as_ref()),
            jwk: json!({ "kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "use": "sig", "alg": "EdDSA" }),
        }
    }

    pub fn es256(kid: &str) -> Self {
        let rng = SystemRandom::new();
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("generate");
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .expect("parse");
        // Uncompressed SEC1: 0x04, then x and y, 32 bytes each.
        let point = pair.public_key().as_ref();
        Self {
            kid: kid.into(),
            alg: Algorithm::ES256,
            encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
            jwk: json!({
                "kty": "EC", "crv": "P-256", "kid": kid, "use": "sig", "alg": "ES256",
                "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
                "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
            }),
        }
    }

    /// The fixed 2048-bit test key in `tests/test-rsa-2048.pem` (ring cannot generate RSA).
    pub fn rs256(kid: &str) -> Self {
        let pem = include_str!("../test-rsa-2048.pem");
        let body: String = pem
            .lines()
            .filter(|line| !line.starts_with("-----"))
            .collect();
        let pkcs1 = STANDARD.decode(body).expect("pem body");
        let pair = RsaKeyPair::from_der(&pkcs1).expect("rsa key");
        let public = ring::rsa::PublicKeyComponents::<Vec<u8>>::from(pair.public());
        Self {
            kid: kid.into(),
            alg: Algorithm::RS256,
            encoding: EncodingKey::from_rsa_der(&pkcs1),
            jwk: json!({
                "kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
                "n": URL_SAFE_NO_PAD.encode(&public.n),
                "e": URL_SAFE_NO_PAD.encode(&public.e),
            }),
        }
    }

    /// The same key pair under another JWK member set (e.g. `use: "enc"`, another `alg`).
    pub fn with_jwk(mut self, change: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Self {
        if let Value::Object(members) = &mut self.jwk {
            change(members);
        }
        self
    }

    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        self.sign_with(header, claims)
    }

    pub fn sign_with(&self, header: Header, claims: &Value) -> String {
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("sign")
    }
}

/// A token with a hand-made header (for `alg: none` and the like) and no valid signature.
pub fn unsigned(header: &Value, claims: &Value, signature: &str) -> String {
    let header = URL_SAFE_NO_PAD.encode(header.to_string());
    let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{header}.{claims}.{signature}")
}

/// Fails the test rather than hanging it.
pub async fn within<T>(limit: Duration, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(limit, future)
        .await
        .expect("took too long")
}
