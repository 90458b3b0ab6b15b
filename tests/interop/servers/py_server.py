"""An MCP test server built with PyPI `mcp` (MCPServer) or `fastmcp`, for the interop matrix.

    python py_server.py --impl mcp|fastmcp --transport streamable-http|sse --port N
                        [--json-response] [--page-size N]

It binds 127.0.0.1 only and prints `READY <url>` on stdout once listening. Tools cover every
result kind the client must pass on: text, structured, image, audio, embedded resource, a tool
error (isError), and progress notifications; plus a resource, a resource template and prompts.
"""

import argparse
import asyncio
import base64
import socket
import sys
import threading
import time

from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

# 1x1 transparent PNG and a tiny WAV header: real formats, so clients can sniff them.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)
WAV = base64.b64decode("UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=")


class Sum(TypedDict):
    sum: int


def build(impl: str, page_size: int | None):
    if impl == "fastmcp":
        from fastmcp import Context, FastMCP
        from fastmcp.utilities.types import Audio, Image

        kwargs = {"list_page_size": page_size} if page_size else {}
        server = FastMCP("py-fastmcp-test", **kwargs)
    else:
        from mcp.server.mcpserver import Audio, Context, Image, MCPServer

        server = MCPServer("py-mcp-test")

    @server.tool()
    def echo(message: str) -> str:
        """Echo the message back."""
        return f"Echo: {message}"

    @server.tool()
    def add(a: int, b: int) -> Sum:
        """Add two integers; the result is structured."""
        return Sum(sum=a + b)

    @server.tool()
    def tiny_image() -> Image:
        """Return a 1x1 PNG."""
        return Image(data=PNG, format="png")

    @server.tool()
    def tiny_audio() -> Audio:
        """Return a silent WAV."""
        return Audio(data=WAV, format="wav")

    @server.tool()
    def fail(reason: str = "on purpose") -> str:
        """Always fail (the result has isError: true)."""
        raise ValueError(f"failed {reason}")

    @server.tool()
    async def slow(steps: int, ctx: Context) -> str:
        """Report progress for each step, then finish."""
        for i in range(steps):
            await ctx.report_progress(i + 1, steps, f"step {i + 1}")
            await asyncio.sleep(0.02)
        return f"done {steps} steps"

    @server.resource("test://static/hello", mime_type="text/plain")
    def hello() -> str:
        """A static text resource."""
        return "Hello, resource!"

    @server.resource("test://greeting/{name}")
    def greeting(name: str) -> str:
        """A templated resource."""
        return f"Hello, {name}!"

    @server.prompt()
    def weather(city: str) -> str:
        """Ask for the weather in a city."""
        return f"What is the weather in {city}?"

    @server.prompt()
    def simple() -> str:
        """A prompt without arguments."""
        return "Say hello."

    return server


def wait_and_announce(port: int, url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                print(f"READY {url}", flush=True)
                return
        except OSError:
            time.sleep(0.05)
    print("NOT READY", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=["mcp", "fastmcp"], default="mcp")
    parser.add_argument("--transport", choices=["streamable-http", "sse"], default="streamable-http")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--page-size", type=int)
    args = parser.parse_args()

    server = build(args.impl, args.page_size)
    path = "/sse" if args.transport == "sse" else "/mcp"
    url = f"http://127.0.0.1:{args.port}{path}"
    threading.Thread(target=wait_and_announce, args=(args.port, url), daemon=True).start()

    kwargs = {"host": "127.0.0.1", "port": args.port}
    if args.transport == "streamable-http" and args.json_response:
        kwargs["json_response"] = True
    if args.impl == "fastmcp":
        transport = "sse" if args.transport == "sse" else "http"
        server.run(transport=transport, show_banner=False, **kwargs)
    else:
        server.run(transport=args.transport, **kwargs)


if __name__ == "__main__":
    sys.exit(main())
