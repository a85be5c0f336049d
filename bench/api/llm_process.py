"""The scripted LLM server in a process of its own, as a real model endpoint is.

In the load generator's process its streaming threads would share that interpreter (and its GIL)
with the asyncio clients whose latencies the bench reports. The parent scripts it over a pipe.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing.connection import Connection

from tests.support.llm_server import Reply


class LLMProcess:
    def __init__(self) -> None:
        context = multiprocessing.get_context(
            "spawn"
        )  # a fresh interpreter: no Django state, no threads
        self._pipe, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child,), name="scripted-llm", daemon=True
        )
        self.base_url = ""

    def start(self) -> LLMProcess:
        self._process.start()
        self.base_url = self._pipe.recv()
        return self

    @property
    def pid(self) -> int:
        assert self._process.pid is not None
        return self._process.pid

    def enqueue(self, *replies: Reply) -> None:
        self._pipe.send(("enqueue", list(replies)))
        self._pipe.recv()  # queued before the caller goes on

    def stop(self) -> None:
        if self._process.is_alive():
            self._pipe.send(("stop", []))
            self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()


def _serve(pipe: Connection) -> None:
    from tests.support.llm_server import ScriptedLLMServer

    server = ScriptedLLMServer().start()
    pipe.send(server.base_url)
    try:
        while True:
            command, replies = pipe.recv()
            if command == "stop":
                return
            server.enqueue(*replies)
            pipe.send("queued")
    except EOFError:  # the bench process is gone
        return
    finally:
        server.stop()
