//! `gatehouse api-key create`: an operator's key for a user, with the limits only the server may
//! set (a usage cap with its refill, a rate limit, permissions), on the identity database as
//! `gatehouse admin` works. Prints the key (shown this once) and its row as JSON.

use anyhow::Context as _;
use clap::{Arg, ArgMatches, Command};
use gatehouse_identity::api_key::{ApiKeys, Limits, NewKey};
use gatehouse_kit::config::Env;

pub fn command() -> Command {
    let number = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .value_parser(clap::value_parser!(i64))
            .help(help)
    };
    Command::new("api-key")
        .about("Makes an API key for a user, with limits only the server sets (IDENTITY_DATABASE_URL, or DATA_DIR's SQLite)")
        .subcommand_required(true)
        .subcommand(
            Command::new("create")
                .about("Prints the new key (shown once) and its record as JSON")
                .arg(Arg::new("email").long("email").required(true).help("the owner's email"))
                .arg(Arg::new("name").long("name").help("what the key is for"))
                .arg(Arg::new("prefix").long("prefix").help("put before the key, e.g. gh_"))
                .arg(
                    Arg::new("expires-in")
                        .long("expires-in")
                        .value_parser(clap::value_parser!(f64))
                        .help("seconds until the key expires (1 to 365 days)"),
                )
                .arg(number("remaining", "uses allowed (none: no cap)"))
                .arg(number("refill-amount", "uses given back every --refill-interval-ms"))
                .arg(number("refill-interval-ms", "how often the uses are given back"))
                .arg(number("rate-limit-max", "requests allowed per --rate-limit-window-ms"))
                .arg(number("rate-limit-window-ms", "the rate limit's window"))
                .arg(
                    Arg::new("no-rate-limit")
                        .long("no-rate-limit")
                        .action(clap::ArgAction::SetTrue)
                        .help("no rate limit on this key"),
                )
                .arg(
                    Arg::new("permissions")
                        .long("permissions")
                        .help(r#"what the key may do, as JSON: {"files": ["read"]}"#),
                ),
        )
}

pub async fn run(args: &ArgMatches) -> anyhow::Result<()> {
    let Some(("create", args)) = args.subcommand() else {
        anyhow::bail!("usage: gatehouse api-key create --email <email> [limits]");
    };
    let env = Env::process();
    let _telemetry = gatehouse_kit::telemetry::init("api-key", &env)?;
    let text = |name: &str| args.get_one::<String>(name).cloned();
    let number = |name: &str| args.get_one::<i64>(name).copied();
    let email = text("email").context("--email is required")?;
    let name = gatehouse_identity::NAME;
    let database = gatehouse_kit::service::DatabaseSettings::from_env(&env, name)?;
    let url = database.url(&env.data_dir(), name);
    let db =
        gatehouse_kit::db::Db::connect(url.expose(), 1, &gatehouse_identity::MIGRATIONS).await?;
    let settings = gatehouse_identity::IdentityConfig::from_env(&env)?.api_key_settings();
    // Making a key counts nothing: the process's own memory serves as the cache.
    let cache =
        gatehouse_kit::cache::Cache::from_url("memory://", std::time::Duration::from_secs(1))?;
    let keys = ApiKeys::new(db.clone(), cache, settings);
    let made = async {
        let user = gatehouse_identity::user::store::find_by_email(&db, &email.to_lowercase())
            .await?
            .with_context(|| format!("no user with the email {email}"))?;
        let limits = Limits {
            remaining: number("remaining"),
            refill_amount: number("refill-amount"),
            refill_interval_ms: number("refill-interval-ms"),
            rate_limit_enabled: args.get_flag("no-rate-limit").then_some(false),
            rate_limit_time_window_ms: number("rate-limit-window-ms"),
            rate_limit_max: number("rate-limit-max"),
            permissions: text("permissions"),
        };
        let new = NewKey {
            user_id: user.id,
            name: text("name"),
            expires_in_secs: args.get_one::<f64>("expires-in").copied(),
            prefix: text("prefix"),
            metadata: None,
            limits,
            ..NewKey::default()
        };
        keys.create(new).await.map_err(|error| match error {
            gatehouse_identity::error::IdentityError::Refused(failure) => {
                anyhow::anyhow!("{} ({})", failure.message(), failure.code())
            }
            other => anyhow::anyhow!("{other}"),
        })
    }
    .await;
    db.close().await;
    let (row, key) = made?;
    println!(
        "{}",
        serde_json::json!({
            "key": key,
            "id": row.id,
            "userId": row.reference_id,
            "remaining": row.remaining,
            "rateLimitEnabled": row.rate_limit_enabled,
            "rateLimitMax": row.rate_limit_max,
            "rateLimitTimeWindow": row.rate_limit_time_window,
        })
    );
    Ok(())
}
