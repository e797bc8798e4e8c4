//! The `two_factor` capability (`gatehouse.identity.v1.TwoFactorService`): better-auth's
//! twoFactor plugin. An authenticator (TOTP) set up and confirmed with a first code, codes by
//! mail, single-use backup codes, and trusted devices; sign-ins of a user with the second
//! factor on become challenges that a code turns into a session.
//!
//! Beyond better-auth: secrets and backup codes are sealed with keys derived from the auth
//! secret (purpose "two-factor"); a TOTP code is never accepted twice (the newest accepted
//! step is remembered); every guess goes through the sign-in throttle under the account, so
//! guesses spread over many challenges or sessions gain nothing; each challenge allows a few
//! wrong codes and is then used up.

pub mod grpc;
pub mod store;
pub mod totp;

use std::time::Duration;

use chrono::TimeDelta;
use gatehouse_kit::auth_secret::Vault;
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::{ErrorCode, base, two_factor as codes};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::{MailKind, MailRequested, TwoFactorChange, UserTwoFactorChanged};
use subtle::ConstantTimeEq;

use crate::email_password::EmailPassword;
use crate::email_password::throttle::{Attempt, SignInThrottle};
use crate::error::IdentityError;
use crate::user::User;
use store::Switch;

/// What the sealed values' keys are derived for (see `kit::auth_secret`).
pub const VAULT_PURPOSE: &str = "two-factor";
/// better-auth's secret: 32 characters of its default alphabet, used as the HMAC key as is.
const SECRET_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_";
const SECRET_LENGTH: usize = 32;
const BACKUP_CODE_ALPHABET: &[u8] =
    b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const BACKUP_CODES: usize = 10;
const OTP_DIGITS: usize = 6;
/// The web app's page where a pending sign-in's code is typed (the mailed code's link).
const CODE_PAGE: &str = "/sign-in/two-factor/";

#[derive(Clone, Debug)]
pub struct Settings {
    /// The TOTP URI's issuer (what the authenticator app shows).
    pub issuer: String,
    /// How long a pending sign-in waits for its code.
    pub challenge_lifetime: Duration,
    /// How long a trusted browser skips the second factor (renewed at each sign-in).
    pub trust_device_lifetime: Duration,
    /// How long a mailed code works.
    pub otp_lifetime: Duration,
    /// Wrong codes a challenge (or a mailed code) takes before it is used up.
    pub allowed_attempts: i32,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            issuer: "Gatehouse".into(),
            challenge_lifetime: Duration::from_secs(600),
            trust_device_lifetime: Duration::from_secs(30 * 24 * 3600),
            otp_lifetime: Duration::from_secs(180),
            allowed_attempts: 5,
        }
    }
}

/// Who a code is for.
#[derive(Clone, Debug)]
pub enum Target {
    /// A pending sign-in (the two-factor cookie's id).
    Challenge(String),
    /// A signed-in user, from one of their sessions.
    SignedIn { user_id: String, session_id: String },
}

impl Target {
    /// The key a mailed code is kept under.
    fn code_key(&self) -> String {
        match self {
            Target::Challenge(id) => format!("challenge:{}", ids::sha256_hex(id)),
            Target::SignedIn { session_id, .. } => format!("session:{session_id}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Totp,
    Otp,
    BackupCode,
}

/// What `enable` set up.
pub struct Enabled {
    pub method: &'static str,
    pub totp_uri: Option<String>,
    pub backup_codes: Vec<String>,
    pub user: User,
}

/// A first factor proved for a user with the second factor on.
pub enum SignInStart {
    /// The user's second factor is off (now): sign in.
    NotNeeded,
    /// A trusted browser: sign in, and keep the renewed identifier in its cookie.
    Trusted(TrustedDevice),
    Challenge {
        id: String,
        methods: Vec<&'static str>,
        expires_in: Duration,
    },
}

pub struct TrustedDevice {
    pub identifier: String,
    pub expires_in: Duration,
}

// The identifiers and codes these carry are secrets: their Debug shows none of them.
impl std::fmt::Debug for TrustedDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TrustedDevice(expires in {:?})", self.expires_in)
    }
}

impl std::fmt::Debug for Enabled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Enabled({}, user {})", self.method, self.user.id)
    }
}

