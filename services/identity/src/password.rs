//! Password hashing as a bounded resource. argon2id (m=19456 KiB, t=2, p=1, OWASP) runs on a
//! pool of `pool_size` dedicated threads, never on the async runtime, so a burst of sign-ins
//! queues here instead of starving request handling or exhausting memory; the queue wait is
//! measured. better-auth's
//! scrypt hashes (`saltHex:keyHex`) verify too, and are flagged for re-hashing.
//!
//! Each hash needs 19 MiB of working memory. Allocating it fresh means the kernel faults in and
//! zeroes 4,864 pages per hash: 22% of sign-in CPU under load (perf, measured). So each pool
//! thread keeps its buffer while hashes keep coming and gives it back after waiting
//! [`IDLE_RELEASE`] for work, so an idle service stays small.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use argon2::{Algorithm, Argon2, Block, Params, PasswordVerifier, Version};
use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD as PHC_B64;
use rand::Rng;
use subtle::ConstantTimeEq;
use unicode_normalization::UnicodeNormalization;

const ARGON2_M_KIB: u32 = 19_456;
const ARGON2_T: u32 = 2;
const ARGON2_P: u32 = 1;
/// A stored hash with exactly these parameters needs no upgrade.
const CURRENT_PREFIX: &str = "$argon2id$v=19$m=19456,t=2,p=1$";
const SALT_LEN: usize = 16;
const OUTPUT_LEN: usize = 32;
/// Working memory is returned to the system after this long without a hash.
pub const IDLE_RELEASE: Duration = Duration::from_millis(500);

#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error("argon2: {0}")]
    Argon2(String),
    #[error("the hashing pool is shut down, or the hash failed")]
    PoolClosed,
    #[error("too many password hashes are waiting")]
    Busy,
    /// More are queued than this kind of work may add to (sign-in's budget); try again later.
    #[error("the hashing queue is past this caller's budget")]
    OverBudget { retry_after: Duration },
}

/// The outcome of checking a password against a stored hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verification {
    pub valid: bool,
    /// The hash is valid but not argon2id with the current parameters: store a new one.
    pub needs_rehash: bool,
}

/// A hash or verification, run on a pool thread with that thread's working memory.
type Job = Box<dyn FnOnce(&mut [Block]) + Send>;

