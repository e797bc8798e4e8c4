//! `gatehouse`: one binary for every process. With no subcommand it runs standalone mode (all
//! services and the gateway in one process); `identity`, `session` and `gateway` run one part
//! each, for distributed deployments. Configuration comes from the environment (README).

mod allocator;
mod api_key_command;

use std::time::Instant;

use anyhow::Context as _;
use clap::Command;
use gatehouse_kit::config::Env;
use gatehouse_kit::listener::HttpLimits;
use gatehouse_kit::server::shutdown_on_signal;
use gatehouse_kit::service::{Context, listen_var, ops_listen_var};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The command line: standalone, the gateway, one subcommand per service part, and tools.
fn cli() -> Command {
    let mut command = Command::new("gatehouse")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Accounts, sessions and organizations, speaking better-auth's protocol")
        .subcommand(
            Command::new("standalone")
                .about("Every service and the gateway in one process (the default)"),
        )
        .subcommand(Command::new("gateway").about("The HTTP gateway alone (/api/auth)"))
        .subcommand(
            Command::new("replay-dead-letters")
                .about("Puts a consumer queue's dead letters back on it (BUS_URL must be amqp://)")
                .arg(
                    clap::Arg::new("queue")
                        .required(true)
                        .help("e.g. session.user-events"),
                ),
        )
        .subcommand(Command::new("hash-timing").about(
            "Prints how long one argon2id password hash takes here (for capacity planning)",
        ))
        .subcommand(
            Command::new("healthcheck")
                .about("Exits 0 when a process's operations listener answers GET /healthz (for probes that cannot use HTTP)")
                .arg(
                    clap::Arg::new("addr")
                        .long("addr")
                        .default_value("127.0.0.1:9300")
                        .help("the operations listener: GATEWAY_OPS_LISTEN, <NAME>_OPS_LISTEN"),
                ),
        )
        .subcommand(
            Command::new("migrate")
                .about("Applies one service's database migrations, then exits (the init step of its pods)")
                .arg(
                    clap::Arg::new("part")
                        .required(true)
                        .value_parser(gatehouse::PARTS.iter().map(|p| p.name()).collect::<Vec<_>>())
                        .help("the service whose <NAME>_DATABASE_URL to migrate"),
                ),
        )
        .subcommand(
            Command::new("admin")
                .about("Grants or revokes a user's admin role, on the identity database (IDENTITY_DATABASE_URL, or DATA_DIR's SQLite)")
                .subcommand_required(true)
                .subcommand(role_change("grant", "Makes the user an admin (adds the role)"))
                .subcommand(role_change("revoke", "Takes the role away (the user keeps their others)")),
        )
        .subcommand(api_key_command::command())
        .subcommand(
            Command::new("parts")
                .about("Lists the parts a deployment runs, one per line (each needs its manifests)")
                .arg(
                    clap::Arg::new("json")
                        .long("json")
                        .action(clap::ArgAction::SetTrue)
                        .help("each part with its listen, operations, URL and database variables and defaults, as JSON"),
                ),
        );
    for part in gatehouse::PARTS {
        command = command.subcommand(Command::new(part.name()).about(part.about()));
    }
    command
}

/// `gatehouse admin grant|revoke (--email <email> | --user-id <id>) [--role admin]`.
fn role_change(name: &'static str, about: &'static str) -> Command {
    Command::new(name)
        .about(about)
        .arg(
            clap::Arg::new("email")
                .long("email")
                .help("the user's email"),
        )
        .arg(
            clap::Arg::new("user-id")
                .long("user-id")
                .help("the user's id"),
        )
        .group(
            clap::ArgGroup::new("who")
                .args(["email", "user-id"])
                .required(true),
        )
        .arg(
            clap::Arg::new("role")
                .long("role")
                .default_value("admin")
                .help("the role granted or revoked"),
        )
}

/// The median wall time of nine runs of `work`, in milliseconds.
fn median_ms<T, E: std::error::Error + Send + Sync + 'static>(
    mut work: impl FnMut() -> Result<T, E>,
) -> anyhow::Result<f64> {
    let mut samples = Vec::new();
    for _ in 0..9 {
        let started = Instant::now();
        work()?;
        samples.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    samples.sort_by(f64::total_cmp);
    Ok(samples[samples.len() / 2])
}

/// The wall time of one hash while `threads` hash at once, each with its own warm memory.
fn parallel_hash_ms(threads: usize) -> anyhow::Result<f64> {
    const ROUNDS: usize = 12;
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            std::thread::spawn(|| {
                let mut memory = gatehouse_identity::password::working_memory();
                for _ in 0..ROUNDS {
                    gatehouse_identity::password::hash_with(&mut memory, "benchmark-password-123")?;
                }
                Ok::<_, gatehouse_identity::password::HashError>(())
            })
        })
        .collect();
    for worker in workers {
        worker
            .join()
            .map_err(|_| anyhow::anyhow!("hashing thread panicked"))??;
    }
    Ok(started.elapsed().as_secs_f64() * 1000.0 / ROUNDS as f64)
}

