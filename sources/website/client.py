"""One HTTP request of a website source, safely: the host resolved and its address checked
(`addresses`) right before connecting to that very address (the URL's host kept as Host header and TLS
server name), per-host slots (two in flight) and spacing (Crawl-delay), a body read as a stream and
abandoned past the size limit, and every network failure sorted into a stable reason."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from core.errors import ErrorKind, ParleyError
from sources.website.addresses import (
    AddressPolicy,
    AddressRefused,
    ResolutionFailed,
    Resolver,
    address_choose,
)
from sources.website.config import Credentials

IN_FLIGHT_PER_HOST = 2


class FetchFailed(ParleyError):
    """A request that gave no usable response; `code` is the reason recorded for the page."""

    kind = ErrorKind.UNAVAILABLE


@dataclass(frozen=True)
class RawResponse:
    url: str
    status: int
    headers: httpx.Headers
    body: bytes = b""
    truncated: bool = False  # the body passed the size limit and was abandoned
    elapsed: float = 0.0


@dataclass
class _Host:
    slots: threading.BoundedSemaphore = field(
        default_factory=lambda: threading.BoundedSemaphore(IN_FLIGHT_PER_HOST)
    )
    lock: threading.Lock = field(default_factory=threading.Lock)
    next_at: float = 0.0
    delay: float = 0.0


class HostGate:
    """Per host: at most two requests in flight, and request starts spaced by its delay (Crawl-delay)
    or pushed back by a pause (Retry-After)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hosts: dict[str, _Host] = {}

    def _host(self, netloc: str) -> _Host:
        with self._lock:
            return self._hosts.setdefault(netloc, _Host())

    def delay_set(self, netloc: str, seconds: float) -> None:
        self._host(netloc).delay = max(0.0, seconds)

    def pause(self, netloc: str, seconds: float) -> None:
        host = self._host(netloc)
        with host.lock:
            host.next_at = max(host.next_at, time.monotonic() + seconds)

    @contextmanager
    def slot(self, netloc: str) -> Iterator[None]:
        host = self._host(netloc)
        with host.slots:
            with host.lock:
                now = time.monotonic()
                start = max(now, host.next_at)
                host.next_at = start + host.delay
            if start > now:
                time.sleep(start - now)
            yield


class SafeClient:
    """A thread-safe GET for one source: shared by the engine's threads, closed with the kind."""

    def __init__(
        self,
        *,
        resolver: Resolver,
        policy: AddressPolicy,
        user_agent: str,
        timeout: float,
        own_hosts: frozenset[str],
        credentials: Credentials | None,
    ) -> None:
        self.resolver = resolver
        self.policy = policy
        self.user_agent = user_agent
        self.timeout = timeout
        self.own_hosts = own_hosts
        self.credentials = credentials
        self.gate = HostGate()
        # trust_env off: an HTTP(S)_PROXY in the environment would connect somewhere this module never checked.
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,
            limits=httpx.Limits(max_connections=32, max_keepalive_connections=8),
        )

    def close(self) -> None:
        self._client.close()

    def _auth_headers(self, netloc: str) -> dict[str, str]:
        credentials = self.credentials
        if credentials is None or netloc not in self.own_hosts:
            return {}
        if credentials.header_name:
            return {credentials.header_name: credentials.header_value}
        token = f"{credentials.username}:{credentials.password}".encode()
        return {"Authorization": "Basic " + base64.b64encode(token).decode("ascii")}

    def get(
        self,
        url: str,
        *,
        limit: int,
        headers: Mapping[str, str] | None = None,
        method: str = "GET",
        content: bytes | None = None,
    ) -> RawResponse:
        """One request (no redirect followed); FetchFailed with the reason as its code."""
        parts = urlsplit(url)
        netloc, host = parts.netloc, parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        sent = {
            "User-Agent": self.user_agent,
            "Accept": "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.8",
            **(headers or {}),
            **self._auth_headers(netloc),
            "Host": netloc,
        }
        with self.gate.slot(netloc):
            try:
                address = address_choose(
                    host=host, port=port, resolver=self.resolver, policy=self.policy
                )
            except AddressRefused as exc:
                raise FetchFailed(exc.message, code="address_refused", extra=exc.extra) from exc
            except ResolutionFailed as exc:
                raise FetchFailed(exc.message, code="dns") from exc
            target = httpx.URL(url).copy_with(host=address)
            extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
            started = time.monotonic()
            try:
                return self._send(method, target, url, sent, extensions, content, limit, started)
            except httpx.TimeoutException as exc:
                raise FetchFailed(f"{url}: timed out ({exc!r})", code="timeout") from exc
            except httpx.ConnectError as exc:
                raise FetchFailed(
                    f"{url}: connection refused or unreachable ({exc})", code="refused"
                ) from exc
            except httpx.HTTPError as exc:
                raise FetchFailed(f"{url}: {type(exc).__name__}: {exc}", code="network") from exc

    def _send(
        self,
        method: str,
        target: httpx.URL,
        url: str,
        headers: dict[str, str],
        extensions: dict[str, str],
        content: bytes | None,
        limit: int,
        started: float,
    ) -> RawResponse:
        request = self._client.build_request(
            method, target, headers=headers, content=content, extensions=extensions
        )
        response = self._client.send(request, stream=True)
        try:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                return RawResponse(
                    url=url, status=response.status_code, headers=response.headers, truncated=True
                )
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > limit:
                    return RawResponse(
                        url=url,
                        status=response.status_code,
                        headers=response.headers,
                        truncated=True,
                    )
                chunks.append(chunk)
                if time.monotonic() - started > self.timeout:
                    raise httpx.ReadTimeout("the whole response took longer than the timeout")
            return RawResponse(
                url=url,
                status=response.status_code,
                headers=response.headers,
                body=b"".join(chunks),
                elapsed=time.monotonic() - started,
            )
        finally:
            response.close()
