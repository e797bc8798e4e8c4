//! Token verification from a warm key set (what a service pays per request once its JWKS is
//! cached) and signing (what `/token` and get-session's `set-auth-jwt` pay), per algorithm.
//! `cargo bench -p gatehouse-jwks --bench verify`; figures in bench/RESULTS.md.

use std::time::{SystemTime, UNIX_EPOCH};

use criterion::{Criterion, criterion_group, criterion_main};
use gatehouse_jwks::signing::generate;
use gatehouse_jwks::{Expectations, KeySet, Settings, Signer, SigningAlgorithm};
use serde_json::{Value, json};

const ISSUER: &str = "https://auth.example.com";

/// A user's claims as the gateway signs them (a real user object's size).
fn claims() -> Value {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    json!({
        "iat": now, "exp": now + 900, "iss": ISSUER, "aud": ISSUER,
        "sub": "i8z5BU1PLq60Ht9qmrO0YApuXSpl95Ab", "id": "i8z5BU1PLq60Ht9qmrO0YApuXSpl95Ab",
        "name": "Sam Seller", "email": "sam@example.com", "emailVerified": true, "image": null,
        "createdAt": "2026-11-27T13:50:49.501Z", "updatedAt": "2026-11-27T13:50:49.501Z",
        "username": null, "displayUsername": null, "role": "user", "banned": false,
        "banReason": null, "banExpires": null, "language": 3
    })
}

fn bench(c: &mut Criterion) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let algorithms = [
        SigningAlgorithm::EdDSA,
        SigningAlgorithm::ES256,
        SigningAlgorithm::RS256,
    ];
    let pairs: Vec<_> = algorithms
        .iter()
        .map(|alg| generate(*alg, alg.as_str()).expect("a key pair"))
        .collect();
    let document =
        json!({ "keys": pairs.iter().map(|p| p.public_jwk.clone()).collect::<Vec<_>>() });

    // The key set served over HTTP once, as a service meets it; every verify after the first
    // is served from the cache.
    let url = runtime.block_on(async {
        let app = axum::Router::new().route(
            "/jwks",
            axum::routing::get(move || {
                let document = document.clone();
                async move { axum::Json(document) }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let url = format!("http://{}/jwks", listener.local_addr().expect("an address"));
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    });
    let keys = KeySet::new(
        url.parse().expect("a URL"),
        reqwest::Client::new(),
        Settings::default(),
    );
    let expect = Expectations::new(ISSUER, ISSUER);
    let claims = claims();

    for (alg, pair) in algorithms.iter().zip(&pairs) {
        let signer = Signer::from_pkcs8(alg.as_str(), *alg, &pair.pkcs8).expect("a signer");
        let token = signer.sign(&claims).expect("a token");
        runtime
            .block_on(keys.verify::<Value>(&token, &expect))
            .expect("verifies (and warms the cache)");
        c.bench_function(&format!("verify {alg} (warm key set)"), |b| {
            b.iter(|| {
                runtime
                    .block_on(keys.verify::<Value>(&token, &expect))
                    .expect("verifies")
            })
        });
        c.bench_function(&format!("sign {alg}"), |b| {
            b.iter(|| signer.sign(&claims).expect("signs"))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
