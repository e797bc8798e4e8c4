//! The allocator's settings are the binary's own (issue 34): mimalloc reports the options it
//! runs with when `MIMALLOC_VERBOSE` is set, and an operator's `MIMALLOC_*` still wins.

use std::process::Command;

/// mimalloc's option table as the binary starts with `envs`: `name → value`.
fn options(envs: &[(&str, &str)]) -> std::collections::HashMap<String, i64> {
    let output = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .arg("--version")
        .env("MIMALLOC_VERBOSE", "1")
        .envs(envs.iter().copied())
        .output()
        .expect("running gatehouse --version");
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let options: std::collections::HashMap<_, _> = stderr
        .lines()
        .filter_map(|line| {
            line.strip_prefix("mimalloc: option '")
                .or_else(|| line.strip_prefix("option '"))
        })
        .filter_map(|rest| {
            let (name, value) = rest.split_once("': ")?;
            Some((
                name.to_owned(),
                value.split_whitespace().next()?.parse().ok()?,
            ))
        })
        .collect();
    assert!(
        options.len() > 20,
        "mimalloc printed no option table:\n{stderr}"
    );
    options
}

#[test]
fn arenas_commit_on_use_and_freed_memory_goes_back_at_once() {
    let options = options(&[]);
    assert_eq!(options["arena_eager_commit"], 0, "{options:?}");
    assert_eq!(options["purge_delay"], 0, "{options:?}");
    // Untouched by the binary: still mimalloc's own.
    assert_eq!(options["purge_decommits"], 1, "{options:?}");
}

#[test]
fn the_operators_environment_still_wins() {
    let options = options(&[
        ("MIMALLOC_PURGE_DELAY", "250"),
        ("MIMALLOC_ARENA_EAGER_COMMIT", "1"),
    ]);
    assert_eq!(options["purge_delay"], 250, "{options:?}");
    assert_eq!(options["arena_eager_commit"], 1, "{options:?}");
}
