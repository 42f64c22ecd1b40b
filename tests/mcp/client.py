"""A real MCP client (the Python `mcp` SDK) driving `nodwyn mcp` for the end-to-end tests.

Usage: python client.py SCENARIO CALLS_JSON
  SCENARIO: `yes` (elicitations answered allow), `no` (answered decline), `none` (the client
  declares no elicitation), `hang` (the last call is left running and the client killed).
  CALLS_JSON: a JSON list of [tool, arguments].
Prints one JSON document: the tools offered, each call's `is_error` and text, and the
elicitation messages seen. The server is `$NODWYN_BIN mcp`, started in the current folder.
"""

import asyncio
import json
import os
import sys

import jsonschema
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(scenario, calls):
    asked = []

    async def answer(context, params):
        asked.append(params.message)
        if scenario == "yes":
            return types.ElicitResult(action="accept", content={"allow": True})
        return types.ElicitResult(action="decline")

    server = StdioServerParameters(
        command=os.environ["NODWYN_BIN"], args=["mcp"], env=dict(os.environ), cwd=os.getcwd()
    )
    results = []
    async with stdio_client(server) as (read, write):
        callback = None if scenario == "none" else answer
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            await session.initialize()
            listed = await session.list_tools()
            tools = [
                {"name": tool.name, "schema": tool.input_schema, "description": tool.description}
                for tool in listed.tools
            ]
            # Every input schema is a valid JSON Schema (jsonschema raises on one that is not).
            for tool in listed.tools:
                jsonschema.Draft202012Validator.check_schema(tool.input_schema)
            for index, (tool, arguments) in enumerate(calls):
                last = index == len(calls) - 1
                if scenario == "hang" and last:
                    # Left running: the client goes away mid-call.
                    task = asyncio.ensure_future(session.call_tool(tool, arguments))
                    await asyncio.sleep(1.5)
                    print(json.dumps({"tools": tools, "results": results, "asked": asked}), flush=True)
                    os._exit(0)
                result = await session.call_tool(tool, arguments)
                text = "".join(block.text for block in result.content if block.type == "text")
                results.append({"tool": tool, "is_error": bool(result.is_error), "text": text})
    print(json.dumps({"tools": tools, "results": results, "asked": asked}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