impl std::fmt::Debug for SignInStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SignInStart::NotNeeded => write!(f, "NotNeeded"),
            SignInStart::Trusted(device) => write!(f, "Trusted({device:?})"),
            SignInStart::Challenge { methods, .. } => write!(f, "Challenge({methods:?})"),
        }
    }
}

#[derive(Debug)]
pub struct Verified {
    pub user: User,
    /// A challenge was used up: start a session, `remember` as the sign-in asked.
    pub sign_in: bool,
    pub remember: bool,
    pub trusted: Option<TrustedDevice>,
    /// The code turned the second factor on.
    pub enabled: bool,
}

/// A code's check: proved (whether that turns the second factor on, and for a TOTP code the
/// sealed secret it was proved against), or a wrong guess.
enum Check {
    Passed {
        enables: bool,
        secret: Option<String>,
    },
    Wrong(ErrorCode),
}

/// The per-account budget of wrong codes by default (`TWO_FACTOR_THROTTLE_*`): five free,
/// then each next guess waits (1 s, doubling to 15 minutes), counted over a day. Stricter than the password sign-in's: a second
/// factor is guessed only by someone who already has the password, and six digits fall to
/// about a million guesses. About a hundred a day get through; better-auth allows ten per
/// quarter hour.
pub const THROTTLE: crate::email_password::throttle::ThrottleRules =
    crate::email_password::throttle::ThrottleRules {
        after: 5,
        window: Duration::from_secs(24 * 3600),
        max_delay: Duration::from_secs(15 * 60),
    };

#[derive(Clone)]
pub struct TwoFactor {
    db: Db,
    vault: Vault,
    credentials: EmailPassword,
    throttle: Option<SignInThrottle>,
    settings: std::sync::Arc<Settings>,
}

impl TwoFactor {
    pub fn new(db: Db, vault: Vault, credentials: EmailPassword, settings: Settings) -> Self {
        Self {
            db,
            vault,
            credentials,
            throttle: None,
            settings: std::sync::Arc::new(settings),
        }
    }

    /// Counts every guess under the account (see `email_password::throttle`).
    pub fn with_throttle(self, throttle: SignInThrottle) -> Self {
        Self {
            throttle: Some(throttle),
            ..self
        }
    }

    async fn user(&self, user_id: &str) -> Result<User, IdentityError> {
        Ok(crate::user::store::get(&self.db, user_id)
            .await?
            .ok_or(base::USER_NOT_FOUND)?)
    }

    fn seal(&self, column: &str, user_id: &str, value: &str) -> String {
        self.vault.encrypt(&format!("{column}:{user_id}"), value)
    }

    fn open(&self, column: &str, user_id: &str, sealed: &str) -> Result<String, IdentityError> {
        self.vault
            .decrypt(&format!("{column}:{user_id}"), sealed)
            .map_err(|error| {
                IdentityError::internal(
                    "opening a two-factor value",
                    base::INTERNAL_SERVER_ERROR,
                    error,
                )
            })
    }

    fn totp_uri(&self, secret: &str, issuer: Option<&str>, user: &User) -> String {
        let issuer = issuer
            .filter(|i| !i.is_empty())
            .unwrap_or(&self.settings.issuer);
        totp::uri(secret.as_bytes(), issuer, &user.email)
    }

