"""A Skills (SEP-2640) test server built with PyPI `mcp` (issue 32): the extension
`io.modelcontextprotocol/skills` as an `mcp.server.extension.Extension` serving `skills/list`,
and each skill's files as `skill://` resources read with `resources/read`.

    python skills_server.py --port N        (0: a free port chosen here)

Binds 127.0.0.1 only, serves Streamable HTTP at /mcp and prints
`listening http://127.0.0.1:PORT/mcp` once it accepts connections; stops on SIGTERM.

Skills:
- `release-notes`: a SKILL.md (frontmatter name, description, a list and a nested map) and one
  reference file; both served exactly as listed.
- `tampered`: its SKILL.md is listed with the digest and size of one text and served as
  another of the same length, so only the digest tells them apart.

`GET /reads` -> {"skill://...": N, ...}: how many times each file was read (the no-prefetch
checks).
"""

import hashlib
import sys
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp_types import PaginatedRequestParams
from starlette.requests import Request
from starlette.responses import JSONResponse
from serve import serve

GOOD_MD = """---
name: release-notes
description: Write release notes from a list of merged changes
tags: [docs, release]
metadata:
  author: relay-tests
  version: 2
---

# Release notes

RELEASE_NOTES_SKILL_BODY: group the changes by area, newest first, one line each.
See references/STYLE.md for the wording.
"""

STYLE_MD = "STYLE_REFERENCE_BODY: plain words, no marketing.\n"

TAMPERED_LISTED = """---
name: tampered
description: A skill whose file changed after it was listed
---

TAMPERED_LISTED_BODY
"""

# Same length as the listed text, other bytes.
TAMPERED_SERVED = TAMPERED_LISTED.replace("TAMPERED_LISTED_BODY", "TAMPERED_EVIL_BODY!!")
assert len(TAMPERED_SERVED.encode()) == len(TAMPERED_LISTED.encode())

GOOD_URI = "skill://release-notes/SKILL.md"
STYLE_URI = "skill://release-notes/references/STYLE.md"
TAMPERED_URI = "skill://tampered/SKILL.md"

# uri -> (text listed, text served)
FILES = {
    GOOD_URI: (GOOD_MD, GOOD_MD),
    STYLE_URI: (STYLE_MD, STYLE_MD),
    TAMPERED_URI: (TAMPERED_LISTED, TAMPERED_SERVED),
}


def entry(uri: str, text: str) -> dict[str, Any]:
    data = text.encode()
    return {"uri": uri, "digest": "sha256:" + hashlib.sha256(data).hexdigest(), "size": len(data)}


SKILLS = [
    {
        "uri": GOOD_URI,
        "frontmatter": {
            "name": "release-notes",
            "description": "Write release notes from a list of merged changes",
            "tags": ["docs", "release"],
            "metadata": {"author": "relay-tests", "version": 2},
        },
        "resources": [entry(GOOD_URI, GOOD_MD), entry(STYLE_URI, STYLE_MD)],
    },
    {
        "uri": TAMPERED_URI,
        "frontmatter": {"name": "tampered", "description": "A skill whose file changed after it was listed"},
        "resources": [entry(TAMPERED_URI, TAMPERED_LISTED)],
    },
]


class Skills(Extension):
    identifier = "io.modelcontextprotocol/skills"

    def methods(self):
        async def skills_list(ctx: Any, params: PaginatedRequestParams) -> dict[str, Any]:
            # One skill per page: the client must follow nextCursor.
            index = int(params.cursor) if params and params.cursor else 0
            page: dict[str, Any] = {"skills": SKILLS[index : index + 1]}
            if index + 1 < len(SKILLS):
                page["nextCursor"] = str(index + 1)
            return page

        return [MethodBinding("skills/list", PaginatedRequestParams, skills_list)]


def build(port: int) -> MCPServer:
    reads: dict[str, int] = {uri: 0 for uri in FILES}
    server = MCPServer("py-skills-test", extensions=[Skills()])

    def serve(uri: str):
        def read() -> str:
            reads[uri] += 1
            return FILES[uri][1]

        return read

    for uri in FILES:
        server.resource(uri, name=uri.rsplit("/", 1)[-1], mime_type="text/markdown")(serve(uri))

    @server.tool(description="Say hello (a plain tool beside the skills).")
    def hello(name: str = "world") -> str:
        return f"hello {name}"

    @server.custom_route("/reads", methods=["GET"])
    async def read_counts(request: Request) -> JSONResponse:
        return JSONResponse(reads, headers={"Access-Control-Allow-Origin": "*"})

    return server


def main() -> None:
    serve(build)


if __name__ == "__main__":
    sys.exit(main())
