"""A TCP proxy between a browser and the test uvicorn server that can kill one response mid-stream.

Bytes pass through untouched (HTTP/1.1, keep-alive, chunked SSE bodies) until a test arms a cut:
the next connection whose response carries the marker ``count`` times is closed right after the end
of that event's frame (plus a few bytes of whatever follows, so the client holds half a frame). The
browser then sees a real network error in the middle of the body, as when a mobile link drops.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass

from tests.support.processes import free_port

_FRAME_END = b"\n\n"
_HALF_FRAME_BYTES = 12


@dataclass
class _Cut:
    marker: bytes
    count: int
    done: threading.Event


class CuttingProxy:
    """``with CuttingProxy(upstream_port=...) as proxy:`` then ``proxy.base_url`` instead of the server's."""

    def __init__(self, *, upstream_port: int) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._lock = threading.Lock()
        self._cut: _Cut | None = None
        self._sockets: set[socket.socket] = set()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._thread = threading.Thread(target=self._accept, name="cutting-proxy", daemon=True)

    def __enter__(self) -> CuttingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._listener.close()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            _close(sock)

    def cut_after(self, *, marker: bytes, count: int) -> threading.Event:
        """Arms one cut; the returned event is set once a connection was killed."""
        cut = _Cut(marker=marker, count=count, done=threading.Event())
        with self._lock:
            self._cut = cut
        return cut.done

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            try:
                upstream = socket.create_connection(self.upstream, timeout=10)
            except OSError:
                _close(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                self._sockets.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, downstream: bool) -> None:
        seen = bytearray()  # downstream bytes since the cut was armed, to find the marker
        armed: _Cut | None = None
        try:
            while data := source.recv(65536):
                with self._lock:
                    cut = self._cut if downstream else None
                if cut is not armed:
                    armed, seen = cut, bytearray()
                if armed is not None:
                    at = _cut_position(seen, data, marker=armed.marker, count=armed.count)
                    if at is not None:
                        with self._lock:
                            if self._cut is armed:
                                self._cut = None
                        target.sendall(data[:at])
                        armed.done.set()
                        break
                    seen += data
                target.sendall(data)
        except OSError:
            pass
        finally:
            _close(source)
            _close(target)
            with self._lock:
                self._sockets.difference_update((source, target))


def _cut_position(seen: bytearray, data: bytes, *, marker: bytes, count: int) -> int | None:
    """Where in ``data`` to stop: after the frame of the ``count``-th marker, plus half a frame's bytes."""
    combined = bytes(seen) + data
    start = 0
    for _ in range(count):
        found = combined.find(marker, start)
        if found < 0:
            return None
        start = found + len(marker)
    end = combined.find(_FRAME_END, start)
    if end < 0:
        return None
    stop = min(len(combined), end + len(_FRAME_END) + _HALF_FRAME_BYTES) - len(seen)
    return stop if stop > 0 else None


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