    pub async fn enable(
        &self,
        user_id: &str,
        password: &str,
        method: &str,
        issuer: Option<&str>,
    ) -> Result<Enabled, IdentityError> {
        let method = match method {
            "" | "totp" => Method::Totp,
            "otp" => Method::Otp,
            _ => {
                return Err(base::VALIDATION_ERROR
                    .with_message("[body.method] Invalid option: expected one of \"otp\"|\"totp\"")
                    .into());
            }
        };
        self.credentials.check_password(user_id, password).await?;
        let user = self.user(user_id).await?;
        if method == Method::Otp {
            let user = if user.two_factor_enabled {
                user
            } else {
                self.switch_on(&user.id, None).await?
            };
            return Ok(Enabled {
                method: "otp",
                totp_uri: None,
                backup_codes: Vec::new(),
                user,
            });
        }
        if store::secrets(&self.db, user_id)
            .await?
            .is_some_and(|s| s.verified)
        {
            return Err(codes::TOTP_ALREADY_ENABLED.into());
        }
        let secret = ids::random_from(SECRET_ALPHABET, SECRET_LENGTH);
        let backup_codes = new_backup_codes();
        let written = store::put_unverified(
            &self.db,
            user_id,
            &self.seal("two_factors.secret", user_id, &secret),
            &self.seal_codes(user_id, &backup_codes)?,
        )
        .await?;
        // Confirmed meanwhile (another tab): a verified secret is never replaced.
        if !written {
            return Err(codes::TOTP_ALREADY_ENABLED.into());
        }
        tracing::info!(user_id, "two-factor set-up started");
        Ok(Enabled {
            method: "totp",
            totp_uri: Some(self.totp_uri(&secret, issuer, &user)),
            backup_codes,
            user,
        })
    }

    pub async fn disable(&self, user_id: &str, password: &str) -> Result<User, IdentityError> {
        self.credentials.check_password(user_id, password).await?;
        let user = store::switch(&self.db, user_id, Switch::Off, |user| {
            vec![changed(user, TwoFactorChange::Disabled, "")]
        })
        .await?
        .ok_or(base::USER_NOT_FOUND)?;
        tracing::info!(user_id, "two-factor turned off");
        Ok(user)
    }

    pub async fn totp_uri_of(
        &self,
        user_id: &str,
        password: &str,
    ) -> Result<String, IdentityError> {
        let secrets = store::secrets(&self.db, user_id)
            .await?
            .ok_or(codes::TOTP_NOT_ENABLED)?;
        self.credentials.check_password(user_id, password).await?;
        let user = self.user(user_id).await?;
        let secret = self.open("two_factors.secret", user_id, &secrets.secret)?;
        Ok(self.totp_uri(&secret, None, &user))
    }

    pub async fn regenerate_backup_codes(
        &self,
        user_id: &str,
        password: &str,
    ) -> Result<Vec<String>, IdentityError> {
        let user = self.user(user_id).await?;
        if !user.two_factor_enabled {
            return Err(codes::TWO_FACTOR_NOT_ENABLED.into());
        }
        self.credentials.check_password(user_id, password).await?;
        let backup_codes = new_backup_codes();
        let sealed = self.seal_codes(user_id, &backup_codes)?;
        if !store::set_backup_codes(&self.db, user_id, &sealed).await? {
            return Err(codes::TWO_FACTOR_NOT_ENABLED.into());
        }
        tracing::info!(user_id, "backup codes replaced");
        Ok(backup_codes)
    }

    /// A first factor was proved for `user_id`: a trusted browser signs in (its trust renewed
    /// under a new identifier, so a copied cookie works once), any other gets a challenge.
    pub async fn begin_sign_in(
        &self,
        user_id: &str,
        remember: bool,
        trusted_device: Option<&str>,
    ) -> Result<SignInStart, IdentityError> {
        let store::UserWithSecrets { user, secrets } = store::user_with_secrets(&self.db, user_id)
            .await?
            .ok_or(base::USER_NOT_FOUND)?;
        if !user.two_factor_enabled {
            return Ok(SignInStart::NotNeeded);
        }
        if let Some(identifier) = trusted_device.filter(|i| !i.is_empty())
            && store::take_trusted_device(&self.db, identifier, user_id).await?
        {
            return Ok(SignInStart::Trusted(self.trust(user_id).await?));
        }
        let id = format!("2fa-{}", ids::random_alphanumeric(32));
        let expires_in = self.settings.challenge_lifetime;
        store::create_challenge(
            &self.db,
            &id,
            user_id,
            remember,
            ids::now() + delta(expires_in),
        )
        .await?;
        let mut methods = Vec::with_capacity(2);
        if secrets.is_some_and(|s| s.verified) {
            methods.push("totp");
        }
        methods.push("otp");
        Ok(SignInStart::Challenge {
            id,
            methods,
            expires_in,
        })
    }

