//! The process's allocator and its settings.
//!
//! mimalloc, not glibc's malloc: answers that carry a hundred rows allocate thousands of small
//! strings, and glibc spent a fifth of such a request's CPU in its free lists
//! (`bench/RESULTS.md`, issue 8). Its `override` feature routes SQLite's and every C
//! library's allocations here too.
//!
//! mimalloc's defaults keep what a process once used: arenas committed eagerly and freed memory
//! purged only a second later, and only when the allocator next takes a slow path, which an
//! idle process never does. Standalone sat at 115 MiB idle and 176 MiB after the get-session
//! benchmark; with the two settings below, 48 and 62 MiB (issue 34, `bench/RESULTS.md`). They
//! are this program's defaults, set before mimalloc reads its options; an operator's
//! `MIMALLOC_*` variables still win.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc v3's option numbers (`mimalloc.h`'s `mi_option_e`; the Rust crate's constants
/// are v2's). `tests/it/allocator.rs` checks they still name these options.
const ARENA_EAGER_COMMIT: i32 = 4;
const PURGE_DELAY: i32 = 15;

/// (option, value): commit arena memory as it is used, and give freed memory back at once.
pub const DEFAULTS: [(i32, i64); 2] = [(ARENA_EAGER_COMMIT, 0), (PURGE_DELAY, 0)];

unsafe extern "C" {
    /// Sets an option's value unless the environment set it; mimalloc reads the environment
    /// when it initialises.
    fn mi_option_set_default(option: i32, value: std::ffi::c_long);
}

extern "C" fn set_defaults() {
    for (option, value) in DEFAULTS {
        // SAFETY: a plain store into mimalloc's option table, which is static data; no
        // allocation happens and nothing else runs yet.
        unsafe { mi_option_set_default(option, value as std::ffi::c_long) };
    }
}

/// Runs among the program's constructors before mimalloc's own, which reads the options (an
/// unnumbered constructor when built by gcc, `constructor(101)` by clang): the linkers run
/// numbered `.init_array.N` sections in order, and before the unnumbered ones. Rust's std
/// registers its own argument capture the same way (`.init_array.00099`).
#[used]
#[unsafe(link_section = ".init_array.00090")]
static SET_DEFAULTS: extern "C" fn() = set_defaults;
