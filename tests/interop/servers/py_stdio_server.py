"""A stdio MCP server on PyPI `mcp` (MCPServer), run by the native host in the browser tests.

    python py_stdio_server.py

Tools: `echo` (returns "Echo: <message>"), `crash` (writes a line to stderr and exits with
status 3 in the middle of the call) and `slow` (notes its start in $CALLS_FILE, then takes
`seconds`). Its pid goes to $PID_FILE (one line per start) when set.
"""

import os
import sys
import time

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


@server.tool()
def slow(seconds: float) -> str:
    """Take a while; each start is noted in $CALLS_FILE."""
    with open(os.environ.get("CALLS_FILE", os.devnull), "a") as f:
        f.write("slow\n")
    time.sleep(seconds)
    return f"slept {seconds} s"


if __name__ == "__main__":
    print("py-stdio-test: ready", file=sys.stderr, flush=True)
    server.run(transport="stdio")
