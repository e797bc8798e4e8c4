//! The identity service: users and the credentials they sign in with. One folder per
//! capability, each matching a proto service and a gateway route group of the same name:
//! `user/` (UserService), `email_password/` (EmailPasswordService), `account/`
//! (AccountService), `username/` (UsernameService), `admin/` (AdminService), `social/`
//! (SocialService), `api_key/` (ApiKeyService), `two_factor/` (TwoFactorService). `password` is the hashing pool they share;
//! `convert` the one place domain types become proto messages.

pub mod account;
pub mod admin;
pub mod api_key;
pub mod config;
pub mod convert;
pub mod email_password;
pub mod email_verification;
pub mod error;
pub mod password;
pub mod password_reset;
pub mod security_notice;
pub mod social;
pub mod two_factor;
pub mod user;
pub mod username;
pub mod verification;

use gatehouse_kit::auth_secret::AuthSecrets;
use gatehouse_kit::db::Migrations;
use gatehouse_kit::service::{BoxError, Context, GrpcServices, ServicePart};
use tokio_util::sync::CancellationToken;

pub use config::IdentityConfig;

pub const MIGRATIONS: Migrations = gatehouse_kit::service_migrations!();

pub use gatehouse_proto::identity::{DEFAULT_LISTEN, NAME};

/// The identity service as a part of the `gatehouse` binary.
pub const SERVICE: ServicePart = ServicePart {
    name: NAME,
    about: "The identity service alone (users, credentials)",
    default_listen: DEFAULT_LISTEN,
    default_ops_listen: "127.0.0.1:9301",
    migrations: &MIGRATIONS,
    database_connections: gatehouse_kit::service::DEFAULT_DATABASE_CONNECTIONS,
    start: |db, context, shutdown| Box::pin(start(db, context, shutdown)),
};

