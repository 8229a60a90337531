/// mimalloc instead of the system allocator: the oracle's trees are many small allocations freed
/// together, where glibc's malloc and free were a fifth of `check` and most of a fuzz case's cost
/// (measured in docs/figures.md; the choice in docs/decisions.md). Only the binary sets it: the
/// cargo-fuzz targets keep the system allocator, which AddressSanitizer replaces.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    ctxfuzz::cli::main()
}
