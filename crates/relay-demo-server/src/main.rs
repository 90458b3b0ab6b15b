//! `relay-demo-server [--port N] [--stateless] [--json-response]`: see [`relay_demo_server::cli::USAGE`].
//!
//! Contract with `cargo xtask demo` and the tests: exactly one line on stdout,
//! `MCP demo server listening on http://127.0.0.1:PORT/mcp`, flushed once connections are
//! accepted; logs on stderr; exit status 0 after SIGTERM/SIGINT, 1 when the server cannot run,
//! 2 for a bad command line.

use std::io::Write as _;
use std::process::ExitCode;

use relay_demo_server::cli::{self, Command, USAGE};
use relay_demo_server::{announcement, bind, ServeError, ServeOptions};
use tracing_subscriber::filter::LevelFilter;

fn main() -> ExitCode {
    let (port, options) = match cli::parse(std::env::args_os().skip(1)) {
        Ok(Command::Serve { port, options }) => (port, options),
        Ok(Command::Help) => return print_stdout(USAGE),
        Ok(Command::Version) => {
            return print_stdout(&format!(
                "relay-demo-server {}\n",
                env!("CARGO_PKG_VERSION")
            ))
        }
        Ok(other) => {
            eprintln!("relay-demo-server: unsupported command {other:?}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("relay-demo-server: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(port, options)) {
        Ok(()) => {
            tracing::info!("stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!(error = %e, "relay-demo-server failed");
            ExitCode::FAILURE
        }
    }
}

fn print_stdout(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

fn init_logging() {
    // RUST_LOG is read as a single level; an unparsable value falls back to info rather than
    // refusing to start a demo.
    let level = std::env::var("RUST_LOG")
        .ok()
        .and_then(|value| value.trim().parse::<LevelFilter>().ok())
        .unwrap_or(LevelFilter::INFO);
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(level)
        .init();
}

async fn run(port: u16, options: ServeOptions) -> Result<(), ServeError> {
    // Handlers go in before the announcement: a supervisor that reads the line and sends
    // SIGTERM at once must get a clean shutdown, not the default "terminate" action.
    let shutdown = Shutdown::install().map_err(ServeError::Signals)?;
    let listening = bind(port).await?;
    let url = listening.url();
    let line = announcement(&url);
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
        // Nobody is reading stdout; the server is still useful to whoever knows the port.
        tracing::warn!(error = %e, "could not print the listening line on stdout");
    }
    drop(out);
    tracing::info!(%url, stateless = options.stateless, json_response = options.json_response, "serving MCP");
    listening.serve(options, shutdown.wait()).await
}

/// SIGTERM and SIGINT, registered eagerly.
#[cfg(unix)]
struct Shutdown {
    terminate: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Shutdown {
    fn install() -> std::io::Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Self {
            terminate: signal(SignalKind::terminate())?,
            interrupt: signal(SignalKind::interrupt())?,
        })
    }

    async fn wait(mut self) {
        let name = tokio::select! {
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.interrupt.recv() => "SIGINT",
        };
        tracing::info!(signal = name, "shutting down");
    }
}

/// Ctrl-C where there are no Unix signals.
#[cfg(not(unix))]
struct Shutdown;

#[cfg(not(unix))]
impl Shutdown {
    fn install() -> std::io::Result<Self> {
        Ok(Self)
    }

    async fn wait(self) {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C; stop the process another way");
            std::future::pending::<()>().await;
        }
        tracing::info!("Ctrl-C received, shutting down");
    }
}