    async fn trust(&self, user_id: &str) -> Result<TrustedDevice, IdentityError> {
        let identifier = format!("trust-device-{}", ids::random_alphanumeric(32));
        let expires_in = self.settings.trust_device_lifetime;
        store::trust_device(
            &self.db,
            &identifier,
            user_id,
            ids::now() + delta(expires_in),
        )
        .await?;
        Ok(TrustedDevice {
            identifier,
            expires_in,
        })
    }

    /// The user a code is for, with their secrets: a challenge's (`INVALID_TWO_FACTOR_COOKIE`
    /// when it is unknown or expired), or the signed-in one.
    async fn resolve(
        &self,
        target: &Target,
    ) -> Result<(store::UserWithSecrets, Option<store::Challenge>), IdentityError> {
        match target {
            Target::Challenge(id) => {
                let challenge = store::challenge(&self.db, id)
                    .await?
                    .ok_or(codes::INVALID_TWO_FACTOR_COOKIE)?;
                let found = store::user_with_secrets(&self.db, &challenge.user_id)
                    .await?
                    .ok_or(codes::INVALID_TWO_FACTOR_COOKIE)?;
                Ok((found, Some(challenge)))
            }
            Target::SignedIn { user_id, .. } => {
                let found = store::user_with_secrets(&self.db, user_id)
                    .await?
                    .ok_or(base::USER_NOT_FOUND)?;
                Ok((found, None))
            }
        }
    }

    /// Mails a fresh code to the target's user, replacing any earlier one.
    pub async fn send_otp(&self, target: &Target) -> Result<(), IdentityError> {
        let user = self.resolve(target).await?.0.user;
        let code = ids::random_from(b"0123456789", OTP_DIGITS);
        let key = target.code_key();
        let lifetime = self.settings.otp_lifetime;
        let mail = OutboxEvent::new(&MailRequested {
            kind: MailKind::TwoFactorCode.into(),
            to: user.email.clone(),
            name: if user.name.is_empty() {
                user.email.clone()
            } else {
                user.name.clone()
            },
            language: user.language,
            link_path: CODE_PAGE.into(),
            expires_in_seconds: lifetime.as_secs() as i64,
            params: [("code".to_string(), code.clone())].into_iter().collect(),
            user_id: user.id.clone(),
        });
        let sealed = self
            .vault
            .encrypt(&format!("two_factor_codes.code:{key}"), &code);
        store::put_code(
            &self.db,
            &key,
            &user.id,
            &sealed,
            ids::now() + delta(lifetime),
            &mail,
        )
        .await?;
        Ok(())
    }

    /// Checks a code for `target`. A challenge is used up by the right code (then `sign_in`),
    /// or by too many wrong ones; a signed-in user's first right code turns the second factor on.
    pub async fn verify(
        &self,
        target: &Target,
        method: Method,
        code: &str,
        trust_device: bool,
    ) -> Result<Verified, IdentityError> {
        let (store::UserWithSecrets { user, secrets }, challenge) = self.resolve(target).await?;
        let attempt = self.admit(&user.id).await?;
        if let (Target::Challenge(id), Some(challenge)) = (target, &challenge)
            && !store::take_challenge_attempt(&self.db, id, self.settings.allowed_attempts).await?
        {
            if challenge.attempts < self.settings.allowed_attempts {
                // Used up or expired by another request since it was read.
                return Err(codes::INVALID_TWO_FACTOR_COOKIE.into());
            }
            store::drop_challenge(&self.db, id).await?;
            return Err(codes::TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE.into());
        }
        let signing_in = challenge.is_some();
        let check = match method {
            Method::Totp => self.check_totp(&user, secrets, signing_in, code).await?,
            Method::Otp => self.check_otp(target, &user, code).await?,
            Method::BackupCode => self.check_backup_code(&user, secrets, code).await?,
        };
        let (enables, secret) = match check {
            Check::Wrong(refusal) => {
                self.record(&user.id, attempt, false).await;
                return Err(refusal.into());
            }
            Check::Passed { enables, secret } => (enables, secret),
        };
        self.record(&user.id, attempt, true).await;
        let mut verified = Verified {
            sign_in: false,
            remember: challenge.as_ref().is_some_and(|c| c.remember),
            trusted: None,
            enabled: false,
            user,
        };
        if let Target::Challenge(id) = target {
            if !store::consume_challenge(&self.db, id, &verified.user.id).await? {
                return Err(codes::INVALID_TWO_FACTOR_COOKIE.into());
            }
            verified.sign_in = true;
            if trust_device {
                verified.trusted = Some(self.trust(&verified.user.id).await?);
            }
        } else if enables && !verified.user.two_factor_enabled {
            verified.user = self.switch_on(&verified.user.id, secret).await?;
            verified.enabled = true;
        } else if let (true, Some(secret)) = (enables, secret) {
            // On already (codes by mail): the authenticator joins it.
            store::verify_secret(&self.db, &verified.user.id, &secret, ids::now()).await?;
        }
        Ok(verified)
    }

