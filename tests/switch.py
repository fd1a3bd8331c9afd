"""A loopback TCP proxy that makes a real host hang or die on cue (tests and benchmarks)."""

from __future__ import annotations

import contextlib
import socket
import threading

__all__ = ["Switch"]


class Switch:
    """A loopback TCP proxy in front of a real host that can make it hang or die.

    ``forward`` (the start) passes bytes both ways; ``hang()`` keeps accepting and reading
    but never answers (on new and existing connections); ``kill()`` closes the port and
    every connection. ``deletes`` counts the DELETE requests that reached it while hung.
    """

    def __init__(self, port: int) -> None:
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.mode = "forward"
        self.deletes = 0
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True, name="switch-accept").start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            upstream = None
            if self.mode == "forward":
                upstream = socket.create_connection(("127.0.0.1", self.target))
            with self._lock:
                self._sockets += [conn] + ([upstream] if upstream else [])
            threading.Thread(target=self._pump, args=(conn, upstream, True), daemon=True).start()
            if upstream is not None:
                threading.Thread(target=self._pump, args=(upstream, conn, False),
                                 daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket | None, request: bool) -> None:
        try:
            while data := src.recv(65536):
                if self.mode == "hang" or dst is None:
                    if request:
                        with self._lock:
                            self.deletes += data.count(b"DELETE /v1/")
                    continue  # swallowed: no answer, ever
                dst.sendall(data)
        except OSError:
            pass

    def hang(self) -> None:
        self.mode = "hang"

    def kill(self) -> None:
        self.mode = "dead"
        self.listener.close()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def close(self) -> None:
        if self.mode != "dead":
            self.kill()
