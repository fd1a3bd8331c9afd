"""The framed messages between the host and its desktop workers (and the zygote).

A message is a 4-byte big-endian length and a pickle; file descriptors (a new worker's
socket) travel beside the first bytes of a frame as ``SCM_RIGHTS``. Only the host and the
processes it forked speak it, over socket pairs they made: nothing else can reach them.
A reply longer than the reader's ``max_bytes`` is refused before it is read (the worker
that sent it is then killed by the caller: a reply cap the work cannot talk its way past).
:func:`asend` and :func:`arecv` are the same on an event loop (the HTTP front awaits a
worker's reply there, the socket non-blocking meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import pickle
import select
import socket
import struct
import time
from typing import Any

__all__ = ["REPLY_CLASSES", "Deadline", "Lost", "TooLarge", "arecv", "asend", "recv", "send"]

_HEAD = struct.Struct(">I")
_MAX_FDS = 64
#: what :func:`arecv` reads first (a reply's head, and most replies whole)
_FIRST_READ = 1 << 16


#: the classes a worker's reply may hold (read by the host: a worker is not trusted)
REPLY_CLASSES = frozenset({
    ("drums_gym.local.frames", "Frame"),
    ("drums_gym.local.workers.station", "Acted"),
    ("drums_gym.local.workers.station", "Verdict"),
    ("drums_gym.protocol.shapes", "CutReply"),
    ("drums_gym.protocol.shapes", "AccessibilityReply"),
})


#: the classes of :data:`REPLY_CLASSES` found so far (each reply names its classes again)
_found: dict[tuple[str, str], Any] = {}


class _ReplyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        key = (module, name)
        found = _found.get(key)
        if found is None:
            if key not in REPLY_CLASSES:
                raise pickle.UnpicklingError(f"a worker's reply may not hold {module}.{name}")
            found = _found[key] = super().find_class(module, name)
        return found


class Lost(Exception):
    """The other end is gone (EOF or a broken socket): the process died or was killed."""


class Deadline(Exception):
    """No complete reply before the deadline."""


class TooLarge(Exception):
    """The reply announced more bytes than the reader accepts."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"a reply of {size} bytes is over the {limit}-byte limit")
        self.size, self.limit = size, limit


def send(sock: socket.socket, obj: Any, fds: list[int] | tuple[int, ...] = ()) -> None:
    """Send one message (and ``fds`` with it); raises :class:`Lost` when the peer is gone."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    head = _HEAD.pack(len(data))
    try:
        if fds:
            socket.send_fds(sock, [head], list(fds))
        else:
            sock.sendall(head)
        sock.sendall(data)  # not joined to the head: a frame's bytes are copied once less
    except OSError as exc:
        raise Lost(f"the peer is gone ({exc.__class__.__name__})") from None


def _wait(sock: socket.socket, deadline: float | None) -> None:
    if deadline is None:
        return
    left = deadline - time.monotonic()
    if left <= 0 or not select.select([sock], [], [], left)[0]:
        raise Deadline("no reply before the deadline")


def _read(
    sock: socket.socket, n: int, deadline: float | None, fds: list[int] | None = None
) -> bytearray:
    """``n`` bytes; descriptors sent with the first of them go to ``fds`` if given."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        _wait(sock, deadline)
        try:
            if got == 0 and fds is not None:
                data, new, _flags, _addr = socket.recv_fds(sock, n, _MAX_FDS)
                fds.extend(new)
                view[: len(data)] = data
                count = len(data)
            else:
                count = sock.recv_into(view[got:])
        except OSError as exc:
            raise Lost(f"the peer is gone ({exc.__class__.__name__})") from None
        if not count:
            raise Lost("the peer closed its end")
        got += count
    return buf


def recv(
    sock: socket.socket,
    deadline: float | None = None,
    max_bytes: int | None = None,
    trusted: bool = False,
) -> tuple[Any, list[int]]:
    """One message and the descriptors that came with it. ``deadline`` is a
    ``time.monotonic()`` time (None: wait for ever). Unless ``trusted`` (a worker reading
    its host), the message may hold only plain data and :data:`REPLY_CLASSES`."""
    fds: list[int] = []
    (size,) = _HEAD.unpack(_read(sock, _HEAD.size, deadline, fds))
    if max_bytes is not None and size > max_bytes:
        for fd in fds:
            _close(fd)
        raise TooLarge(size, max_bytes)
    return _decode(_read(sock, size, deadline), trusted), fds


def _decode(body: bytearray, trusted: bool) -> Any:
    try:
        return pickle.loads(body) if trusted else _ReplyUnpickler(io.BytesIO(body)).load()
    except (pickle.UnpicklingError, EOFError, ValueError) as exc:
        raise Lost(f"an unreadable message ({exc})") from None


# -- the same, on an event loop (the socket non-blocking meanwhile; no descriptors) ---------


async def asend(sock: socket.socket, obj: Any) -> None:
    """:func:`send` on the running event loop (a frame the socket takes at once is sent
    with no wait: a request is a few hundred bytes)."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    frame = _HEAD.pack(len(data)) + data
    try:
        try:
            sent = sock.send(frame)
        except BlockingIOError:
            sent = 0
        if sent < len(frame):
            await asyncio.get_running_loop().sock_sendall(sock, memoryview(frame)[sent:])
    except OSError as exc:
        raise Lost(f"the peer is gone ({exc.__class__.__name__})") from None


async def _some(sock: socket.socket, into: memoryview) -> int:
    """Read what has come (at least a byte) into ``into``: at once when it is there, else
    when the loop says it is."""
    try:
        try:
            count = sock.recv_into(into)
        except BlockingIOError:
            count = await asyncio.get_running_loop().sock_recv_into(sock, into)
    except OSError as exc:
        raise Lost(f"the peer is gone ({exc.__class__.__name__})") from None
    if not count:
        raise Lost("the peer closed its end")
    return count


async def arecv(sock: socket.socket, max_bytes: int | None = None) -> Any:
    """:func:`recv` of a worker's reply (untrusted) on the running event loop; the caller
    bounds the wait (a descriptor sent with it is not taken: none is on this path). The
    first read takes up to :data:`_FIRST_READ` bytes, the head and most replies whole (a
    worker has one reply out at a time: nothing of a next one can be read with it)."""
    first = memoryview(bytearray(_FIRST_READ))
    got = 0
    while got < _HEAD.size:
        got += await _some(sock, first[got:])
    (size,) = _HEAD.unpack(first[: _HEAD.size])
    if max_bytes is not None and size > max_bytes:
        raise TooLarge(size, max_bytes)
    if got > _HEAD.size + size:
        raise Lost("the worker sent more than its reply")
    body = bytearray(size)
    have = got - _HEAD.size
    body[:have] = first[_HEAD.size : got]
    rest = memoryview(body)
    while have < size:
        have += await _some(sock, rest[have:])
    return _decode(body, False)


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        socket.close(fd)
