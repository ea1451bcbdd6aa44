"""An MCP host built on the Python SDK (`mcp` from PyPI), driven by clients.e2e-spec.ts.

Input: ESTATE_MCP_URL, ESTATE_TOKEN, INTEROP_TOOL, INTEROP_ARGUMENTS (JSON). Output: one JSON
object per stdout line (listed, called, changed, or error); diagnostics on stderr only.
"""

import asyncio
import json
import logging
import os
import sys
import traceback

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamablehttp_client

TIMEOUT_S = 90  # generous: on a loaded CI machine six clients start at once


def emit(event, **body):
    sys.stdout.write(json.dumps({"event": event, **body}) + "\n")
    sys.stdout.flush()


def describe(tools):
    rows = [
        {"name": t.name, "properties": sorted((t.inputSchema or {}).get("properties", {}).keys())}
        for t in tools
    ]
    return sorted(rows, key=lambda r: r["name"])


async def run():
    url, token = os.environ["ESTATE_MCP_URL"], os.environ["ESTATE_TOKEN"]
    tool, args = os.environ["INTEROP_TOOL"], json.loads(os.environ.get("INTEROP_ARGUMENTS", "{}"))
    changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, Exception):
            print(f"transport error: {message!r}", file=sys.stderr)
            return
        if isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ToolListChangedNotification
        ):
            changed.set()

    headers = {"Authorization": f"Bearer {token}"}
    async with streamablehttp_client(url, headers=headers) as (read, write, _session_id):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            emit("listed", protocolVersion=init.protocolVersion, tools=describe(listed.tools))
            result = await session.call_tool(tool, args)
            emit("called", isError=bool(result.isError), structuredContent=result.structuredContent)
            try:
                with anyio.fail_after(TIMEOUT_S):
                    await changed.wait()
            except TimeoutError:
                emit("error", message=f"no tools list_changed within {TIMEOUT_S} s")
                return 1
            relisted = await session.list_tools()
            emit("changed", tools=describe(relisted.tools))
    return 0


def main():
    if os.environ.get("INTEROP_DEBUG"):
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
    try:
        return asyncio.run(run())
    except Exception:  # report any failure as a line the test can show
        emit("error", message=traceback.format_exc())
        return 1


if __name__ == "__main__":
    sys.exit(main())