fn main() -> anyhow::Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let matches = cli().get_matches();
    let command = matches
        .subcommand_name()
        .unwrap_or("standalone")
        .to_string();
    let queue = matches
        .subcommand_matches("replay-dead-letters")
        .and_then(|m| m.get_one::<String>("queue").cloned());
    match command.as_str() {
        "hash-timing" => return hash_timing(),
        "parts" => {
            let placements = gatehouse::placements();
            if matches
                .subcommand_matches("parts")
                .is_some_and(|m| m.get_flag("json"))
            {
                println!("{}", serde_json::to_string_pretty(&placements)?);
            } else {
                for placement in placements {
                    println!("{}", placement.name);
                }
            }
            return Ok(());
        }
        "healthcheck" => {
            let addr = matches
                .subcommand_matches("healthcheck")
                .and_then(|m| m.get_one::<String>("addr").cloned())
                .unwrap_or_default();
            return healthcheck(&addr);
        }
        _ => {}
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    if let Some(("admin", admin)) = matches.subcommand()
        && let Some((action, args)) = admin.subcommand()
    {
        let text = |name: &str| args.get_one::<String>(name).cloned();
        let role = text("role").unwrap_or_else(|| "admin".into());
        return runtime.block_on(admin_role(
            action == "grant",
            text("email"),
            text("user-id"),
            &role,
        ));
    }
    if let Some(args) = matches.subcommand_matches("api-key") {
        return runtime.block_on(api_key_command::run(args));
    }
    if let Some(part) = matches
        .subcommand_matches("migrate")
        .and_then(|m| m.get_one::<String>("part"))
    {
        return runtime.block_on(migrate(part));
    }
    match queue {
        Some(queue) => runtime.block_on(replay_dead_letters(&queue)),
        None => runtime.block_on(run(&command)),
    }
}

async fn listener(env: &Env, name: &str, default: &str) -> anyhow::Result<TcpListener> {
    let addr = env.string(name, default);
    TcpListener::bind(&addr)
        .await
        .with_context(|| format!("{name}: cannot listen on {addr}"))
}

async fn run(command: &str) -> anyhow::Result<()> {
    let env = Env::process();
    let data_dir = env.data_dir();
    let _telemetry = gatehouse_kit::telemetry::init(command, &env)?;
    let shutdown = shutdown_on_signal();
    match command {
        "standalone" => {
            let running = gatehouse::standalone::start(&env, shutdown).await?;
            // BASE_URL, not the listen address: its origin is the one the auth API trusts.
            println!(
                "Gatehouse is running: {} (the web app; the API at /api/auth; listening on {}; data in {data_dir})",
                running.base_url, running.gateway_addr
            );
            running.wait().await.map_err(anyhow::Error::msg)?;
        }
        "gateway" => {
            let config = gatehouse_gateway::GatewayConfig::from_env(&env)?;
            let public = listener(&env, "GATEWAY_LISTEN", &config.listen.clone()).await?;
            let ops = listener(&env, "GATEWAY_OPS_LISTEN", &config.ops_listen.clone()).await?;
            spawn_operations(ops, config.http, shutdown.clone());
            gatehouse_gateway::run(config, public, shutdown).await?;
        }
        name => {
            let part = gatehouse::part(name).with_context(|| format!("no part named {name}"))?;
            let context = Context::from_env(env.clone())?;
            let grpc = listener(&env, &listen_var(name), part.default_listen()).await?;
            let ops = listener(&env, &ops_listen_var(name), part.default_ops_listen()).await?;
            spawn_operations(ops, context.http, shutdown.clone());
            part.run(context, grpc, shutdown)
                .await
                .map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
        }
    }
    Ok(())
}

/// Metrics and health on their own listener, until `shutdown`.
fn spawn_operations(listener: TcpListener, limits: HttpLimits, shutdown: CancellationToken) {
    tokio::spawn(async move {
        if let Err(error) =
            gatehouse_kit::server::serve_operations(listener, limits, shutdown).await
        {
            tracing::error!(%error, "operations listener stopped");
        }
    });
}

