"""A PyPI `mcp` (MCPServer) server behind MCP authorization, for the sign-in interop test.

    python py_auth_server.py --port N --issuer http://127.0.0.1:M

The SDK serves the protected-resource metadata (RFC 9728) naming `--issuer` as the authorization
server and refuses requests without a valid bearer token with 401 and `WWW-Authenticate`; tokens
are checked with the authorization server's introspection endpoint (RFC 7662, `/introspect`;
tests/e2e/oauth-server.mjs plays that server). Tools: `whoami` (the token's scopes) and `ask`,
which asks the user for a name and a colour (elicitation, `color` defaulting to blue: the SDK's
resolver, which works in 2025-11-25 and 2026-07-28 alike) and answers with what came back. Binds 127.0.0.1 only and prints `READY <url>` once listening.
"""

import argparse
import json
from typing import Annotated
import os
import sys
import threading
import urllib.parse
import urllib.request

import anyio
from pydantic import BaseModel, Field

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import AcceptedElicitation, Elicit, ElicitationResult, Resolve

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_server import wait_and_announce  # noqa: E402


class Introspection:
    """A TokenVerifier asking the authorization server about each token."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def verify_token(self, token: str) -> AccessToken | None:
        body = urllib.parse.urlencode({"token": token}).encode()

        def ask() -> dict:
            request = urllib.request.Request(self.url, data=body)
            with urllib.request.urlopen(request, timeout=5) as answer:
                return json.load(answer)

        info = await anyio.to_thread.run_sync(ask)
        if not info.get("active"):
            return None
        return AccessToken(
            token=token,
            client_id=info.get("client_id") or "",
            scopes=(info.get("scope") or "").split(),
            expires_at=info.get("exp"),
            resource=info.get("aud"),
        )


class Profile(BaseModel):
    name: str = Field(description="Your name")
    color: str = Field(default="blue", description="A colour")


def build(url: str, issuer: str) -> MCPServer:
    server = MCPServer(
        "py-auth-test",
        token_verifier=Introspection(f"{issuer}/introspect"),
        auth=AuthSettings(issuer_url=issuer, resource_server_url=url, required_scopes=["notes:read"]),
    )

    @server.tool()
    def whoami() -> str:
        """Who the token belongs to: its scopes."""
        token = get_access_token()
        return f"scopes: {' '.join(sorted(token.scopes)) if token else '(none)'}"

    def who() -> Elicit[Profile]:
        return Elicit("Who is asking?", Profile)

    # A resolver, not `ctx.elicit`: the SDK asks mid-call in 2025-11-25 and with an
    # `input_required` result in 2026-07-28, whichever the client negotiated.
    @server.tool()
    async def ask(profile: Annotated[ElicitationResult[Profile], Resolve(who)]) -> str:
        """Asks the user for a name and a colour."""
        if isinstance(profile, AcceptedElicitation):
            return f"accept: {profile.data.name} likes {profile.data.color}"
        return profile.action

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--issuer", required=True)
    args = parser.parse_args()
    url = f"http://127.0.0.1:{args.port}/mcp"
    server = build(url, args.issuer)
    threading.Thread(target=wait_and_announce, args=(args.port, url), daemon=True).start()
    server.run(transport="streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    sys.exit(main())
