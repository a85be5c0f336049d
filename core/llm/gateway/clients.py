"""The gateway's one client factory: an openai client per process and endpoint, its own retries off."""

from __future__ import annotations

import os
import threading

import httpx2
import openai

from core.llm.types import Endpoint

_clients: dict[tuple[object, ...], openai.OpenAI] = {}
_clients_lock = threading.Lock()


def openai_client(endpoint: Endpoint) -> openai.OpenAI:
    """The one client factory: a client per process and endpoint, reused across calls.

    Building one costs ~25 ms (httpx loads the TLS trust store), so it is kept, keyed by process
    id so a forked worker never shares its parent's sockets. The gateway does its own retries
    (to name errors and honour Retry-After), so the client's are off.
    """
    key = (
        os.getpid(),
        endpoint.base_url,
        endpoint.api_key,
        endpoint.connect_timeout,
        endpoint.read_timeout,
    )
    client = _clients.get(key)
    if client is None:
        with _clients_lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = openai.OpenAI(
                    base_url=endpoint.base_url,
                    api_key=endpoint.api_key or "unused",
                    timeout=httpx2.Timeout(endpoint.read_timeout, connect=endpoint.connect_timeout),
                    max_retries=0,
                )
    return client
