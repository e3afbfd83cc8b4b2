//! `dupstream`: reproduce and extend the published evaluations of approximate duplicate
//! detection in unbounded streams.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    dupstream_runner::cli::main()
}
