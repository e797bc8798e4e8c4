//! The second factor on each backend: what is kept at rest, set-up confirmed by a first code,
//! challenges and their limits, replay, the per-account throttle, mailed codes, backup codes
//! used once (also when raced), trusted devices and what forgets them, and a secret rotation.

use std::time::Duration;

use crate::common::{Setup, refused, refused_status, setup};
use gatehouse_identity::email_password::SignUp;
use gatehouse_identity::email_password::throttle::{SignInThrottle, ThrottleRules};
use gatehouse_identity::two_factor::{self, Method, SignInStart, Target, TwoFactor, totp};
use gatehouse_kit::auth_secret::AuthSecrets;
use gatehouse_kit::cache::Cache;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::errors::two_factor as codes;
use gatehouse_proto::events::v1::{MailRequested, TwoFactorChange, UserTwoFactorChanged};
use prost::Message as _;
use rstest::rstest;

const PASSWORD: &str = "Correct-Horse-9";

fn secrets(pairs: &[(&str, &str)]) -> AuthSecrets {
    AuthSecrets::from_env(&Env::from_pairs(pairs.iter().copied()))
        .unwrap()
        .unwrap()
}

fn two_factor(t: &Setup, secrets: &AuthSecrets) -> TwoFactor {
    TwoFactor::new(
        t.db.clone(),
        secrets.vault(two_factor::VAULT_PURPOSE),
        t.rules.clone(),
        two_factor::Settings::default(),
    )
}

fn default_secrets() -> AuthSecrets {
    secrets(&[("AUTH_SECRET", "one-secret-one-secret-one-secret-0001")])
}

