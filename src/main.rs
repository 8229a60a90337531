/// mimalloc instead of glibc's allocator: every transcript is a tree of small `serde_json`
/// allocations, and on it mimalloc cut the CPU time of `ctxfuzz fuzz` by about a quarter and the
/// peak RSS of `check` on a million messages by 13% (docs/figures.md#check-at-scale).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    ctxfuzz::cli::main()
}
