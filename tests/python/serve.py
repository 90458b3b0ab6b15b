"""How the Python test servers of this folder start (apps_server, skills_server, tasks_server):
`python X_server.py [--port N | N]` (0 or none: a free port chosen here), Streamable HTTP at
/mcp on 127.0.0.1 only, and `listening http://127.0.0.1:PORT/mcp` printed once the port accepts
connections (`NOT READY` after 30 s), which the tests wait for. Stops on SIGTERM.
"""

import argparse
import socket
import threading
import time
from typing import Any, Callable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_and_announce(port: int, url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                print(f"listening {url}", flush=True)
                return
        except OSError:
            time.sleep(0.05)
    print("NOT READY", flush=True)


def serve(build: Callable[[int], Any]) -> None:
    """Parses the port, builds the server with `build(port)` and runs it until stopped."""
    parser = argparse.ArgumentParser()
    parser.add_argument("port", nargs="?", type=int)
    parser.add_argument("--port", dest="port_opt", type=int)
    args = parser.parse_args()
    port = args.port_opt if args.port_opt is not None else (args.port or 0)
    if port == 0:
        port = free_port()
    server = build(port)
    url = f"http://127.0.0.1:{port}/mcp"
    threading.Thread(target=wait_and_announce, args=(port, url), daemon=True).start()
    server.run(transport="streamable-http", host="127.0.0.1", port=port)
