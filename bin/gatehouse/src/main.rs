//! `gatehouse`: one binary for every process. With no subcommand it runs standalone mode (all
//! services and the gateway in one process); `identity`, `session` and `gateway` run one part
//! each, for distributed deployments. Configuration comes from the environment (README).

use std::time::Instant;

use anyhow::Context;
use clap::{Parser, Subcommand};
use gatehouse_kit::config::{Backends, Env};
use gatehouse_kit::server::shutdown_on_signal;
use tokio::net::TcpListener;

#[derive(Parser)]
#[command(
    name = "gatehouse",
    version,
    about = "Accounts, sessions and organizations, speaking better-auth's protocol"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Every service and the gateway in one process (the default).
    Standalone,
    /// The identity service alone (users, credentials).
    Identity,
    /// The session service alone.
    Session,
    /// The HTTP gateway alone (/api/auth).
    Gateway,
    /// Prints how long one argon2id password hash takes here (for capacity planning).
    HashTiming,
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
    return_large_allocations_to_the_os();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(run(cli.command.unwrap_or(Command::Standalone)))
}

/// Each argon2id hash allocates 19 MiB. glibc's adaptive mmap threshold would soon serve those
/// from per-thread arenas that keep the memory after the hash (RSS measured: 30 → 68 MiB after
/// one sign-in, 528 MiB under load). A fixed threshold sends every allocation over 128 KiB to
/// mmap, which gives it back to the system on free.
fn return_large_allocations_to_the_os() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tuning; called first thing, before any thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

async fn listener(env: &Env, name: &str, default: &str) -> anyhow::Result<TcpListener> {
    let addr = env.string(name, default);
    TcpListener::bind(&addr)
        .await
        .with_context(|| format!("{name}: cannot listen on {addr}"))
}

async fn run(command: Command) -> anyhow::Result<()> {
    let env = Env::process();
    let data_dir = env.string("DATA_DIR", "./data");
    let service = match command {
        Command::Standalone => "standalone",
        Command::Identity => "identity",
        Command::Session => "session",
        Command::Gateway => "gateway",
        Command::HashTiming => "hash-timing",
    };
    let _telemetry = gatehouse_kit::telemetry::init(service, &env)?;
    let shutdown = shutdown_on_signal();
    match command {
        Command::Standalone => {
            let running = gatehouse_gateway::standalone::start(&env, shutdown).await?;
            println!(
                "Gatehouse is running: http://{}/api/auth (data in {data_dir})",
                running.gateway_addr
            );
            running.wait().await.map_err(anyhow::Error::msg)?;
        }
        Command::Identity => {
            let config = gatehouse_identity::IdentityConfig::from_env(&env, &data_dir)?;
            let bus = Backends::from_env(&env)?.bus()?;
            let listener = listener(&env, "IDENTITY_LISTEN", "127.0.0.1:50051").await?;
            gatehouse_identity::run(config, bus, listener, shutdown).await?;
        }
        Command::Session => {
            let config = gatehouse_session::SessionConfig::from_env(&env, &data_dir)?;
            let backends = Backends::from_env(&env)?;
            let (bus, cache) = (backends.bus()?, backends.cache()?);
            let listener = listener(&env, "SESSION_LISTEN", "127.0.0.1:50052").await?;
            gatehouse_session::run(config, bus, cache, listener, shutdown).await?;
        }
        Command::Gateway => {
            let config = gatehouse_gateway::GatewayConfig::from_env(&env, None)?;
            let listener = listener(&env, "GATEWAY_LISTEN", &config.listen.clone()).await?;
            gatehouse_gateway::run(config, listener, shutdown).await?;
        }
        Command::HashTiming => {
            // The service's own path: working memory reused, as while sign-ins keep coming.
            let mut memory = gatehouse_identity::password::working_memory();
            let warm = median_ms(|| {
                gatehouse_identity::password::hash_with(&mut memory, "benchmark-password-123")
            })?;
            // A lone sign-in after an idle spell allocates its memory afresh.
            let cold = median_ms(|| {
                gatehouse_identity::password::hash_blocking("benchmark-password-123")
            })?;
            // One hash per core at once: what the machine can do in parallel (memory bandwidth
            // is shared, so this is slower than `warm`; it bounds sign-in throughput).
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let parallel = parallel_hash_ms(cores)?;
            println!("argon2id_ms={warm:.2}");
            println!("argon2id_cold_ms={cold:.2}");
            println!("argon2id_parallel_ms={parallel:.2}");
            println!("parallel_hashes={cores}");
        }
    }
    Ok(())
}
