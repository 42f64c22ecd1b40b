"""A real ACP client (the Python `agent-client-protocol` SDK) driving `nodwyn acp`.

Usage: client.py ANSWER PROMPTS_JSON
  ANSWER: how permission requests are answered: `allow`, `always` (`allow_always` where it
  is offered, else `allow_once`), `reject`, `cancel` (the turn is
  cancelled once a tool call runs, and the request answered `cancelled`), or `ignore` (never
  answered, as by an editor that shows no prompt).
  A prompt `@mode ID` sets the session's mode (`session/set_mode`) and `@list` lists the
  sessions (`session/list`) instead of prompting; their answers (or errors) are the turn's
  `answer`. A refused `session/new` prints only `refused`. Further arguments are given to `nodwyn acp`. With `$NODWYN_LOAD` set, the session it names is
  loaded (`session/load`) instead of a new one opened, and what the load told is `loaded`.
The client offers fs and terminal capabilities, and records whether the agent used them.
Prints one JSON object: the session, each turn's stop reason and updates, the permission
requests, and the client methods the agent called.
"""

import asyncio
import json
import os
import sys

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    RequestPermissionResponse,
)


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


class Client:
    def __init__(self, answer):
        self.answer = answer
        self.updates = []
        self.permissions = []
        self.used = []
        self.conn = None
        self.session = None
        self.cancelled = False

    async def session_update(self, session_id, update, **kwargs):
        self.updates.append(dump(update))
        shown = dump(update)
        if (
            self.answer == "cancel"
            and not self.cancelled
            and shown.get("sessionUpdate") == "tool_call_update"
            and shown.get("status") == "in_progress"
        ):
            self.cancelled = True
            asyncio.get_running_loop().call_later(
                1.0, lambda: asyncio.ensure_future(self.conn.cancel(session_id=session_id))
            )

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permissions.append(
            {"tool_call": dump(tool_call), "options": [dump(o) for o in options]}
        )
        if self.answer == "cancel":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        if self.answer == "ignore":
            await asyncio.Event().wait()
        offered = [o.option_id for o in options]
        if self.answer == "always" and "allow_always" in offered:
            wanted = "allow_always"
        elif self.answer in ("allow", "always"):
            wanted = "allow_once"
        else:
            wanted = "reject_once"
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=wanted)
        )

    # Offered, and never to be used: nodwyn works in its worktree and runs its own commands.
    async def read_text_file(self, **kwargs):
        self.used.append("fs/read_text_file")
        raise RuntimeError("not expected")

    async def write_text_file(self, **kwargs):
        self.used.append("fs/write_text_file")
        raise RuntimeError("not expected")

    async def create_terminal(self, **kwargs):
        self.used.append("terminal/create")
        raise RuntimeError("not expected")


async def main(answer, prompts, arguments):
    client = Client(answer)
    cwd = os.getcwd()
    async with spawn_agent_process(
        client,
        os.environ["NODWYN_BIN"],
        "acp",
        *arguments,
        cwd=cwd,
        env=dict(os.environ),
        transport_kwargs={"stderr": None},
    ) as (conn, _process):
        client.conn = conn
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                terminal=True,
            ),
            client_info=Implementation(name="nodwyn-tests", version="0.1"),
        )
        load = os.environ.get("NODWYN_LOAD")
        if load:
            opened = await conn.load_session(session_id=load, cwd=cwd, mcp_servers=[])
            session = load
        else:
            try:
                opened = await conn.new_session(cwd=cwd, mcp_servers=[])
            except Exception as error:  # the agent's refusal, kept for the test
                print(json.dumps({"refused": str(error)}))
                return
            session = opened.session_id
        opened_with = dump(opened) if opened is not None else {}
        loaded = list(client.updates) if load else []
        if load:
            client.updates.clear()
        turns = []
        for text in prompts:
            if text.startswith("@"):
                try:
                    if text.startswith("@mode "):
                        answer = await conn.set_session_mode(
                            session_id=session, mode_id=text[len("@mode ") :]
                        )
                    else:
                        answer = await conn.list_sessions(cwd=cwd)
                    answer = dump(answer) if answer is not None else {}
                except Exception as error:  # the agent's refusal, kept for the test
                    answer = {"error": str(error)}
                turns.append({"answer": answer, "updates": list(client.updates)})
                client.updates.clear()
                continue
            response = await asyncio.wait_for(
                conn.prompt(session_id=session, prompt=[text_block(text)]), 120
            )
            turns.append({"stop": response.stop_reason, "updates": list(client.updates)})
            client.updates.clear()
    print(
        json.dumps(
            {
                "initialize": dump(init),
                "session": session,
                "opened": opened_with,
                "loaded": loaded,
                "turns": turns,
                "permissions": client.permissions,
                "used": client.used,
            }
        )
    )


asyncio.run(main(sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]))