async fn a_user(t: &Setup, email: &str) -> String {
    t.rules
        .sign_up(SignUp {
            name: "Tess".into(),
            email: email.into(),
            password: PASSWORD.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .user
        .id
}

/// The secret's bytes, read off the URI as an authenticator app does.
fn key_of(uri: &str) -> Vec<u8> {
    let url = url::Url::parse(uri).unwrap();
    let secret = url
        .query_pairs()
        .find(|(k, _)| k == "secret")
        .unwrap()
        .1
        .to_string();
    base32_decode(&secret)
}

fn base32_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let (mut out, mut buffer, mut bits) = (Vec::new(), 0u32, 0u32);
    for c in text.chars() {
        buffer = (buffer << 5) | ALPHABET.find(c).unwrap() as u32;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    out
}

fn code(key: &[u8], offset: i64) -> String {
    let step = totp::step_at(chrono::Utc::now().timestamp()) + offset;
    totp::hotp(key, step as u64)
}

/// Six digits that are none of the codes now accepted for `key`.
fn not_a_code(key: &[u8]) -> &'static str {
    let good: Vec<String> = (-1..=1).map(|o| code(key, o)).collect();
    ["000000", "111111", "222222", "333333"]
        .into_iter()
        .find(|c| !good.iter().any(|g| g == c))
        .unwrap()
}

fn signed_in(user_id: &str) -> Target {
    Target::SignedIn {
        user_id: user_id.into(),
        session_id: "session-1".into(),
    }
}

/// A user with an authenticator confirmed: (user id, key, backup codes).
async fn enrolled(t: &Setup, tf: &TwoFactor, email: &str) -> (String, Vec<u8>, Vec<String>) {
    let id = a_user(t, email).await;
    let enabled = tf.enable(&id, PASSWORD, "totp", None).await.unwrap();
    let key = key_of(enabled.totp_uri.as_deref().unwrap());
    let verified = tf
        .verify(&signed_in(&id), Method::Totp, &code(&key, 0), false)
        .await
        .unwrap();
    assert!(verified.enabled);
    (id, key, enabled.backup_codes)
}

async fn challenge(tf: &TwoFactor, user_id: &str) -> Target {
    match tf.begin_sign_in(user_id, true, None).await.unwrap() {
        SignInStart::Challenge { id, .. } => Target::Challenge(id),
        _ => panic!("expected a challenge"),
    }
}

async fn outbox(t: &Setup, topic: &str) -> Vec<Vec<u8>> {
    let rows: Vec<(String, Vec<u8>)> =
        query("SELECT topic, payload FROM outbox ORDER BY created_at, id")
            .fetch_all(&t.db)
            .await
            .unwrap();
    rows.into_iter()
        .filter(|(found, _)| found == topic)
        .map(|(_, payload)| payload)
        .collect()
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn secrets_are_sealed_at_rest_and_a_first_code_turns_the_second_factor_on(
    #[case] backend: Backend,
) {
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let id = a_user(&t, "tess@example.com").await;
    assert_eq!(
        refused(tf.enable(&id, "wrong-password", "totp", None).await),
        "INVALID_PASSWORD"
    );
    let enabled = tf.enable(&id, PASSWORD, "totp", None).await.unwrap();
    assert_eq!(enabled.backup_codes.len(), 10);
    let key = key_of(enabled.totp_uri.as_deref().unwrap());
    let (secret, backup_codes): (String, String) =
        query("SELECT secret, backup_codes FROM two_factors WHERE user_id = $1")
            .bind(id.as_str())
            .fetch_one(&t.db)
            .await
            .unwrap();
    assert!(secret.starts_with("$gh$1$"), "sealed: {secret}");
    assert!(!secret.contains(std::str::from_utf8(&key).unwrap()));
    assert!(
        enabled
            .backup_codes
            .iter()
            .all(|c| !backup_codes.contains(c.as_str()))
    );
    assert!(!t.users.get(&id).await.unwrap().two_factor_enabled);
    // Not on yet: a sign-in needs no second factor.
    assert!(matches!(
        tf.begin_sign_in(&id, true, None).await.unwrap(),
        SignInStart::NotNeeded
    ));

    let verified = tf
        .verify(&signed_in(&id), Method::Totp, &code(&key, 0), false)
        .await
        .unwrap();
    assert!(verified.enabled && verified.user.two_factor_enabled);
    let changes: Vec<UserTwoFactorChanged> = outbox(&t, "user.two-factor-changed")
        .await
        .iter()
        .map(|p| UserTwoFactorChanged::decode(p.as_slice()).unwrap())
        .collect();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].change(), TwoFactorChange::Enabled);
    assert_eq!(
        refused(tf.enable(&id, PASSWORD, "totp", None).await),
        "TOTP_ALREADY_ENABLED"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_challenge_ends_with_one_right_code_and_that_code_never_works_again(
    #[case] backend: Backend,
) {
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let (id, key, _) = enrolled(&t, &tf, "tess@example.com").await;
    let first = challenge(&tf, &id).await;
    let next = code(&key, 1);
    let verified = tf.verify(&first, Method::Totp, &next, false).await.unwrap();
    assert!(verified.sign_in && verified.remember && verified.trusted.is_none());
    assert_eq!(
        refused(tf.verify(&first, Method::Totp, &code(&key, 0), false).await),
        "INVALID_TWO_FACTOR_COOKIE",
        "used up"
    );
    let second = challenge(&tf, &id).await;
    let replay = tf.verify(&second, Method::Totp, &next, false).await;
    assert_eq!(refused_status(&replay), 401);
    assert_eq!(refused(replay), "INVALID_CODE");
    // The current step is older than the accepted one: refused too.
    assert_eq!(
        refused(
            tf.verify(&second, Method::Totp, &code(&key, 0), false)
                .await
        ),
        "INVALID_CODE"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn five_wrong_codes_use_a_challenge_up(#[case] backend: Backend) {
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let (id, key, _) = enrolled(&t, &tf, "tess@example.com").await;
    let target = challenge(&tf, &id).await;
    let wrong = not_a_code(&key);
    for _ in 0..5 {
        assert_eq!(
            refused(tf.verify(&target, Method::Totp, wrong, false).await),
            "INVALID_CODE"
        );
    }
    let sixth = tf
        .verify(&target, Method::Totp, &code(&key, 1), false)
        .await;
    assert_eq!(refused_status(&sixth), 400);
    assert_eq!(refused(sixth), "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE");
    assert_eq!(
        refused(
            tf.verify(&target, Method::Totp, &code(&key, 1), false)
                .await
        ),
        "INVALID_TWO_FACTOR_COOKIE"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn guesses_count_per_account_across_challenges(#[case] backend: Backend) {
    let t = setup(backend).await;
    let cache = Cache::from_url("memory://", Duration::from_millis(50)).unwrap();
    let tf = two_factor(&t, &default_secrets()).with_throttle(SignInThrottle::new(
        cache,
        ThrottleRules {
            after: 2,
            window: Duration::from_secs(900),
            max_delay: Duration::from_secs(30),
        },
    ));
    let (id, key, _) = enrolled(&t, &tf, "tess@example.com").await;
    let wrong = not_a_code(&key);
    for _ in 0..2 {
        let fresh = challenge(&tf, &id).await;
        assert_eq!(
            refused(tf.verify(&fresh, Method::Totp, wrong, false).await),
            "INVALID_CODE"
        );
    }
    // A new challenge (or a new session) does not start the count afresh.
    let fresh = challenge(&tf, &id).await;
    let locked = tf.verify(&fresh, Method::Totp, &code(&key, 1), false).await;
    assert_eq!(refused_status(&locked), 429);
    assert_eq!(refused(locked), codes::ACCOUNT_TEMPORARILY_LOCKED.code());
    let by_session = tf
        .verify(&signed_in(&id), Method::Totp, &code(&key, 1), false)
        .await;
    assert_eq!(refused(by_session), "ACCOUNT_TEMPORARILY_LOCKED");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_mailed_code_works_once_for_its_own_challenge(#[case] backend: Backend) {
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let (id, _, _) = enrolled(&t, &tf, "tess@example.com").await;
    let target = challenge(&tf, &id).await;
    assert_eq!(
        refused(tf.verify(&target, Method::Otp, "123456", false).await),
        "OTP_HAS_EXPIRED",
        "nothing mailed yet"
    );
    tf.send_otp(&target).await.unwrap();
    let mails: Vec<MailRequested> = outbox(&t, "mail.requested")
        .await
        .iter()
        .map(|p| MailRequested::decode(p.as_slice()).unwrap())
        .collect();
    let mail = mails.last().unwrap();
    assert_eq!(mail.to, "tess@example.com");
    assert_eq!(mail.link_path, "/sign-in/two-factor/");
    assert_eq!(mail.expires_in_seconds, 180);
    let mailed = mail.params["code"].clone();
    assert_eq!(mailed.len(), 6);
    let (stored,): (String,) = query("SELECT code FROM two_factor_codes")
        .fetch_one(&t.db)
        .await
        .unwrap();
    assert!(!stored.contains(&mailed), "sealed at rest");

    // Another pending sign-in cannot use it.
    let other = challenge(&tf, &id).await;
    assert_eq!(
        refused(tf.verify(&other, Method::Otp, &mailed, false).await),
        "OTP_HAS_EXPIRED"
    );
    let wrong = if mailed == "000000" {
        "000001"
    } else {
        "000000"
    };
    assert_eq!(
        refused(tf.verify(&target, Method::Otp, wrong, false).await),
        "INVALID_CODE"
    );
    let verified = tf
        .verify(&target, Method::Otp, &mailed, false)
        .await
        .unwrap();
    assert!(verified.sign_in);
    let again = challenge(&tf, &id).await;
    tf.send_otp(&again).await.unwrap();
    assert_eq!(
        refused(tf.verify(&again, Method::Otp, &mailed, false).await),
        "INVALID_CODE",
        "a new code replaces it"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_backup_code_works_once_even_when_raced(#[case] backend: Backend) {
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let (id, _, backup_codes) = enrolled(&t, &tf, "tess@example.com").await;
    let (a, b) = (challenge(&tf, &id).await, challenge(&tf, &id).await);
    let (first, second) = tokio::join!(
        tf.verify(&a, Method::BackupCode, &backup_codes[0], false),
        tf.verify(&b, Method::BackupCode, &backup_codes[0], false),
    );
    assert_eq!(
        usize::from(first.is_ok()) + usize::from(second.is_ok()),
        1,
        "one of two concurrent uses: {first:?} {second:?}"
    );
    // The other was refused as a used code, or (when both read the codes first) asked to try
    // again, better-auth's 409, without counting as a wrong guess.
    let loser = if first.is_ok() { second } else { first };
    let status = refused_status(&loser);
    assert!(
        status == 409 || refused(loser) == "INVALID_BACKUP_CODE",
        "status {status}"
    );
    let c = challenge(&tf, &id).await;
    assert_eq!(
        refused(
            tf.verify(&c, Method::BackupCode, &backup_codes[0], false)
                .await
        ),
        "INVALID_BACKUP_CODE"
    );
    let fresh = tf.regenerate_backup_codes(&id, PASSWORD).await.unwrap();
    assert_eq!(
        refused(
            tf.verify(&c, Method::BackupCode, &backup_codes[1], false)
                .await
        ),
        "INVALID_BACKUP_CODE",
        "replaced"
    );
    assert!(
        tf.verify(&c, Method::BackupCode, &fresh[0], false)
            .await
            .unwrap()
            .sign_in
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_trusted_device_is_renewed_at_each_use_and_forgotten_with_a_new_password(
    #[case] backend: Backend,
) {
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let (id, key, _) = enrolled(&t, &tf, "tess@example.com").await;
    let other = a_user(&t, "other@example.com").await;
    let target = challenge(&tf, &id).await;
    let trusted = tf
        .verify(&target, Method::Totp, &code(&key, 1), true)
        .await
        .unwrap()
        .trusted
        .unwrap();
    assert_eq!(trusted.expires_in, Duration::from_secs(30 * 24 * 3600));
    let renewed = match tf
        .begin_sign_in(&id, true, Some(&trusted.identifier))
        .await
        .unwrap()
    {
        SignInStart::Trusted(device) => device,
        _ => panic!("a trusted device signs in"),
    };
    assert_ne!(renewed.identifier, trusted.identifier);
    assert!(
        matches!(
            tf.begin_sign_in(&id, true, Some(&trusted.identifier))
                .await
                .unwrap(),
            SignInStart::Challenge { .. }
        ),
        "the old identifier was used up"
    );
    // Another user's sign-in gets nothing from it.
    tf.enable(&other, PASSWORD, "otp", None).await.unwrap();
    assert!(matches!(
        tf.begin_sign_in(&other, true, Some(&renewed.identifier))
            .await
            .unwrap(),
        SignInStart::Challenge { .. }
    ));
    t.accounts
        .change_password(&id, PASSWORD, "Another-Horse-9")
        .await
        .unwrap();
    assert!(
        matches!(
            tf.begin_sign_in(&id, true, Some(&renewed.identifier))
                .await
                .unwrap(),
            SignInStart::Challenge { .. }
        ),
        "a new password forgets it"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn disable_removes_the_secret_and_trust_and_says_so(#[case] backend: Backend) {
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let (id, key, _) = enrolled(&t, &tf, "tess@example.com").await;
    let target = challenge(&tf, &id).await;
    let trusted = tf
        .verify(&target, Method::Totp, &code(&key, 1), true)
        .await
        .unwrap()
        .trusted
        .unwrap();
    assert_eq!(
        refused(tf.disable(&id, "wrong-password").await),
        "INVALID_PASSWORD"
    );
    let user = tf.disable(&id, PASSWORD).await.unwrap();
    assert!(!user.two_factor_enabled);
    for table in ["two_factors", "trusted_devices"] {
        let sql = if table == "two_factors" {
            "SELECT COUNT(*) FROM two_factors"
        } else {
            "SELECT COUNT(*) FROM trusted_devices"
        };
        let (n,): (i64,) = query(sql).fetch_one(&t.db).await.unwrap();
        assert_eq!(n, 0, "{table}");
    }
    let last = outbox(&t, "user.two-factor-changed").await;
    let change = UserTwoFactorChanged::decode(last.last().unwrap().as_slice()).unwrap();
    assert_eq!(change.change(), TwoFactorChange::Disabled);
    assert!(matches!(
        tf.begin_sign_in(&id, true, Some(&trusted.identifier))
            .await
            .unwrap(),
        SignInStart::NotNeeded
    ));
    assert_eq!(
        refused(tf.regenerate_backup_codes(&id, PASSWORD).await),
        "TWO_FACTOR_NOT_ENABLED"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn secrets_written_before_a_rotation_of_the_auth_secret_still_open(#[case] backend: Backend) {
    let t = setup(backend).await;
    let old = secrets(&[("AUTH_SECRET", "old-secret-old-secret-old-secret-0001")]);
    let (id, key, backup_codes) = enrolled(&t, &two_factor(&t, &old), "tess@example.com").await;
    let rotated = secrets(&[(
        "AUTH_SECRETS",
        "2:new-secret-new-secret-new-secret-0002,1:old-secret-old-secret-old-secret-0001",
    )]);
    let tf = two_factor(&t, &rotated);
    let target = challenge(&tf, &id).await;
    assert!(
        tf.verify(&target, Method::Totp, &code(&key, 1), false)
            .await
            .unwrap()
            .sign_in
    );
    let target = challenge(&tf, &id).await;
    assert!(
        tf.verify(&target, Method::BackupCode, &backup_codes[0], false)
            .await
            .unwrap()
            .sign_in
    );
    // Written again under the new version, they no longer open with the old secret alone.
    let (stored,): (String,) = query("SELECT backup_codes FROM two_factors WHERE user_id = $1")
        .bind(id.as_str())
        .fetch_one(&t.db)
        .await
        .unwrap();
    assert!(stored.starts_with("$gh$2$"));
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_admin_resets_a_users_second_factor_and_the_user_hears_of_it(#[case] backend: Backend) {
    use gatehouse_identity::admin::Admin;
    use gatehouse_proto::events::v1::MailKind;
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let (id, _, _) = enrolled(&t, &tf, "tess@example.com").await;
    let admin_id = a_user(&t, "root@example.com").await;
    let bystander = a_user(&t, "bystander@example.com").await;
    let admin = Admin::new(
        t.db.clone(),
        t.rules.clone(),
        Default::default(),
        crate::common::admin_settings(vec![admin_id.clone()]),
    );
    let refused_reset = admin.reset_two_factor(&bystander, &id).await;
    assert_eq!(refused_status(&refused_reset), 403);
    assert_eq!(
        refused(refused_reset),
        "YOU_ARE_NOT_ALLOWED_TO_RESET_USERS_TWO_FACTOR"
    );
    assert!(t.users.get(&id).await.unwrap().two_factor_enabled);

    let user = admin.reset_two_factor(&admin_id, &id).await.unwrap();
    assert!(!user.two_factor_enabled);
    let (n,): (i64,) = query("SELECT COUNT(*) FROM two_factors")
        .fetch_one(&t.db)
        .await
        .unwrap();
    assert_eq!(n, 0);
    let change = outbox(&t, "user.two-factor-changed").await;
    let change = UserTwoFactorChanged::decode(change.last().unwrap().as_slice()).unwrap();
    assert_eq!(change.change(), TwoFactorChange::Reset);
    assert_eq!(change.changed_by, admin_id);
    let mail = outbox(&t, "mail.requested").await;
    let mail = MailRequested::decode(mail.last().unwrap().as_slice()).unwrap();
    assert_eq!(mail.kind(), MailKind::TwoFactorResetByAdmin);
    assert_eq!(mail.to, "tess@example.com");
    assert_eq!(
        outbox(&t, "user.credentials-changed").await.len(),
        1,
        "signed out everywhere"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_verified_secret_is_never_replaced_and_a_new_password_ends_pending_sign_ins(
    #[case] backend: Backend,
) {
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let (id, key, _) = enrolled(&t, &tf, "tess@example.com").await;
    // A set-up raced by its own confirmation (another tab): the verified secret stays.
    assert!(
        !two_factor::store::put_unverified(&t.db, &id, "other", "codes")
            .await
            .unwrap()
    );
    let pending = challenge(&tf, &id).await;
    t.accounts
        .change_password(&id, PASSWORD, "Another-Horse-9")
        .await
        .unwrap();
    assert_eq!(
        refused(
            tf.verify(&pending, Method::Totp, &code(&key, 1), false)
                .await
        ),
        "INVALID_TWO_FACTOR_COOKIE",
        "a sign-in started with the old password ends with it"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn parallel_guesses_cannot_exceed_a_challenges_attempts(#[case] backend: Backend) {
    let t = setup(backend).await;
    let tf = two_factor(&t, &default_secrets());
    let (id, key, _) = enrolled(&t, &tf, "tess@example.com").await;
    let target = challenge(&tf, &id).await;
    let wrong = not_a_code(&key);
    let guesses = (0..12).map(|_| tf.verify(&target, Method::Totp, wrong, false));
    let answers = futures_util::future::join_all(guesses).await;
    let checked = answers
        .into_iter()
        .filter(|a| matches!(a, Err(e) if format!("{e:?}").contains("INVALID_CODE")))
        .count();
    assert!(checked <= 5, "{checked} guesses were checked");
}
