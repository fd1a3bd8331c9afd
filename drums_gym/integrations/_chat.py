"""One OpenAI-compatible ``POST {base_url}/chat/completions`` call over httpx, JSON or SSE.

`ChatClient.complete` makes one attempt and answers a `Completion`, or raises `ChatError`
saying whether the failure is transient (a timeout, a connection error, HTTP 429 or 5xx:
worth retrying, with the server's ``Retry-After`` when it sent one) or not (any other
status, a body that is not a chat completion). Retrying is the caller's (`OpenAIPolicy`).
The API key is sent as ``Authorization: Bearer ...`` and removed from every error message.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from ..protocol import H_RETRY_AFTER, parse_retry_after

__all__ = ["ChatClient", "ChatError", "Completion"]

#: statuses worth another attempt
TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_ERROR_CHARS = 300


@dataclass(frozen=True)
class Completion:
    """The reply's text and token counts (None when the server did not report them)."""

    content: str
    prompt_tokens: int | None
    completion_tokens: int | None


class ChatError(Exception):
    """One attempt failed; ``transient`` says whether another attempt may succeed."""

    def __init__(self, message: str, *, transient: bool, retry_after: float | None = None):
        super().__init__(message)
        self.message = message
        self.transient = transient
        self.retry_after = retry_after


def _tokens(usage: Any, key: str) -> int | None:
    if isinstance(usage, Mapping):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


class ChatClient:
    """A chat-completions endpoint: ``base_url`` (ending in ``/v1`` for vLLM, SGLang and
    OpenAI), the key (or None: no Authorization header), the timeout of one attempt."""

    def __init__(self, base_url: str, api_key: str | None, timeout_s: float) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.timeout_s = timeout_s
        self._key = api_key or None
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
            follow_redirects=False,
        )

    def close(self) -> None:
        self._http.close()

    def __repr__(self) -> str:
        return f"ChatClient(url={self.url!r}, timeout_s={self.timeout_s})"

    def redact(self, text: str) -> str:
        """``text`` with the API key replaced by ``***``."""
        return text.replace(self._key, "***") if self._key else text

    # ------------------------------------------------------------------ one attempt
    def complete(self, body: Mapping[str, Any]) -> Completion:
        """One attempt; ``body["stream"]`` chooses JSON or server-sent events."""
        try:
            if body.get("stream"):
                return self._stream(body)
            response = self._http.post(self.url, json=dict(body))
            self._check(response)
            return self._completion(response)
        except httpx.TimeoutException as exc:
            raise ChatError(
                f"the model did not answer within {self.timeout_s:g}s "
                f"({type(exc).__name__})", transient=True) from None
        except httpx.TransportError as exc:
            raise ChatError(
                self.redact(f"connection to the model server failed: {type(exc).__name__}: "
                            f"{exc}"), transient=True) from None

    def _check(self, response: httpx.Response) -> None:
        if response.status_code == 200:
            return
        response.read()
        detail = _error_detail(response)
        hint = " (does base_url end in /v1?)" if response.status_code == 404 else ""
        raise ChatError(
            self.redact(f"the model server answered HTTP {response.status_code}{hint}: "
                        f"{detail}"),
            transient=response.status_code in TRANSIENT_STATUSES or response.status_code >= 500,
            retry_after=parse_retry_after(response.headers.get(H_RETRY_AFTER)),
        )

    def _completion(self, response: httpx.Response) -> Completion:
        try:
            data = response.json()
            message = data["choices"][0]["message"]
            content = message.get("content")
            if content is None:
                content = ""
            if not isinstance(content, str):
                raise TypeError("content is not a string")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ChatError(
                self.redact("the model server's answer is not a chat completion "
                            f"({type(exc).__name__}: {exc}): "
                            f"{response.text[:_ERROR_CHARS]!r}"),
                transient=False) from None
        usage = data.get("usage")
        return Completion(content, _tokens(usage, "prompt_tokens"),
                          _tokens(usage, "completion_tokens"))

    def _stream(self, body: Mapping[str, Any]) -> Completion:
        deadline = time.monotonic() + self.timeout_s
        with self._http.stream("POST", self.url, json=dict(body)) as response:
            self._check(response)
            return self._read_events(response.iter_lines(), deadline)

    def _read_events(self, lines: Iterable[str], deadline: float) -> Completion:
        """Server-sent events: ``data: {chunk}`` lines up to ``data: [DONE]``; the text is
        the chunks' ``delta.content``, the counts the ``usage`` a chunk carries."""
        parts: list[str] = []
        usage: Any = None
        events = 0
        for line in lines:
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout("the stream outlasted the timeout")
            if not line.startswith("data:"):
                continue  # comments, event names, blank separators
            events += 1
            data = line[5:].strip()
            if data == "[DONE]":
                break
            try:
                chunk = json.loads(data)
                if "error" in chunk:
                    raise ChatError(self.redact(f"the model server sent an error event: "
                                                f"{str(chunk['error'])[:_ERROR_CHARS]}"),
                                    transient=False)
                usage = chunk.get("usage") or usage
                for choice in chunk.get("choices") or ():
                    text = (choice.get("delta") or {}).get("content")
                    if isinstance(text, str):
                        parts.append(text)
            except (ValueError, AttributeError, TypeError) as exc:
                raise ChatError(
                    self.redact(f"the model server's stream is not a chat completion "
                                f"({type(exc).__name__}): {data[:_ERROR_CHARS]!r}"),
                    transient=False) from None
        if not events:
            raise ChatError("the model server's stream is not a chat completion: it holds no "
                            "'data:' event", transient=False)
        return Completion("".join(parts), _tokens(usage, "prompt_tokens"),
                          _tokens(usage, "completion_tokens"))


def _error_detail(response: httpx.Response) -> str:
    """The server's error message (OpenAI's ``{"error": {"message": ...}}``), else the
    start of the body."""
    try:
        data = response.json()
    except ValueError:
        return response.text[:_ERROR_CHARS] or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"][:_ERROR_CHARS]
    if isinstance(error, str):
        return error[:_ERROR_CHARS]
    return json.dumps(data)[:_ERROR_CHARS]
