"""A tiny OpenAI-compatible model server for the integration tests: FastAPI on
127.0.0.1, real HTTP, ``/v1/chat/completions`` with and without streaming (SSE).

Replies are scripted: the n-th assistant turn of a conversation gets ``script[n]`` (the
last one repeats), so concurrent conversations each follow the script. Every request
body is kept in ``requests`` for the test to inspect.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

__all__ = ["ModelServer"]


class ModelServer:
    def __init__(self, script: list[str], model: str = "scripted") -> None:
        self.script = list(script)
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.streamed = 0
        self._lock = threading.Lock()
        app = FastAPI()
        app.add_api_route("/v1/chat/completions", self._complete, methods=["POST"])
        app.add_api_route("/v1/models", self._models, methods=["GET"])
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        sock.close()
        self._server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ModelServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the model server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ the API
    async def _models(self) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": self.model, "object": "model"}]})

    def _reply(self, body: dict[str, Any]) -> str:
        turns = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        return self.script[min(turns, len(self.script) - 1)]

    async def _complete(self, request: Request) -> Any:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
        text = self._reply(body)
        created = int(time.time())
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not body.get("stream"):
            return JSONResponse({
                "id": "chatcmpl-stub", "object": "chat.completion", "created": created,
                "model": self.model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": usage,
            })
        with self._lock:
            self.streamed += 1

        def chunk(delta: dict, finish: str | None = None, **extra: Any) -> str:
            payload = {"id": "chatcmpl-stub", "object": "chat.completion.chunk",
                       "created": created, "model": self.model,
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                       **extra}
            return f"data: {json.dumps(payload)}\n\n"

        def events():
            yield chunk({"role": "assistant", "content": ""})
            for i in range(0, len(text), 8):
                yield chunk({"content": text[i:i + 8]})
            yield chunk({}, "stop")
            if (body.get("stream_options") or {}).get("include_usage"):
                yield ("data: " + json.dumps({"id": "chatcmpl-stub",
                       "object": "chat.completion.chunk", "created": created,
                       "model": self.model, "choices": [], "usage": usage}) + "\n\n")
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")
