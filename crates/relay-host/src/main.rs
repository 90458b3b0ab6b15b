//! `relay-host`: run by Chrome with the caller's origin as its argument (native messaging), or
//! by the user with a command (`add`, `remove`, `list`, `import`, `install`; see
//! [`relay_host::cli::USAGE`]). Exit status 0 on success, 1 on failure, 2 for a bad command line.

use std::process::ExitCode;

use relay_host::cli::{self, CliError};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Chrome passes the caller's origin first (and on Windows `--parent-window=N` after it).
    if let Some(origin) = args
        .first()
        .filter(|a| a.starts_with("chrome-extension://"))
    {
        return native(Some(origin.clone()));
    }
    if args.first().map(String::as_str) == Some("serve") {
        return native(None);
    }
    let mut out = std::io::stdout();
    match cli::run(&args, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e @ CliError::Usage(_)) => {
            eprintln!("relay-host: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("relay-host: {e}");
            ExitCode::FAILURE
        }
    }
}

fn native(origin: Option<String>) -> ExitCode {
    let settings = match relay_host::settings() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("relay-host: {e}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("relay-host: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(relay_host::native::run(settings, origin));
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relay-host: {e}");
            ExitCode::FAILURE
        }
    }
}