/// `gatehouse admin grant|revoke`: on the identity database, with the `user.updated` event.
async fn admin_role(
    grant: bool,
    email: Option<String>,
    user_id: Option<String>,
    role: &str,
) -> anyhow::Result<()> {
    let env = Env::process();
    let _telemetry = gatehouse_kit::telemetry::init("admin", &env)?;
    // Only a role the deployment knows (`admin`, `user`, `ADMIN_CUSTOM_ROLES`), as set-role.
    let roles = gatehouse_identity::IdentityConfig::from_env(&env)?
        .admin_settings()?
        .roles;
    if !roles.knows(&[role.to_string()]) {
        anyhow::bail!("no role named {role:?} (admin, user, or one of ADMIN_CUSTOM_ROLES)");
    }
    let name = gatehouse_identity::NAME;
    let database = gatehouse_kit::service::DatabaseSettings::from_env(&env, name)?;
    let url = database.url(&env.data_dir(), name);
    let db =
        gatehouse_kit::db::Db::connect(url.expose(), 1, &gatehouse_identity::MIGRATIONS).await?;
    let named = match (&email, &user_id) {
        (Some(email), _) => gatehouse_identity::admin::Named::Email(email),
        (None, Some(id)) => gatehouse_identity::admin::Named::Id(id),
        (None, None) => anyhow::bail!("name the user with --email or --user-id"),
    };
    let changed = gatehouse_identity::admin::change_role(&db, named, role, grant).await;
    db.close().await;
    let user = changed.map_err(|error| match error {
        gatehouse_identity::error::IdentityError::Refused(failure) => {
            anyhow::anyhow!("{}", failure.message())
        }
        other => anyhow::anyhow!("{other}"),
    })?;
    println!(
        "{} ({}) now has the roles: {}",
        user.email, user.id, user.role
    );
    Ok(())
}

/// `gatehouse migrate <part>`.
async fn migrate(name: &str) -> anyhow::Result<()> {
    let env = Env::process();
    let _telemetry = gatehouse_kit::telemetry::init(name, &env)?;
    let part = gatehouse::part(name).with_context(|| format!("no part named {name}"))?;
    part.migrate(env)
        .await
        .map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
    println!("{name}: migrations applied");
    Ok(())
}

/// `gatehouse replay-dead-letters <queue>`.
async fn replay_dead_letters(queue: &str) -> anyhow::Result<()> {
    let env = Env::process();
    let bus = gatehouse_kit::config::Backends::from_env(&env)?.bus()?;
    if matches!(bus, gatehouse_kit::bus::Bus::Memory(_)) {
        anyhow::bail!(
            "BUS_URL is memory://: a consumer's failures stay in the publishing service's outbox, parked after their last attempt (outbox_parked_total)"
        );
    }
    let count = gatehouse_kit::consumer::replay_dead_letters(&bus, queue).await?;
    println!("replayed {count} dead letters onto {queue}");
    Ok(())
}

/// `gatehouse healthcheck --addr host:port`: one plain HTTP/1.0 request, two seconds at most.
fn healthcheck(addr: &str) -> anyhow::Result<()> {
    use std::io::{Read, Write};
    let timeout = std::time::Duration::from_secs(2);
    let target = std::net::ToSocketAddrs::to_socket_addrs(addr)
        .with_context(|| format!("resolving {addr}"))?
        .next()
        .with_context(|| format!("{addr} has no address"))?;
    let mut stream = std::net::TcpStream::connect_timeout(&target, timeout)
        .with_context(|| format!("connecting to {addr}"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.write_all(b"GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
    let mut answer = Vec::new();
    stream.take(4096).read_to_end(&mut answer)?;
    let status_line = String::from_utf8_lossy(&answer);
    let status_line = status_line.lines().next().unwrap_or_default();
    if status_line.split_whitespace().nth(1) == Some("200") {
        println!("healthy: {addr}");
        Ok(())
    } else {
        anyhow::bail!("{addr} answered {status_line:?}")
    }
}

/// `gatehouse hash-timing`.
fn hash_timing() -> anyhow::Result<()> {
    // The service's own path: working memory reused, as while sign-ins keep coming.
    let mut memory = gatehouse_identity::password::working_memory();
    let warm = median_ms(|| {
        gatehouse_identity::password::hash_with(&mut memory, "benchmark-password-123")
    })?;
    // A lone sign-in after an idle spell allocates its memory afresh.
    let cold = median_ms(|| gatehouse_identity::password::hash_blocking("benchmark-password-123"))?;
    // One hash per core at once: what the machine can do in parallel (memory bandwidth is
    // shared, so this is slower than `warm`; it bounds sign-in throughput).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parallel = parallel_hash_ms(cores)?;
    println!("argon2id_ms={warm:.2}");
    println!("argon2id_cold_ms={cold:.2}");
    println!("argon2id_parallel_ms={parallel:.2}");
    println!("parallel_hashes={cores}");
    Ok(())
}
