"""A stand-in OpenAI-compatible chat completions server for tests, on loopback.

`StandIn` serves ``POST /v1/chat/completions`` (FastAPI + uvicorn on 127.0.0.1, a free
port, a daemon thread) and answers each request from a script: a list of `Reply` (one per
request, in order) or a function of the request body. Replies are scripted text (as JSON,
or as server-sent events when the request asks ``stream: true``), HTTP errors (with
``Retry-After``), a raw body (garbage), a hang that lasts until the test calls
`StandIn.release` (or stops the server): timeouts without a timing race, or a text held
back until ``n`` such requests are in flight together (concurrency without a timing race).
Every request's body and headers are kept in `StandIn.requests`.

>>> with StandIn([Reply.text("DONE")]) as server:   # doctest: +SKIP
...     httpx.post(server.url + "/chat/completions", json={...})
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse

__all__ = ["Received", "Reply", "StandIn"]


@dataclass(frozen=True)
class Reply:
    """What the stand-in answers to one request."""

    kind: Literal["text", "error", "hang", "raw", "together"]
    content: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @classmethod
    def text(cls, content: str, prompt_tokens: int = 11, completion_tokens: int = 7) -> Reply:
        """A chat completion whose message is ``content`` (streamed when asked)."""
        return cls("text", content, prompt_tokens=prompt_tokens,
                   completion_tokens=completion_tokens)

    @classmethod
    def error(cls, status: int, message: str = "scripted error",
              retry_after: str | None = None) -> Reply:
        """An OpenAI-style error ``{"error": {"message": ...}}`` with ``status``."""
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        return cls("error", message, status=status, headers=headers)

    @classmethod
    def together(cls, content: str, n: int) -> Reply:
        """``content``, answered once ``n`` requests answered so are in flight at once
        (each waits for the others; `StandIn.release` lets them go with a 503)."""
        return cls("together", content, status=n)

    @classmethod
    def hang(cls) -> Reply:
        """No answer until `StandIn.release` (then a 503)."""
        return cls("hang")

    @classmethod
    def raw(cls, body: str, status: int = 200) -> Reply:
        """``body`` as text/plain, whatever it is."""
        return cls("raw", body, status=status)


@dataclass(frozen=True)
class Received:
    """One request the stand-in got."""

    body: dict[str, Any]
    headers: dict[str, str]

    def text(self) -> str:
        """Every text part of every message, joined (for "does the prompt hold X")."""
        parts: list[str] = []
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            else:
                parts.extend(p.get("text", "") for p in content if p.get("type") == "text")
        return "\n".join(parts)

    def images(self) -> list[str]:
        """The ``image_url`` URLs of every message, in order."""
        return [p["image_url"]["url"] for m in self.body.get("messages", [])
                if isinstance(m.get("content"), list)
                for p in m["content"] if p.get("type") == "image_url"]


Script = Sequence[Reply] | Callable[[dict[str, Any]], Reply]


class StandIn:
    """The server; ``url`` is its API root (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, script: Script) -> None:
        self._script = script if callable(script) else list(script)
        self._next = 0
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._released: asyncio.Event | None = None
        self._all_here = asyncio.Event()
        self._gathered = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self.url = ""
        self.app = self._build()

    # ------------------------------------------------------------------ the app
    def _reply_for(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if callable(self._script):
                return self._script(body)
            if self._next >= len(self._script):
                return Reply.error(418, "the stand-in's script is exhausted")
            self._next += 1
            return self._script[self._next - 1]

    def _build(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def completions(request: Request) -> Response:
            try:
                body = json.loads(await request.body())
            except ValueError:
                return JSONResponse({"error": {"message": "body is not JSON"}}, 400)
            self.requests.append(Received(body, {k.lower(): v for k, v in
                                                 request.headers.items()}))
            if not isinstance(body.get("model"), str) or not isinstance(
                    body.get("messages"), list):
                return JSONResponse({"error": {"message": "model and messages required"}}, 400)
            reply = self._reply_for(body)
            if reply.kind == "hang":
                await self._hold()
                return JSONResponse({"error": {"message": "released"}}, 503)
            if reply.kind == "together":
                if not await self._gather(reply.status):
                    return JSONResponse({"error": {"message": "released"}}, 503)
                reply = Reply.text(reply.content)
            if reply.kind == "error":
                return JSONResponse({"error": {"message": reply.content, "type": "scripted"}},
                                    reply.status, headers=reply.headers)
            if reply.kind == "raw":
                return PlainTextResponse(reply.content, reply.status)
            if body.get("stream"):
                usage = bool((body.get("stream_options") or {}).get("include_usage"))
                return StreamingResponse(self._events(body["model"], reply, usage),
                                         media_type="text/event-stream")
            return JSONResponse(_completion(body["model"], reply))

        return app

    async def _hold(self) -> None:
        if self._released is None:
            self._loop = asyncio.get_running_loop()
            self._released = asyncio.Event()
        await self._released.wait()

    async def _gather(self, n: int) -> bool:
        """Wait until ``n`` gathering requests are here (True), or a release (False)."""
        if self._released is None:
            self._loop = asyncio.get_running_loop()
            self._released = asyncio.Event()
        self._gathered += 1
        if self._gathered >= n:
            self._all_here.set()
        waiters = [asyncio.ensure_future(e.wait()) for e in (self._all_here, self._released)]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
        return self._all_here.is_set()

    @staticmethod
    def _events(model: str, reply: Reply, usage: bool) -> Iterator[str]:
        def event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
            chunk = {"id": "chatcmpl-standin", "object": "chat.completion.chunk",
                     "model": model, "created": 0,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                     **extra}
            return f"data: {json.dumps(chunk)}\n\n"

        yield ": a comment line, as some servers send\n\n"
        yield event({"role": "assistant", "content": ""})
        text = reply.content
        third = max(1, len(text) // 3)
        for i in range(0, len(text), third):
            yield event({"content": text[i:i + third]})
        yield event({}, "stop")
        if usage:
            yield "data: " + json.dumps({
                "id": "chatcmpl-standin", "object": "chat.completion.chunk", "model": model,
                "created": 0, "choices": [], "usage": _usage(reply)}) + "\n\n"
        yield "data: [DONE]\n\n"

    # ------------------------------------------------------------------ lifecycle
    def release(self) -> None:
        """Let every hanging request go (they answer 503)."""
        loop, released = self._loop, self._released
        if loop is not None and released is not None:
            loop.call_soon_threadsafe(released.set)

    def start(self) -> StandIn:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no Nagle delay
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        self._socket = sock
        server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning",
                                               access_log=False, lifespan="off"))
        server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self._server = server
        self._thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                                        name="openai-stand-in", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)  # uvicorn has no start event; poll its flag with a deadline
        if not server.started:
            self.stop()
            raise RuntimeError("the OpenAI stand-in did not start")
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        return self

    def stop(self) -> None:
        self.release()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> StandIn:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def _usage(reply: Reply) -> dict[str, int]:
    return {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens}


def _completion(model: str, reply: Reply) -> dict[str, Any]:
    return {"id": "chatcmpl-standin", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply.content}}],
            "usage": _usage(reply)}