struct Queue {
    jobs: Mutex<VecDeque<Job>>,
    /// More waiting jobs than this are refused: a flood gets fast 503s, and the work that is
    /// accepted still finishes within its callers' timeouts.
    limit: usize,
    ready: Condvar,
    closed: AtomicBool,
    /// Working-memory buffers currently held by pool threads.
    resident: AtomicUsize,
    threads: usize,
    /// A moving average of one job's time, in microseconds (0 until the first job).
    average_micros: AtomicU64,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, VecDeque<Job>> {
        self.jobs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits for the next job; drops `memory` whenever the wait outlasts [`IDLE_RELEASE`].
    fn next(&self, memory: &mut Option<Vec<Block>>) -> Option<Job> {
        let mut jobs = self.lock();
        loop {
            if let Some(job) = jobs.pop_front() {
                return Some(job);
            }
            if self.closed.load(Ordering::Acquire) {
                return None;
            }
            let (guard, wait) = self
                .ready
                .wait_timeout(jobs, IDLE_RELEASE)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            jobs = guard;
            if wait.timed_out() && memory.take().is_some() {
                self.resident.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

/// Hashing threads run at this nice value: a hash is throughput work, so request handling
/// (here and in neighbouring processes) gets the CPU first and keeps its latency while sign-in
/// is saturated; with nothing else to run, hashing still has every core.
const HASH_THREAD_NICE: i32 = 10;

fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on this thread's own id; lowering priority needs no privilege.
    unsafe {
        let tid = libc::gettid();
        if libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, HASH_THREAD_NICE) != 0 {
            tracing::debug!("cannot lower the hashing thread's priority");
        }
    }
}

/// One pool thread: takes jobs in order, hashing with memory it keeps between jobs.
fn work(queue: Arc<Queue>) {
    lower_priority();
    let mut memory: Option<Vec<Block>> = None;
    while let Some(job) = queue.next(&mut memory) {
        let buffer = memory.get_or_insert_with(|| {
            queue.resident.fetch_add(1, Ordering::Relaxed);
            new_memory()
        });
        // A panicking job drops its result sender (the caller sees an error); the thread lives on.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(buffer)));
    }
}

/// Closes the queue when the last [`Hasher`] clone goes, so pool threads exit.
struct Pool {
    queue: Arc<Queue>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.queue.closed.store(true, Ordering::Release);
        self.queue.ready.notify_all();
    }
}

/// A fresh working-memory buffer for [`hash_with`] / [`verify_with`].
pub fn working_memory() -> Vec<Block> {
    new_memory()
}

fn new_memory() -> Vec<Block> {
    vec![Block::new(); ARGON2_M_KIB as usize]
}

/// The bounded hashing pool: `pool_size` dedicated threads and one queue. A thread that
/// finishes a hash starts the next queued one at once, with warm memory.
#[derive(Clone)]
pub struct Hasher {
    pool: Arc<Pool>,
    /// Verified against when the account does not exist, so the answer takes the same time.
    dummy_hash: Arc<str>,
}

impl Hasher {
    /// Starts `pool_size` threads that accept up to `queue_limit` waiting jobs, and computes
    /// the dummy hash (at start, on the calling thread). Without a dummy hash unknown emails
    /// would be answered faster than known ones, so failing to make it fails the start.
    pub fn new(pool_size: usize, queue_limit: usize) -> Result<Self, HashError> {
        let dummy_password = gatehouse_kit::ids::random_alphanumeric(32);
        let dummy_hash = hash_blocking(&dummy_password)?;
        let queue = Arc::new(Queue {
            jobs: Mutex::default(),
            limit: queue_limit.max(1),
            ready: Condvar::default(),
            closed: AtomicBool::default(),
            resident: AtomicUsize::default(),
            threads: pool_size.max(1),
            average_micros: AtomicU64::default(),
        });
        for index in 0..pool_size.max(1) {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("password-hash-{index}"))
                .spawn(move || work(queue));
            if let Err(error) = spawned {
                tracing::error!(%error, "cannot start a password hashing thread");
            }
        }
        Ok(Self {
            pool: Arc::new(Pool { queue }),
            dummy_hash: dummy_hash.into(),
        })
    }

    pub async fn hash(&self, password: &str) -> Result<String, HashError> {
        let password = password.to_string();
        self.run(move |memory| hash_with(memory, &password), usize::MAX)
            .await?
    }

    pub async fn verify(&self, password: &str, stored: &str) -> Result<Verification, HashError> {
        self.verify_within(password, stored, usize::MAX).await
    }

    /// [`verify`](Self::verify), refused with [`HashError::OverBudget`] when `budget` or more
    /// jobs are already waiting (checked as the job is queued).
    pub async fn verify_within(
        &self,
        password: &str,
        stored: &str,
        budget: usize,
    ) -> Result<Verification, HashError> {
        let password = password.to_string();
        let stored = stored.to_string();
        self.run(
            move |memory| verify_with(memory, &password, &stored),
            budget,
        )
        .await
    }

    /// Spends a verification's worth of time on a password that cannot match.
    pub async fn verify_dummy_within(
        &self,
        password: &str,
        budget: usize,
    ) -> Result<(), HashError> {
        let stored = self.dummy_hash.clone();
        self.verify_within(password, &stored, budget)
            .await
            .map(|_| ())
    }

    /// How many 19 MiB working-memory buffers the pool holds right now.
    pub fn resident_buffers(&self) -> usize {
        self.pool.queue.resident.load(Ordering::Relaxed)
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut [Block]) -> T + Send + 'static,
        budget: usize,
    ) -> Result<T, HashError> {
        let (done, result) = tokio::sync::oneshot::channel();
        let queued = Instant::now();
        let pace = self.pool.queue.clone();
        let job: Job = Box::new(move |memory| {
            metrics::histogram!("password_hash_queue_seconds")
                .record(queued.elapsed().as_secs_f64());
            if done.is_closed() {
                // The caller gave up (timed out, disconnected): nobody wants this hash.
                metrics::counter!("password_hash_abandoned_total").increment(1);
                return;
            }
            let started = Instant::now();
            let value = work(memory);
            let took = started.elapsed();
            metrics::histogram!("password_hash_seconds").record(took.as_secs_f64());
            let sample = took.as_micros() as u64;
            let old = pace.average_micros.load(Ordering::Relaxed);
            let average = if old == 0 {
                sample
            } else {
                (old * 7 + sample) / 8
            };
            pace.average_micros.store(average, Ordering::Relaxed);
            let _ = done.send(value);
        });
        let queue = &self.pool.queue;
        {
            let mut jobs = queue.lock();
            if jobs.len() >= queue.limit {
                metrics::counter!("password_hash_refused_total").increment(1);
                return Err(HashError::Busy);
            }
            if jobs.len() >= budget {
                let waiting = jobs.len() as u64 + 1;
                drop(jobs);
                let average = queue.average_micros.load(Ordering::Relaxed).max(1);
                return Err(HashError::OverBudget {
                    retry_after: Duration::from_micros(waiting * average / queue.threads as u64),
                });
            }
            jobs.push_back(job);
        }
        queue.ready.notify_one();
        result.await.map_err(|_| HashError::PoolClosed)
    }
}

