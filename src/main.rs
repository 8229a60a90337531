/// mimalloc instead of the system allocator: the oracle's trees are many small allocations freed
/// together, where glibc's malloc and free were a fifth of `check` and most of a fuzz case's cost
/// (measured in docs/figures.md; the choice in docs/decisions.md), through the entry points
/// `ctxfuzz::allocator` chooses. The benchmarks and the cargo-fuzz targets (unless a sanitizer
/// must see every allocation) set the same.
#[global_allocator]
static ALLOCATOR: ctxfuzz::allocator::Mimalloc = ctxfuzz::allocator::Mimalloc;

fn main() -> std::process::ExitCode {
    ctxfuzz::cli::main()
}