    async fn check_totp(
        &self,
        user: &User,
        secrets: Option<store::Secrets>,
        signing_in: bool,
        code: &str,
    ) -> Result<Check, IdentityError> {
        let secrets = secrets.ok_or(codes::TOTP_NOT_ENABLED)?;
        if signing_in && !secrets.verified {
            return Err(codes::TOTP_NOT_ENABLED.into());
        }
        let secret = self.open("two_factors.secret", &user.id, &secrets.secret)?;
        let now = totp::step_at(ids::now().timestamp());
        let Some(step) = totp::matching_step(secret.as_bytes(), code, now) else {
            return Ok(Check::Wrong(codes::INVALID_CODE));
        };
        // A code seen before (or older than one seen) is a replay: refused like a wrong one.
        if step <= secrets.last_totp_step
            || !store::accept_totp_step(&self.db, &user.id, &secrets.secret, step).await?
        {
            return Ok(Check::Wrong(codes::INVALID_CODE));
        }
        Ok(Check::Passed {
            enables: !secrets.verified,
            secret: Some(secrets.secret),
        })
    }

    async fn check_otp(
        &self,
        target: &Target,
        user: &User,
        code: &str,
    ) -> Result<Check, IdentityError> {
        let key = target.code_key();
        let mailed = store::code(&self.db, &key, &user.id)
            .await?
            .ok_or(codes::OTP_HAS_EXPIRED)?;
        if !store::take_code_attempt(&self.db, &key, self.settings.allowed_attempts).await? {
            return Err(codes::TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE.into());
        }
        let expected = self
            .vault
            .decrypt(&format!("two_factor_codes.code:{key}"), &mailed.code)
            .map_err(|error| {
                IdentityError::internal("opening a mailed code", base::INTERNAL_SERVER_ERROR, error)
            })?;
        if !bool::from(expected.as_bytes().ct_eq(code.as_bytes())) {
            return Ok(Check::Wrong(codes::INVALID_CODE));
        }
        if !store::consume_code(&self.db, &key, &mailed.code).await? {
            return Ok(Check::Wrong(codes::INVALID_CODE));
        }
        Ok(Check::Passed {
            enables: !user.two_factor_enabled,
            secret: None,
        })
    }

    async fn check_backup_code(
        &self,
        user: &User,
        secrets: Option<store::Secrets>,
        code: &str,
    ) -> Result<Check, IdentityError> {
        let secrets = secrets.ok_or(codes::BACKUP_CODES_NOT_ENABLED)?;
        let mut backup_codes = self.open_codes(&user.id, &secrets.backup_codes)?;
        let mut found = None;
        for (index, candidate) in backup_codes.iter().enumerate() {
            if bool::from(candidate.as_bytes().ct_eq(code.as_bytes())) {
                found = Some(index);
            }
        }
        let Some(index) = found else {
            return Ok(Check::Wrong(codes::INVALID_BACKUP_CODE));
        };
        backup_codes.remove(index);
        let rest = self.seal_codes(&user.id, &backup_codes)?;
        // Used at the same time by another request: only one of them gets it, and the other
        // is told to try again (better-auth's 409), not counted as a wrong guess.
        if !store::swap_backup_codes(&self.db, &user.id, &secrets.backup_codes, &rest).await? {
            return Err(IdentityError::Refused(
                gatehouse_kit::errors::Failure::message_only(
                    409,
                    "Failed to verify backup code. Please try again.",
                ),
            ));
        }
        Ok(Check::Passed {
            enables: false,
            secret: None,
        })
    }