fn argon2() -> Argon2<'static> {
    // The parameters are constants inside argon2's accepted ranges.
    let params = Params::new(ARGON2_M_KIB, ARGON2_T, ARGON2_P, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Passwords are NFKC-normalised first, as better-auth does, so the same password typed on
/// different keyboards matches.
fn normalize(password: &str) -> String {
    password.nfkc().collect()
}

/// Hashes with fresh working memory (start-up, tools).
pub fn hash_blocking(password: &str) -> Result<String, HashError> {
    hash_with(&mut new_memory(), password)
}

pub fn verify_blocking(password: &str, stored: &str) -> Verification {
    verify_with(&mut new_memory(), password, stored)
}

/// A PHC string `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (standard base64, no padding).
pub fn hash_with(memory: &mut [Block], password: &str) -> Result<String, HashError> {
    let mut salt = [0u8; SALT_LEN];
    rand::rng().fill(&mut salt);
    let mut output = [0u8; OUTPUT_LEN];
    argon2()
        .hash_password_into_with_memory(normalize(password).as_bytes(), &salt, &mut output, memory)
        .map_err(|e| HashError::Argon2(e.to_string()))?;
    Ok(format!(
        "{CURRENT_PREFIX}{}${}",
        PHC_B64.encode(salt),
        PHC_B64.encode(output)
    ))
}

pub fn verify_with(memory: &mut [Block], password: &str, stored: &str) -> Verification {
    let password = normalize(password);
    if let Some(rest) = stored.strip_prefix(CURRENT_PREFIX) {
        return Verification {
            valid: verify_current(memory, &password, rest),
            needs_rehash: false,
        };
    }
    if stored.starts_with("$argon2") {
        if let Err(reason) = within_bounds(stored) {
            refuse_stored_hash("argon2", &reason);
            return Verification {
                valid: false,
                needs_rehash: false,
            };
        }
        let valid = argon2()
            .verify_password(password.as_bytes(), stored)
            .is_ok();
        Verification {
            valid,
            needs_rehash: valid && !stored.starts_with(CURRENT_PREFIX),
        }
    } else {
        let valid = verify_better_auth_scrypt(&password, stored);
        Verification {
            valid,
            needs_rehash: valid,
        }
    }
}

/// The most a stored argon2 hash may ask for. Hashes come from our own database, but that may
/// hold imported hashes, or be written to by someone who should not: one hash with m = 4 GiB
/// or t = 10,000 would otherwise take a pool thread, and the machine's memory, for as long as
/// it likes.
pub const MAX_ARGON2_M_KIB: u32 = 64 * 1024;
pub const MAX_ARGON2_T: u32 = 10;
pub const MAX_ARGON2_P: u32 = 4;
/// Salts and outputs beyond this are not something any hasher makes.
const MAX_PHC_FIELD_BYTES: usize = 64;

fn within_bounds(stored: &str) -> Result<(), String> {
    let parsed = argon2::password_hash::phc::PasswordHash::new(stored)
        .map_err(|error| format!("unreadable PHC string: {error}"))?;
    let params = Params::try_from(&parsed).map_err(|error| format!("parameters: {error}"))?;
    if params.m_cost() > MAX_ARGON2_M_KIB
        || params.t_cost() > MAX_ARGON2_T
        || params.p_cost() > MAX_ARGON2_P
    {
        return Err(format!(
            "m={} t={} p={} exceed m={MAX_ARGON2_M_KIB} t={MAX_ARGON2_T} p={MAX_ARGON2_P}",
            params.m_cost(),
            params.t_cost(),
            params.p_cost()
        ));
    }
    let salt = parsed.salt.map_or(0, |salt| salt.len());
    let output = parsed.hash.map_or(0, |hash| hash.len());
    if salt > MAX_PHC_FIELD_BYTES || output > MAX_PHC_FIELD_BYTES {
        return Err(format!("salt of {salt} or output of {output} bytes"));
    }
    Ok(())
}

/// Logged at error level: an operator should look at how this hash got into the database.
fn refuse_stored_hash(kind: &str, reason: &str) {
    metrics::counter!("password_hash_refused_stored_total", "kind" => kind.to_string())
        .increment(1);
    tracing::error!(
        kind,
        reason,
        "stored password hash refused without running it"
    );
}

/// `<salt>$<hash>` of a hash with the current parameters, recomputed in `memory`.
fn verify_current(memory: &mut [Block], password: &str, salt_and_hash: &str) -> bool {
    let Some((salt, expected)) = salt_and_hash.split_once('$') else {
        return false;
    };
    let (Ok(salt), Ok(expected)) = (PHC_B64.decode(salt), PHC_B64.decode(expected)) else {
        return false;
    };
    if !(4..=64).contains(&expected.len()) {
        return false;
    }
    let mut output = vec![0u8; expected.len()];
    argon2()
        .hash_password_into_with_memory(password.as_bytes(), &salt, &mut output, memory)
        .is_ok()
        && bool::from(output.ct_eq(&expected))
}

/// better-auth's format: `<16 random bytes as 32 hex chars>:<64-byte key as hex>`, scrypt with
/// N=16384, r=16, p=1, and the hex *string* (not the bytes) as the salt.
fn verify_better_auth_scrypt(password: &str, stored: &str) -> bool {
    let Some((salt_hex, key_hex)) = stored.split_once(':') else {
        return false;
    };
    // The parameters are fixed; only the salt's length (PBKDF2 runs over it) can grow the work.
    if salt_hex.len() > 2 * MAX_PHC_FIELD_BYTES || key_hex.len() != 128 {
        refuse_stored_hash(
            "scrypt",
            &format!(
                "salt of {} or key of {} hex characters",
                salt_hex.len(),
                key_hex.len()
            ),
        );
        return false;
    }
    let Ok(params) = scrypt::Params::new(14, 16, 1) else {
        return false;
    };
    let mut derived = [0u8; 64];
    if scrypt::scrypt(
        password.as_bytes(),
        salt_hex.as_bytes(),
        &params,
        &mut derived,
    )
    .is_err()
    {
        return false;
    }
    let derived_hex: String = derived.iter().map(|b| format!("{b:02x}")).collect();
    derived_hex
        .as_bytes()
        .ct_eq(key_hex.to_ascii_lowercase().as_bytes())
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::PasswordHasher;

    #[test]
    fn standard_phc_strings_from_the_argon2_crate_verify_on_the_fast_path() {
        let standard = argon2()
            .hash_password(b"Correct-Horse-9")
            .unwrap()
            .to_string();
        assert!(standard.starts_with(CURRENT_PREFIX));
        let mut memory = new_memory();
        let ok = verify_with(&mut memory, "Correct-Horse-9", &standard);
        assert_eq!(
            ok,
            Verification {
                valid: true,
                needs_rehash: false
            }
        );
        assert!(!verify_with(&mut memory, "Correct-Horse-8", &standard).valid);
        let ours = hash_with(&mut memory, "Correct-Horse-9").unwrap();
        assert!(
            argon2()
                .verify_password(b"Correct-Horse-9", ours.as_str())
                .is_ok(),
            "and the reverse"
        );
        assert!(!verify_with(&mut memory, "x", &format!("{CURRENT_PREFIX}garbage")).valid);
    }

    #[tokio::test]
    async fn working_memory_is_kept_while_busy_and_released_when_idle() {
        let hasher = Hasher::new(2, 64).unwrap();
        assert_eq!(
            hasher.resident_buffers(),
            0,
            "nothing held before the first hash"
        );
        let hash = hasher.hash("Correct-Horse-9").await.unwrap();
        assert!(hasher.verify("Correct-Horse-9", &hash).await.unwrap().valid);
        assert!(!hasher.verify("Wrong-Horse-9", &hash).await.unwrap().valid);
        assert!(
            (1..=2).contains(&hasher.resident_buffers()),
            "kept for the next hash"
        );
        tokio::time::sleep(IDLE_RELEASE * 3).await;
        assert_eq!(hasher.resident_buffers(), 0, "given back once idle");
    }

    #[tokio::test]
    async fn a_full_queue_refuses_instead_of_growing() {
        let hasher = Hasher::new(1, 1).unwrap();
        let (a, b, c) = tokio::join!(
            hasher.hash("one-1234"),
            hasher.hash("two-1234"),
            hasher.hash("three-1234")
        );
        let refused = [&a, &b, &c]
            .iter()
            .filter(|r| matches!(r, Err(HashError::Busy)))
            .count();
        assert!(
            refused >= 1,
            "one thread and one waiting slot: {a:?} {b:?} {c:?}"
        );
        assert!(
            [&a, &b, &c].iter().any(|r| r.is_ok()),
            "accepted work still completes"
        );
    }

    #[tokio::test]
    async fn many_hashes_at_once_all_complete_through_a_small_pool() {
        let hasher = Hasher::new(2, 64).unwrap();
        let hashes: Vec<_> = (0..6)
            .map(|i| {
                let hasher = hasher.clone();
                tokio::spawn(async move { hasher.hash(&format!("password-{i}")).await })
            })
            .collect();
        for (i, handle) in hashes.into_iter().enumerate() {
            let hash = handle.await.unwrap().unwrap();
            assert!(verify_blocking(&format!("password-{i}"), &hash).valid);
        }
        assert!(
            hasher.resident_buffers() <= 2,
            "never more buffers than threads"
        );
    }

    #[test]
    fn argon2id_hashes_use_the_owasp_parameters_and_verify() {
        let hash = hash_blocking("Correct-Horse-9").unwrap();
        assert!(hash.starts_with(CURRENT_PREFIX), "{hash}");
        let ok = verify_blocking("Correct-Horse-9", &hash);
        assert_eq!(
            ok,
            Verification {
                valid: true,
                needs_rehash: false
            }
        );
        assert!(!verify_blocking("correct-horse-9", &hash).valid);
    }

    #[test]
    fn passwords_are_nfkc_normalised() {
        // U+FB01 (the "fi" ligature) normalises to "fi" under NFKC.
        let hash = hash_blocking("\u{FB01}nd-me-123").unwrap();
        assert!(verify_blocking("find-me-123", &hash).valid);
    }

    #[test]
    fn better_auth_scrypt_hashes_verify_and_ask_for_a_rehash() {
        // Made by the real better-auth 1.7.7: `hashPassword("password123")` from better-auth/crypto.
        let stored = "154735a709dc6fb14a8a10fae3290957:2b067f70347727497f9d3232079e135d9d61fa1dccd7c8e8748092c80f0f1d916affaa59d8aa5892c9727bdca6b5967989ee4e48d9205523ce9983a364d508ba";
        assert_eq!(
            verify_blocking("password123", stored),
            Verification {
                valid: true,
                needs_rehash: true
            }
        );
        assert!(!verify_blocking("password124", stored).valid);
        assert!(!verify_blocking("password123", "no-colon-here").valid);
    }

    fn argon2_with(m: u32, t: u32, p: u32, password: &str) -> String {
        Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(m, t, p, None).unwrap(),
        )
        .hash_password(password.as_bytes())
        .unwrap()
        .to_string()
    }

    #[test]
    fn stored_hashes_beyond_the_bounds_are_refused_not_run() {
        // Each of these is a correct hash of the password: only the bounds can refuse it.
        for (m, t, p) in [(8, MAX_ARGON2_T + 1, 1), (256, 1, MAX_ARGON2_P + 1)] {
            let stored = argon2_with(m, t, p, "pw-123456");
            assert!(!verify_blocking("pw-123456", &stored).valid, "{stored}");
        }
        let big = argon2_with(MAX_ARGON2_M_KIB + 8, 1, 1, "pw-123456");
        assert!(!verify_blocking("pw-123456", &big).valid, "{big}");
        let at_the_bounds = argon2_with(256, MAX_ARGON2_T, MAX_ARGON2_P, "pw-123456");
        assert!(verify_blocking("pw-123456", &at_the_bounds).valid);
        // 4 TiB of memory: verifying would abort the process (or take the machine with it).
        let huge = "$argon2id$v=19$m=4294967295,t=1,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";
        assert!(!verify_blocking("x", huge).valid);
        let long_salt = format!("{}:{}", "a".repeat(10_000), "0".repeat(128));
        assert!(!verify_blocking("x", &long_salt).valid);
    }

    #[test]
    fn hashes_with_other_argon2_parameters_ask_for_a_rehash() {
        let weak = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(8, 1, 1, None).unwrap(),
        )
        .hash_password(b"pw-123456")
        .unwrap()
        .to_string();
        assert_eq!(
            verify_blocking("pw-123456", &weak),
            Verification {
                valid: true,
                needs_rehash: true
            }
        );
    }
}
