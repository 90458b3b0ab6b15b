//! Command-line parsing for `relay-demo-server`.
//!
//! Hand-written because there are four flags; a parser crate would cost more compile time
//! than the whole server.

use std::ffi::OsString;

use crate::ServeOptions;

/// Printed for `--help` and after a usage error.
pub const USAGE: &str = "\
Usage: relay-demo-server [--port N] [--stateless] [--json-response]

MCP Relay's demo MCP server: Streamable HTTP at http://127.0.0.1:PORT/mcp (loopback only).
Prints one line 'MCP demo server listening on http://127.0.0.1:PORT/mcp' on stdout when ready,
logs to stderr (level from RUST_LOG: error, warn, info, debug, trace; default info),
and stops on SIGTERM or Ctrl-C.

Options:
  --port N          TCP port on 127.0.0.1; 0 (the default) lets the OS choose a free one
  --stateless       no sessions: no Mcp-Session-Id, every POST stands alone
  --json-response   answer with application/json instead of SSE when no notification
                    precedes the result (implies --stateless)
  -h, --help        print this help
  -V, --version     print the version
";

/// What the command line asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Command {
    /// Run the server.
    Serve {
        /// Port on 127.0.0.1; 0 = chosen by the OS.
        port: u16,
        /// Transport options.
        options: ServeOptions,
    },
    /// Print [`USAGE`].
    Help,
    /// Print the version.
    Version,
}

/// A command line that cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A flag that needs a value came last.
    #[error("{0} needs a value")]
    MissingValue(&'static str),
    /// `--port` with something other than 0..=65535.
    #[error("invalid port {0:?}: expected a number from 0 to 65535")]
    InvalidPort(String),
    /// Anything else.
    #[error("unexpected argument {0:?}")]
    Unexpected(String),
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, CliError> {
    let mut port = 0;
    let mut options = ServeOptions::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let arg = arg
            .into_string()
            .map_err(|raw| CliError::Unexpected(raw.to_string_lossy().into_owned()))?;
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            "--stateless" => options.stateless = true,
            "--json-response" => options.json_response = true,
            "--port" => {
                let value = args.next().ok_or(CliError::MissingValue("--port"))?;
                port = parse_port(&value.to_string_lossy())?;
            }
            _ => match arg.strip_prefix("--port=") {
                Some(value) => port = parse_port(value)?,
                None => return Err(CliError::Unexpected(arg)),
            },
        }
    }
    Ok(Command::Serve { port, options })
}

fn parse_port(value: &str) -> Result<u16, CliError> {
    value
        .parse()
        .map_err(|_| CliError::InvalidPort(value.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Command, CliError> {
        parse(args.iter().map(OsString::from))
    }

    fn serve(port: u16, stateless: bool, json_response: bool) -> Result<Command, CliError> {
        Ok(Command::Serve {
            port,
            options: ServeOptions::new()
                .with_stateless(stateless)
                .with_json_response(json_response),
        })
    }

    #[test]
    fn command_lines() {
        let cases: &[(&[&str], Result<Command, CliError>)] = &[
            (&[], serve(0, false, false)),
            (&["--port", "8931"], serve(8931, false, false)),
            (&["--port=0", "--stateless"], serve(0, true, false)),
            (&["--json-response", "--port", "1"], serve(1, false, true)),
            (&["--stateless", "--help", "--bogus"], Ok(Command::Help)),
            (&["-V"], Ok(Command::Version)),
            (&["--port"], Err(CliError::MissingValue("--port"))),
            (
                &["--port", "65536"],
                Err(CliError::InvalidPort("65536".into())),
            ),
            (&["--port=-1"], Err(CliError::InvalidPort("-1".into()))),
            (&["--port", "abc"], Err(CliError::InvalidPort("abc".into()))),
            (&["8931"], Err(CliError::Unexpected("8931".into()))),
            (
                &["--ports=1"],
                Err(CliError::Unexpected("--ports=1".into())),
            ),
        ];
        for (args, expected) in cases {
            assert_eq!(&run(args), expected, "{args:?}");
        }
    }
}