    async fn switch_on(
        &self,
        user_id: &str,
        verify_secret: Option<String>,
    ) -> Result<User, IdentityError> {
        let user = store::switch(&self.db, user_id, Switch::On { verify_secret }, |user| {
            vec![changed(user, TwoFactorChange::Enabled, "")]
        })
        .await?
        .ok_or(base::USER_NOT_FOUND)?;
        tracing::info!(user_id, "two-factor turned on");
        Ok(user)
    }

    /// Forgets every browser the user trusted but `kept` (the caller's own, on a sign-out of
    /// the other sessions; `None` on a sign-out everywhere).
    pub async fn forget_trusted_devices(
        &self,
        user_id: &str,
        kept: Option<&str>,
    ) -> Result<(), IdentityError> {
        match kept.filter(|k| !k.is_empty()) {
            Some(kept) => {
                store::forget_other_devices(&self.db, user_id, kept).await?;
            }
            None => {
                let mut tx = self.db.begin().await?;
                store::forget_devices(&mut tx, user_id).await?;
                tx.commit().await?;
            }
        }
        Ok(())
    }

    fn seal_codes(&self, user_id: &str, backup_codes: &[String]) -> Result<String, IdentityError> {
        let json = serde_json::to_string(backup_codes).map_err(|error| {
            IdentityError::internal("writing backup codes", base::INTERNAL_SERVER_ERROR, error)
        })?;
        Ok(self.seal("two_factors.backup_codes", user_id, &json))
    }

    fn open_codes(&self, user_id: &str, sealed: &str) -> Result<Vec<String>, IdentityError> {
        let json = self.open("two_factors.backup_codes", user_id, sealed)?;
        serde_json::from_str(&json).map_err(|error| {
            IdentityError::internal("reading backup codes", base::INTERNAL_SERVER_ERROR, error)
        })
    }

    /// The account's turn in the throttle, refused while it waits out a delay.
    async fn admit(&self, user_id: &str) -> Result<Option<Attempt>, IdentityError> {
        let Some(throttle) = &self.throttle else {
            return Ok(None);
        };
        match throttle.admit(&throttle_key(user_id)).await {
            Ok(attempt) => Ok(Some(attempt)),
            Err(left) => {
                metrics::counter!("two_factor_refused_total", "why" => "account").increment(1);
                Err(IdentityError::Refused(
                    codes::ACCOUNT_TEMPORARILY_LOCKED
                        .with_retry_after(left.as_secs_f64().ceil() as u64),
                ))
            }
        }
    }

    async fn record(&self, user_id: &str, attempt: Option<Attempt>, succeeded: bool) {
        let (Some(throttle), Some(attempt)) = (&self.throttle, attempt) else {
            return;
        };
        if succeeded {
            throttle.succeeded(&throttle_key(user_id)).await;
        } else {
            metrics::counter!("two_factor_wrong_codes_total").increment(1);
            throttle.failed(&throttle_key(user_id), attempt).await;
        }
    }
}

fn throttle_key(user_id: &str) -> String {
    format!("two-factor:{user_id}")
}

fn delta(duration: Duration) -> TimeDelta {
    TimeDelta::from_std(duration).unwrap_or(TimeDelta::MAX)
}

/// Ten codes of ten letters and digits, shown as `xxxxx-xxxxx` (better-auth's form).
fn new_backup_codes() -> Vec<String> {
    (0..BACKUP_CODES)
        .map(|_| {
            let code = ids::random_from(BACKUP_CODE_ALPHABET, 10);
            format!("{}-{}", &code[..5], &code[5..])
        })
        .collect()
}

/// `user.two-factor-changed`; `by` is the admin behind a reset, empty for the user's own change.
pub(crate) fn changed(user: &User, change: TwoFactorChange, by: &str) -> OutboxEvent {
    OutboxEvent::new(&UserTwoFactorChanged {
        user_id: user.id.clone(),
        change: change.into(),
        changed_by: by.to_string(),
    })
}
