"""A Tasks (SEP-2663, `io.modelcontextprotocol/tasks`, protocol 2026-07-28) test server built
with PyPI `mcp`: the extension is an `mcp.server.extension.Extension` that answers `tools/call`
of `plan_trip` with a task handle (its `intercept_tool_call`) and serves `tasks/get`,
`tasks/update` and `tasks/cancel` (its `MethodBinding`s). The installed `mcp` has no task store
for the 2026-07-28 form, so the task's life is kept here.

    python tasks_server.py --port N        (0: a free port chosen here)

Binds 127.0.0.1 only, serves Streamable HTTP at /mcp and prints
`listening http://127.0.0.1:PORT/mcp` once it accepts connections; stops on SIGTERM.

`plan_trip({"city": ...})`: answered at once with `resultType: "task"` (status `working`,
"Looking up <city>..."); after ~1 s the task goes `input_required` with one input request,
`month`, an `elicitation/create` form asking "Which month?"; once `tasks/update` brings the
answer it works ~1 s more ("Planning <city> in <month>...") and completes with the text
`TRIP_PLAN: <city> in <month>`. A declined answer completes with `TRIP_PLAN: <city> in no month`.

`GET /calls` -> {"calls": N, "polls": N, "updates": [inputResponses, ...], "cancels": N,
"declared": [bool, ...]}: how many `tools/call` it received, `tasks/get` polls, what each
`tasks/update` carried, and whether each `tools/call` came from a client declaring the
extension.
"""

import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import RequestParams
from starlette.requests import Request
from starlette.responses import JSONResponse
from serve import serve

TASKS = "io.modelcontextprotocol/tasks"
POLL_MS = 300
TTL_MS = 120_000
WORK_S = 1.0
INVALID_PARAMS = -32602
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


class TaskIdParams(RequestParams):
    task_id: str


class UpdateParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any] = {}


class Trip:
    """One task: its state, changed by its worker thread and by `tasks/update`/`tasks/cancel`."""

    def __init__(self, city: str) -> None:
        self.id = "trip-" + uuid.uuid4().hex[:12]
        self.city = city
        self.lock = threading.Lock()
        self.answered = threading.Event()
        self.created_at = now_iso()
        self.updated_at = self.created_at
        self.status = "working"
        self.message = f"Looking up {city}..."
        self.input_requests: dict[str, Any] | None = None
        self.answer: Any = None
        self.result: dict[str, Any] | None = None

    def set(self, status: str, message: str, **fields: Any) -> bool:
        with self.lock:
            if self.status == "cancelled":
                return False
            self.status = status
            self.message = message
            self.updated_at = now_iso()
            for k, v in fields.items():
                setattr(self, k, v)
            return True

    def wire(self) -> dict[str, Any]:
        with self.lock:
            t: dict[str, Any] = {
                "taskId": self.id,
                "status": self.status,
                "statusMessage": self.message,
                "createdAt": self.created_at,
                "lastUpdatedAt": self.updated_at,
                "ttlMs": TTL_MS,
                "pollIntervalMs": POLL_MS,
            }
            if self.status == "input_required" and self.input_requests:
                t["inputRequests"] = self.input_requests
            if self.status == "completed" and self.result is not None:
                t["result"] = self.result
            return t

    def run(self) -> None:
        time.sleep(WORK_S)
        asking = {
            "month": {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": f"Which month should the trip to {self.city} be in?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"month": {"type": "string", "title": "Month", "enum": MONTHS}},
                        "required": ["month"],
                    },
                },
            }
        }
        if not self.set("input_required", "Which month?", input_requests=asking):
            return
        if not self.answered.wait(TTL_MS / 1000):
            self.set("failed", "nobody answered")
            return
        answer = self.answer if isinstance(self.answer, dict) else {}
        content = answer.get("content") if answer.get("action") == "accept" else None
        month = content.get("month") if isinstance(content, dict) else None
        month = month if isinstance(month, str) and month else "no month"
        if not self.set("working", f"Planning {self.city} in {month}...", input_requests=None):
            return
        time.sleep(WORK_S)
        text = f"TRIP_PLAN: {self.city} in {month}"
        self.set("completed", "Done", result={"content": [{"type": "text", "text": text}], "isError": False})


class Tasks(Extension):
    identifier = TASKS

    def __init__(self) -> None:
        self.trips: dict[str, Trip] = {}
        self.stats: dict[str, Any] = {"calls": 0, "polls": 0, "updates": [], "cancels": 0, "declared": []}

    def trip(self, task_id: str) -> Trip:
        trip = self.trips.get(task_id)
        if trip is None:
            raise MCPError(code=INVALID_PARAMS, message=f"no task {task_id}")
        return trip

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        self.stats["calls"] += 1
        caps = ctx.session.client_capabilities
        declared = bool(caps and caps.extensions and TASKS in caps.extensions)
        self.stats["declared"].append(declared)
        if params.name != "plan_trip":
            return await call_next(ctx)
        if not declared:
            text = "plan_trip needs a client that declares io.modelcontextprotocol/tasks"
            return {"content": [{"type": "text", "text": text}], "isError": True}
        city = str((params.arguments or {}).get("city") or "nowhere")
        trip = Trip(city)
        self.trips[trip.id] = trip
        threading.Thread(target=trip.run, daemon=True).start()
        return {"resultType": "task", **trip.wire()}

    def methods(self):
        async def get(ctx: Any, params: TaskIdParams) -> dict[str, Any]:
            self.stats["polls"] += 1
            return self.trip(params.task_id).wire()

        async def update(ctx: Any, params: UpdateParams) -> dict[str, Any]:
            trip = self.trip(params.task_id)
            self.stats["updates"].append(params.input_responses)
            if "month" in params.input_responses and not trip.answered.is_set():
                trip.answer = params.input_responses["month"]
                trip.answered.set()
            return {}

        async def cancel(ctx: Any, params: TaskIdParams) -> dict[str, Any]:
            trip = self.trip(params.task_id)
            self.stats["cancels"] += 1
            with trip.lock:
                if trip.status not in ("completed", "failed", "cancelled"):
                    trip.status = "cancelled"
                    trip.message = "Cancelled by the client"
                    trip.updated_at = now_iso()
            trip.answered.set()
            return {}

        return [
            MethodBinding("tasks/get", TaskIdParams, get),
            MethodBinding("tasks/update", UpdateParams, update),
            MethodBinding("tasks/cancel", TaskIdParams, cancel),
        ]


def build(port: int) -> MCPServer:
    tasks = Tasks()
    server = MCPServer("py-tasks-test", extensions=[tasks])

    @server.tool(description="Plan a trip to a city. Runs as a task and asks which month.", structured_output=False)
    def plan_trip(city: str) -> str:
        # Never reached: the Tasks extension answers this tool's calls with a task.
        return f"TRIP_PLAN_WITHOUT_TASK: {city}"

    @server.custom_route("/calls", methods=["GET"])
    async def calls(request: Request) -> JSONResponse:
        return JSONResponse(tasks.stats, headers={"Access-Control-Allow-Origin": "*"})

    return server


def main() -> None:
    serve(build)


if __name__ == "__main__":
    sys.exit(main())
