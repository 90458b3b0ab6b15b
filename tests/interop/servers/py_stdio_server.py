"""A stdio MCP server on PyPI `mcp` (MCPServer), run by the native host in the browser tests.

    python py_stdio_server.py

Tools: `echo` (returns "Echo: <message>") and `crash` (writes a line to stderr and exits with
status 3 in the middle of the call). Its pid goes to $PID_FILE (one line per start) when set.
"""

import os
import sys

from mcp.server.mcpserver import MCPServer

if os.environ.get("PID_FILE"):
    with open(os.environ["PID_FILE"], "a") as f:
        f.write(f"{os.getpid()}\n")

server = MCPServer("py-stdio-test")


@server.tool()
def echo(message: str) -> str:
    """Echo the message back."""
    return f"Echo: {message}"


@server.tool()
def crash() -> str:
    """Exit the server process in the middle of the call."""
    print("py-stdio-test: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


if __name__ == "__main__":
    print("py-stdio-test: ready", file=sys.stderr, flush=True)
    server.run(transport="stdio")
