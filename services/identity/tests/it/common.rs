//! What every identity test starts from: the capabilities over a fresh database on one backend.

use gatehouse_identity::MIGRATIONS;
use gatehouse_identity::account::Accounts;
use gatehouse_identity::admin::{Admin, AdminSettings, Roles};
use gatehouse_identity::email_password::EmailPassword;
use gatehouse_identity::error::IdentityError;
use gatehouse_identity::password::Hasher;
use gatehouse_identity::user::Users;
use gatehouse_identity::username::{UsernameRules, Usernames};
use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_kit::testing::TestDb;

pub struct Setup {
    pub rules: EmailPassword,
    pub users: Users,
    pub accounts: Accounts,
    pub usernames: Usernames,
    pub admin: Admin,
    pub db: Db,
    _database: TestDb,
}

pub async fn setup(backend: Backend) -> Setup {
    let database = TestDb::new(backend).await;
    let db = database.connect(&MIGRATIONS).await;
    let rules = EmailPassword::new(db.clone(), Hasher::new(2, 64).unwrap(), 8, 128);
    let usernames = UsernameRules::default();
    Setup {
        accounts: Accounts::new(db.clone(), rules.clone(), usernames),
        usernames: Usernames::new(db.clone(), usernames, rules.clone()),
        admin: Admin::new(db.clone(), rules.clone(), usernames, admin_settings(vec![])),
        rules,
        users: Users::new(db.clone()),
        db,
        _database: database,
    }
}

pub async fn count(db: &Db, table: &str) -> i64 {
    let sql = match table {
        "users" => "SELECT COUNT(*) FROM users",
        "accounts" => "SELECT COUNT(*) FROM accounts",
        _ => "SELECT COUNT(*) FROM outbox WHERE published_at IS NULL",
    };
    let (n,): (i64,) = query(sql).fetch_one(db).await.expect("count");
    n
}

/// The code a refusal carries.
pub fn refused<T: std::fmt::Debug>(result: Result<T, IdentityError>) -> String {
    match result {
        Err(IdentityError::Refused(failure)) => failure.code().to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The HTTP status a refusal carries.
pub fn refused_status<T: std::fmt::Debug>(result: &Result<T, IdentityError>) -> u16 {
    match result {
        Err(IdentityError::Refused(failure)) => failure.http_status(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The admin plugin's defaults, with `admin_user_ids` passing every check.
pub fn admin_settings(admin_user_ids: Vec<String>) -> AdminSettings {
    AdminSettings {
        roles: Roles::new(Default::default(), admin_user_ids, vec!["admin".into()]),
        impersonation_lifetime: std::time::Duration::from_secs(3600),
        allow_impersonating_admins: false,
        default_ban_reason: "No reason".into(),
        default_ban_expires_in: None,
    }
}
