//! A PostgreSQL cluster of the fault suite's own (initdb in a temporary directory, its own
//! port), so that it can be restarted without touching the one every other suite uses.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PgCluster {
    pub port: u16,
    dir: PathBuf,
    bin: PathBuf,
}

/// The newest installed server's programs (Debian: /usr/lib/postgresql/<major>/bin).
fn server_bin() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dirs| {
            dirs.filter_map(|d| d.ok().map(|d| d.path().join("bin")))
                .collect()
        })
        .unwrap_or_default();
    found.retain(|bin| bin.join("pg_ctl").exists());
    found.sort();
    found.pop().unwrap_or_else(|| {
        panic!("the fault suite runs a PostgreSQL cluster of its own: no pg_ctl under /usr/lib/postgresql (apt-get install postgresql)")
    })
}

/// `program`, to run as the `postgres` user when this process is root (initdb refuses root).
fn postgres_command(program: &Path) -> Command {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn as_postgres(program: &Path, args: &[&str]) {
    let out = postgres_command(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program:?}: {e}"));
    assert!(
        out.status.success(),
        "{program:?} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl PgCluster {
    pub fn start(port: u16) -> Self {
        let bin = server_bin();
        let dir = std::env::temp_dir().join(format!(
            "gatehouse-faults-pg-{}",
            gatehouse_kit::ids::random_alphanumeric(8)
        ));
        as_postgres(Path::new("mkdir"), &["-p", &dir.display().to_string()]);
        let data = dir.display().to_string();
        as_postgres(
            &bin.join("initdb"),
            &[
                "-D",
                &data,
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        let cluster = Self { port, dir, bin };
        cluster.pg_ctl(&["start"]);
        cluster
    }

    fn pg_ctl(&self, action: &[&str]) {
        let data = self.dir.display().to_string();
        let log = self.dir.join("server.log").display().to_string();
        let options = format!(
            "-p {} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            self.port
        );
        let mut args = vec!["-D", &data, "-l", &log, "-o", &options, "-w", "-t", "30"];
        args.extend_from_slice(action);
        as_postgres(&self.bin.join("pg_ctl"), &args);
    }

    /// A restart as an operator does one: sessions are ended (`-m fast`), the server comes
    /// back on the same port.
    pub fn restart(&self) {
        self.pg_ctl(&["restart", "-m", "fast"]);
    }

    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    pub async fn create_databases(&self, names: &[&str]) {
        use sqlx::Connection as _;
        let mut admin = sqlx::PgConnection::connect(&self.url("postgres"))
            .await
            .expect("the fault suite's PostgreSQL");
        for name in names {
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&mut admin)
                .await
                .unwrap();
        }
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let data = self.dir.display().to_string();
        let _ = postgres_command(&self.bin.join("pg_ctl"))
            .args(["-D", &data, "-m", "immediate", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
