//! Sets `cfg(sanitized)` when the targets are built with a sanitizer (`cargo fuzz build`, whose
//! default is AddressSanitizer, or any `-s`/`--sanitizer` but `none`). A sanitizer replaces
//! `malloc` to watch every allocation, so the targets then keep the system allocator; without
//! one they allocate with mimalloc, as the `ctxfuzz` binary does (docs/decisions.md).
//! cargo-fuzz passes the sanitizer in `RUSTFLAGS`, which Cargo hands build scripts as
//! `CARGO_ENCODED_RUSTFLAGS`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sanitized)");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    // `-Zsanitizer=address` as nightly spells it, `-Csanitizer=address` once a sanitizer is
    // stable, and the value alone when the flag is written apart (`-Z sanitizer=address`).
    let names_a_sanitizer = |flag: &str| {
        let option = flag
            .strip_prefix("-Z")
            .or_else(|| flag.strip_prefix("-C"))
            .unwrap_or(flag);
        option.starts_with("sanitizer=")
    };
    if flags.split('\x1f').any(names_a_sanitizer) {
        println!("cargo::rustc-cfg=sanitized");
    }
}
