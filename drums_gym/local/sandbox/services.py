"""The door from a sandbox to its desktop's owner process: a unix socket, served by a
thread of that process, for the shims of the desktop's own commands (``gsettings``...).

The socket lives beside the tree (never inside what the sandbox can write) and is bound at
``/run/drums/host.sock``. The protocol is one JSON line each way: ``{"argv", "cwd",
"stdin"}`` in, ``{"stdout", "stderr", "status"}`` out; the caller's uid is the kernel's
(SO_PEERCRED), never the request's. Requests are bounded in size and served one at a
time, so a flood waits on the socket instead of growing the host.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import struct
import threading
from collections.abc import Callable

__all__ = ["MAX_REQUEST", "Handler", "HostDoor"]

MAX_REQUEST = 1 << 20
Handler = Callable[[list[str], str, int, str], tuple[str, str, int]]


class HostDoor:
    """A listening socket at ``path`` whose requests ``handler`` answers."""

    def __init__(self, path: str, handler: Handler) -> None:
        self.path, self.handler = path, handler
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(path)
        os.chmod(path, 0o666)  # any user of the sandbox; the machine's users cannot reach it
        self._sock.listen(8)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, name="drums-host-door",
                                        daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with conn, contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                self._one(conn)

    def _one(self, conn: socket.socket) -> None:
        conn.settimeout(5.0)
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        _, uid, _ = struct.unpack("3i", creds)
        data = b""
        while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        req = json.loads(data)
        argv = [str(a) for a in req["argv"]]
        out, err, status = self.handler(argv, str(req.get("cwd", "/home/user")), uid,
                                        str(req.get("stdin", "")))
        conn.sendall(json.dumps({"stdout": out, "stderr": err, "status": status}).encode()
                     + b"\n")