async fn start(
    db: gatehouse_kit::db::Db,
    context: Context,
    shutdown: CancellationToken,
) -> Result<GrpcServices, BoxError> {
    let config = IdentityConfig::from_env(&context.env)?;
    tracing::info!(?config, "identity configuration");
    let (pool_size, queue_limit) = (config.hash_pool_size, config.hash_queue_limit());
    // The dummy hash takes a hash's time: off the async runtime.
    let hasher = tokio::task::spawn_blocking(move || password::Hasher::new(pool_size, queue_limit))
        .await??;
    let throttle = email_password::throttle::SignInThrottle::new(
        context.cache.clone(),
        config.throttle_rules(),
    );
    let rules = email_password::EmailPassword::new(
        db.clone(),
        hasher,
        config.password_min_length,
        config.password_max_length,
    )
    .with_throttle(throttle)
    .with_sign_in_budget(config.sign_in_hash_budget())
    .with_username_rules(config.username_rules())
    .with_banned_message(&config.admin_banned_user_message)
    .with_email_verification(email_verification::EmailVerification::new(
        db.clone(),
        config.verification_settings(),
    ));
    let verification =
        email_verification::EmailVerification::new(db.clone(), config.verification_settings());
    let resets =
        password_reset::PasswordReset::new(db.clone(), rules.clone(), config.reset_settings());
    spawn_link_sweeper(db.clone(), shutdown.clone());
    let admin = admin::Admin::new(
        db.clone(),
        rules.clone(),
        config.username_rules(),
        config.admin_settings()?,
    );
    let accounts = account::Accounts::new(db.clone(), rules.clone(), config.username_rules())
        .with_delete_settings(config.delete_settings());
    let usernames = username::Usernames::new(db.clone(), config.username_rules(), rules.clone());
    let providers = social::config::providers(&context.env)?;
    let secrets = match AuthSecrets::from_env(&context.env)? {
        Some(secrets) => secrets,
        // Without providers no token is ever written, but two-factor secrets may be: they
        // would not open after a restart. Standalone always has a secret; this is a test rig.
        None if providers.is_empty() => {
            tracing::warn!(
                "AUTH_SECRET is not set: two-factor secrets are encrypted with a key of this run only"
            );
            AuthSecrets::single(gatehouse_kit::ids::random_alphanumeric(48).into())?
        }
        None => AuthSecrets::required(
            &context.env,
            "with SOCIAL_PROVIDERS, identity keeps the providers' tokens encrypted with keys \
             derived from it (the same secret as the gateway's)",
        )?,
    };
    let two_factor = two_factor::TwoFactor::new(
        db.clone(),
        secrets.vault(two_factor::VAULT_PURPOSE),
        rules.clone(),
        config.two_factor_settings(),
    )
    .with_throttle(email_password::throttle::SignInThrottle::new(
        context.cache.clone(),
        config.two_factor_throttle_rules(),
    ));
    let social = social::Social::new(
        db.clone(),
        providers,
        social::config::AccountLinking::from_env(&context.env)?,
        rules.clone(),
        secrets.vault(social::tokens::VAULT_PURPOSE),
    )?;
    if social.provider_ids().next().is_some() {
        tracing::info!(providers = ?social.provider_ids().collect::<Vec<_>>(), "social sign-in");
    }
    // An organization's keys go with it.
    gatehouse_kit::consumer::Consumer {
        queue: gatehouse_proto::events::IDENTITY_ORGANIZATION_EVENTS.name,
        db: db.clone(),
        bus: context.bus.clone(),
        handler: std::sync::Arc::new(api_key::events::OrganizationEvents),
        retry: gatehouse_kit::consumer::RetryPolicy::default(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown.clone());
    // A sign-in from a new device mails its user.
    gatehouse_kit::consumer::Consumer {
        queue: gatehouse_proto::events::IDENTITY_SESSION_EVENTS.name,
        db: db.clone(),
        bus: context.bus.clone(),
        handler: std::sync::Arc::new(security_notice::events::SessionEvents {
            mail_new_devices: config.new_device_mail,
        }),
        retry: gatehouse_kit::consumer::RetryPolicy::default(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown.clone());
    let api_keys =
        api_key::ApiKeys::new(db.clone(), context.cache.clone(), config.api_key_settings());
    Ok(GrpcServices::new()
        .serve(api_key::grpc::server(api_keys))
        .serve(user::grpc::server(user::Users::new(db)))
        .serve(email_password::grpc::server(rules))
        .serve(account::grpc::server(accounts))
        .serve(username::grpc::server(usernames))
        .serve(admin::grpc::server(admin))
        .serve(email_verification::grpc::server(verification))
        .serve(password_reset::grpc::server(resets))
        .serve(social::grpc::server(social))
        .serve(two_factor::grpc::server(two_factor)))
}

/// Expired links are kept a day (a click answers `TOKEN_EXPIRED` rather than `INVALID_TOKEN`),
/// then deleted, hourly.
fn spawn_link_sweeper(db: gatehouse_kit::db::Db, shutdown: CancellationToken) {
    const INTERVAL: std::time::Duration = std::time::Duration::from_secs(3600);
    tokio::spawn(async move {
        loop {
            let before = gatehouse_kit::ids::now() - chrono::Duration::days(1);
            match verification::store::delete_expired(&db, before).await {
                Ok(0) => {}
                Ok(count) => tracing::info!(count, "deleted expired mailed links"),
                Err(error) => tracing::warn!(%error, "expired-link sweep failed"),
            }
            match api_key::store::delete_expired(&db, gatehouse_kit::ids::now()).await {
                Ok(0) => {}
                Ok(count) => tracing::info!(count, "deleted expired API keys"),
                Err(error) => tracing::warn!(%error, "expired API key sweep failed"),
            }
            match two_factor::store::delete_expired(&db, gatehouse_kit::ids::now()).await {
                Ok(0) => {}
                Ok(count) => tracing::info!(
                    count,
                    "deleted expired two-factor challenges, codes and trusted devices"
                ),
                Err(error) => tracing::warn!(%error, "expired two-factor sweep failed"),
            }
            // Abandoned social sign-ins are of no use once expired.
            if let Err(error) =
                social::store::delete_expired_states(&db, gatehouse_kit::ids::now()).await
            {
                tracing::warn!(%error, "expired social-state sweep failed");
            }
            tokio::select! {
                _ = tokio::time::sleep(INTERVAL) => {}
                _ = shutdown.cancelled() => break,
            }
        }
    });
}
