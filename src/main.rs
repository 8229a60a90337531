fn main() -> std::process::ExitCode {
    ctxfuzz::cli::main()
}
