"""Model policies: a policy that asks an OpenAI-compatible chat completions endpoint.

`OpenAIPolicy` talks to anything serving ``POST /v1/chat/completions`` (vLLM, SGLang, a
hosted API) in OSWorld's pyautogui convention: each step it sends the screenshot (a PNG
data URL) and/or the accessibility tree as text, the task's instruction and the last few
turns, and turns the reply into actions by OSWorld's rule (`parse_reply`: the whole reply
is ``DONE``, ``FAIL`` or ``WAIT``; else each fenced block is code, a control word, or code
then a control word on its last line). A reply's actions run one per step, as OSWorld runs
them in turn: ``pyautogui.press('enter')`` then ``DONE`` from one reply are this step's
action and the next one's (the next step asks no model; its record says ``queued``).
It is called like every drums-gym policy,
``policy(observation, instruction, info) -> str``, and never raises for what the model or
its server does:

- a timeout, a connection error, HTTP 429 or 5xx is retried (``retries`` times, with
  exponential backoff from ``backoff_s``, or the server's ``Retry-After``); then, like any
  other server error, it is a *policy error*: the step's record says so in
  ``policy_error`` and the policy answers ``on_error`` (``"WAIT"``: the desktop is left
  alone and the episode goes on; the desktop stays valid, since nothing is wrong with it);
- a reply with no code block and that is no control word is a *parse error*: recorded in
  ``parse_error``, answered with ``"WAIT"`` (a no-op, as OSWorld runs no action), the
  episode goes on.

Each call leaves its record in `OpenAIPolicy.last_call` (a dict a loop can put in the
step's ``info``): ``prompt_s`` (building the request: the PNG, the tree),
``model_latency_s`` (the model call, retries and backoff included), ``prompt_tokens``,
``completion_tokens``, ``retries``, ``backoff_s``, ``policy_error``, ``parse_error``,
``reply``, ``action``, ``queued`` (the action is the rest of an earlier reply: no call,
``reply`` None); `OpenAIPolicy.step_extras` answers it for the evaluation's recording
(each step's ``policy`` in ``steps.jsonl``, shown in the report).
The API key is read from the environment variable ``api_key_env`` and never appears in a
repr, a record, a log line or an error.

httpx, not the ``openai`` package: httpx is already a core dependency (no new extra to
install on a cluster), and this module owns timeouts, retries and their records, which the
``openai`` client would otherwise do its own way (its own retries, hidden from the record).

>>> policy = policy_from_spec("openai:Qwen/Qwen2.5-VL-7B-Instruct",
...                           base_url="http://127.0.0.1:8000/v1")
>>> policy
OpenAIPolicy(model='Qwen/Qwen2.5-VL-7B-Instruct', base_url='http://127.0.0.1:8000/v1', \
observation='screenshot', api_key_env='OPENAI_API_KEY')
>>> policy.close()
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, Literal

import numpy as np

from ._chat import ChatClient, ChatError, Completion
from ._prompt import (
    OBSERVATIONS,
    Observation,
    linearize,
    parse_reply,
    system_prompt,
    user_message,
)

__all__ = [
    "DEFAULT_BASE_URL",
    "SPEC_PREFIX",
    "OpenAIPolicy",
    "act_concurrently",
    "is_model_spec",
    "parse_reply",
    "policy_from_spec",
]

log = logging.getLogger(__name__)

#: where requests go when neither ``base_url`` nor ``OPENAI_BASE_URL`` says otherwise
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: the command line's policy spec for a model: ``openai:MODEL``
SPEC_PREFIX = "openai:"

_RECORD_KEYS = ("model", "prompt_s", "model_latency_s", "prompt_tokens", "completion_tokens",
                "retries", "backoff_s", "policy_error", "parse_error", "reply", "action",
                "queued")


def _check_number(name: str, value: Any, *, low: float, integer: bool = False,
                  strict: bool = False) -> None:
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or (
            value <= low if strict else value < low):
        what = "an integer" if integer else "a number"
        raise ValueError(f"{name} must be {what} {'>' if strict else '>='} {low:g}, "
                         f"got {value!r}")


class OpenAIPolicy:
    """A policy backed by an OpenAI-compatible chat completions endpoint.

    Args:
        model: the model name the server knows (``"gpt-4o"``, ``"Qwen/Qwen2.5-VL-7B-Instruct"``).
        base_url: the API root, ending in ``/v1`` (``http://127.0.0.1:8000/v1`` for vLLM);
            default ``$OPENAI_BASE_URL``, else OpenAI's.
        api_key_env: the environment variable holding the key (None: send no key). Unset is
            fine for a local server; for OpenAI's own URL it is an error.
        observation: ``"screenshot"``, ``"screenshot_a11y_tree"`` or ``"a11y_tree"``
            (OSWorld's observation types); the tree ones need the env made with
            ``accessibility=True`` (`needs_accessibility` tells loops so).
        history: how many earlier turns (the model's replies) each request repeats.
        temperature, top_p, max_tokens: sampling (OSWorld's defaults; None: not sent, for
            models that refuse them); ``seed`` is sent when given.
        timeout_s: the longest one attempt may take (a stream included).
        retries: further attempts after a transient failure (timeout, connection error,
            HTTP 408, 429, 5xx), waiting ``backoff_s * 2**k`` (or ``Retry-After``), at
            most ``max_backoff_s`` each.
        stream: ask for server-sent events (``stream: true``) and read them as they come.
        on_error: the action answered after a policy error: ``"WAIT"`` (the episode goes
            on) or ``"FAIL"`` (it ends, scored as a FAIL: 1.0 on an infeasible task).
        a11y_format: the tree as OSWorld's ``"table"`` (one row per element) or ``"xml"``;
            cut at ``a11y_max_chars``.
        password: the desktop's sudo password told to the model (None: not told).
        extra_body: more request fields (a vendor's options), sent as given.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        observation: Observation = "screenshot",
        history: int = 3,
        temperature: float | None = 1.0,
        max_tokens: int | None = 1500,
        timeout_s: float = 60.0,
        retries: int = 3,
        stream: bool = False,
        *,
        top_p: float | None = 0.9,
        seed: int | None = None,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        on_error: Literal["WAIT", "FAIL"] = "WAIT",
        a11y_format: Literal["table", "xml"] = "table",
        a11y_max_chars: int = 40_000,
        password: str | None = "password",
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty model name, got {model!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, "
                             f"got {observation!r}")
        _check_number("history", history, low=0, integer=True)
        if temperature is not None:
            _check_number("temperature", temperature, low=0)
        if max_tokens is not None:
            _check_number("max_tokens", max_tokens, low=0, integer=True, strict=True)
        if top_p is not None:
            _check_number("top_p", top_p, low=0, strict=True)
        _check_number("timeout_s", timeout_s, low=0, strict=True)
        _check_number("retries", retries, low=0, integer=True)
        _check_number("backoff_s", backoff_s, low=0)
        _check_number("max_backoff_s", max_backoff_s, low=0)
        _check_number("a11y_max_chars", a11y_max_chars, low=0, integer=True, strict=True)
        if seed is not None:
            _check_number("seed", seed, low=-(2**63), integer=True)
        if not isinstance(stream, bool):
            raise ValueError(f"stream must be True or False, got {stream!r}")
        if on_error not in ("WAIT", "FAIL"):
            raise ValueError(f"on_error must be 'WAIT' or 'FAIL', got {on_error!r}")
        if a11y_format not in ("table", "xml"):
            raise ValueError(f"a11y_format must be 'table' or 'xml', got {a11y_format!r}")
        if extra_body is not None and not isinstance(extra_body, Mapping):
            raise ValueError(f"extra_body must be a mapping, got {type(extra_body).__name__}")
        url = base_url if base_url is not None else os.environ.get("OPENAI_BASE_URL")
        url = (url or DEFAULT_BASE_URL).strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http:// or https:// URL, got {base_url!r}")
        key = None
        if api_key_env is not None:
            if not isinstance(api_key_env, str) or not api_key_env:
                raise ValueError(f"api_key_env must be an environment variable name or None, "
                                 f"got {api_key_env!r}")
            key = os.environ.get(api_key_env) or None
            if key is None and url == DEFAULT_BASE_URL:
                raise ValueError(f"the environment variable {api_key_env} is not set: the "
                                 f"OpenAI API needs a key (or pass base_url for your server)")

        self.model = model.strip()
        self.base_url = url
        self.api_key_env = api_key_env
        self.observation: Observation = observation
        self.history = history
        self.temperature = float(temperature) if temperature is not None else None
        self.top_p = top_p
        self.max_tokens = max_tokens
        self.seed = seed
        self.timeout_s = float(timeout_s)
        self.retries = retries
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.stream = stream
        self.on_error = on_error
        self.a11y_format: Literal["table", "xml"] = a11y_format
        self.a11y_max_chars = a11y_max_chars
        self.password = password
        self.extra_body = dict(extra_body or {})
        #: whether loops must make the env with ``accessibility=True``
        self.needs_accessibility = observation != "screenshot"
        self._chat = ChatClient(url, key, self.timeout_s)
        self._turns: deque[tuple[int, str]] = deque(maxlen=history)
        self._pending: deque[str] = deque()  # the rest of the last reply's actions
        self._step = 0
        self._last: dict[str, Any] | None = None
        self._failing = False
        #: this episode's records, one per call (cleared by `reset`)
        self.calls: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ lifecycle
    def reset(self) -> None:
        """Start a new episode: forget the turns and the records."""
        self._turns.clear()
        self._pending.clear()
        self._step = 0
        self._last = None
        self.calls = []

    def close(self) -> None:
        """Close the HTTP connections (idempotent)."""
        self._chat.close()

    def __enter__(self) -> OpenAIPolicy:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"OpenAIPolicy(model={self.model!r}, base_url={self.base_url!r}, "
                f"observation={self.observation!r}, api_key_env={self.api_key_env!r})")

    def episode_stats(self) -> dict[str, Any]:
        """This episode's model figures, as the suite runner records them per episode:
        ``model_latency_s`` (mean per call), ``prompt_tokens`` and ``completion_tokens``
        (sums; None when the server reported none), ``policy_errors`` (count)."""
        calls = self.calls
        latencies = [c["model_latency_s"] for c in calls if c.get("model_latency_s") is not None]

        def total(key: str) -> int | None:
            values = [c[key] for c in calls if c.get(key) is not None]
            return sum(values) if values else None

        return {
            "model_latency_s": sum(latencies) / len(latencies) if latencies else None,
            "prompt_tokens": total("prompt_tokens"),
            "completion_tokens": total("completion_tokens"),
            "policy_errors": sum(1 for c in calls if c.get("policy_error")),
        }

    def step_extras(self) -> dict[str, Any] | None:
        """What the evaluation loops record with each step (its ``policy`` in
        ``steps.jsonl``): `last_call`, the reply, parsed action, tokens and latency."""
        return self.last_call

    @property
    def last_call(self) -> dict[str, Any] | None:
        """The last call's record (a copy), None before the first call of an episode."""
        return dict(self._last) if self._last is not None else None

    # ------------------------------------------------------------------ one step
    def __call__(self, observation: np.ndarray, instruction: str,
                 info: Mapping[str, Any] | None = None) -> str:
        """The next action for ``observation`` (the step's screenshot); ``info`` is the
        last reset's or step's info (its ``accessibility`` tree, its ``action_error``)."""
        info = info if info is not None else {}
        record = dict.fromkeys(_RECORD_KEYS)
        record.update(model=self.model, retries=0, backoff_s=0.0, queued=False)
        if self._pending:  # the rest of the last reply: no model call
            self._step += 1
            record.update(action=self._pending.popleft(), queued=True)
            self._last = record
            self.calls.append(record)
            return str(record["action"])
        start = time.perf_counter()
        messages = self._messages(observation, instruction, info)
        record["prompt_s"] = time.perf_counter() - start
        start = time.perf_counter()
        completion = self._complete(self._body(messages), record)
        record["model_latency_s"] = time.perf_counter() - start
        self._step += 1
        if completion is None:
            action: str = self.on_error
            if not self._failing:  # once per run of failures, not once per step
                log.warning("drums-gym: model %s: policy error at step %d (answering %s "
                            "until it answers again): %s", self.model, self._step, action,
                            record["policy_error"])
            self._failing = True
        else:
            if self._failing:
                log.warning("drums-gym: model %s answers again (step %d)", self.model,
                            self._step)
            self._failing = False
            record.update(reply=completion.content, prompt_tokens=completion.prompt_tokens,
                          completion_tokens=completion.completion_tokens)
            parsed, problem = parse_reply(completion.content)
            record["parse_error"] = problem
            action = parsed[0] if parsed else "WAIT"
            self._pending.extend(parsed[1:])
            self._turns.append((self._step, completion.content))
        record["action"] = action
        self._last = record
        self.calls.append(record)
        return action

    def _complete(self, body: dict[str, Any], record: dict[str, Any]) -> Completion | None:
        """The completion, retrying transient failures; None (and ``policy_error`` in the
        record) when every attempt failed or one failed for good."""
        for attempt in range(self.retries + 1):
            try:
                return self._chat.complete(body)
            except ChatError as exc:
                if not exc.transient or attempt == self.retries:
                    tried = f" (after {attempt} retries)" if exc.transient and attempt else ""
                    record["policy_error"] = f"{exc.message}{tried}"
                    return None
                delay = exc.retry_after if exc.retry_after is not None else (
                    self.backoff_s * 2**attempt)
                delay = min(delay, self.max_backoff_s)
                record["retries"] += 1
                record["backoff_s"] += delay
                time.sleep(delay)
        return None  # not reached: the last attempt returns or records an error

    def _body(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.top_p is not None:
            body["top_p"] = self.top_p
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.seed is not None:
            body["seed"] = self.seed
        if self.stream:
            body.update(stream=True, stream_options={"include_usage": True})
        body.update(self.extra_body)
        return body

    def _messages(self, observation: Any, instruction: str,
                  info: Mapping[str, Any]) -> list[dict[str, Any]]:
        tree = self._tree(info)
        screenshot = None
        if self.observation != "a11y_tree":
            screenshot = _screenshot(observation)
            height, width = screenshot.shape[:2]
        else:
            width, height = _tree_size(tree)
        system = system_prompt(str(instruction), self.observation, width, height,
                               self.password)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for k, reply in self._turns:
            messages.append({"role": "user",
                             "content": f"(The observation of step {k} is not repeated.)"})
            messages.append({"role": "assistant", "content": reply})
        tree_text = (linearize(tree, self.a11y_format, self.a11y_max_chars)
                     if tree is not None else None)
        error = info.get("action_error")
        messages.append(user_message(self.observation, screenshot, tree_text,
                                     error if isinstance(error, str) else None))
        return messages

    def _tree(self, info: Mapping[str, Any]) -> Mapping[str, Any] | None:
        if not self.needs_accessibility:
            return None
        tree = info.get("accessibility")
        if isinstance(tree, Mapping) and "role" not in tree and isinstance(
                tree.get("tree"), Mapping):
            tree = tree["tree"]  # the HTTP API's envelope ({"format", "tree"})
        if not isinstance(tree, Mapping):
            raise ValueError(f"observation {self.observation!r} needs the accessibility "
                             "tree in info['accessibility']: make the env with "
                             "accessibility=True")
        return tree


def _screenshot(observation: Any) -> np.ndarray:
    if (not isinstance(observation, np.ndarray) or observation.dtype != np.uint8
            or observation.ndim != 3 or observation.shape[2] not in (3, 4)
            or 0 in observation.shape):
        what = (f"{observation.dtype} array of shape {observation.shape}"
                if isinstance(observation, np.ndarray) else type(observation).__name__)
        raise ValueError(f"the observation must be a uint8 (H, W, 3) screenshot, got {what}")
    return observation


def _tree_size(tree: Mapping[str, Any] | None) -> tuple[int, int]:
    size = (tree or {}).get("size")
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return int(size[0]), int(size[1])
    return 1920, 1080


def act_concurrently(
    policies: Sequence[Callable[[Any, str, Mapping[str, Any]], str]],
    observations: Sequence[Any],
    instructions: Sequence[str],
    infos: Sequence[Mapping[str, Any]],
    *,
    max_workers: int | None = None,
) -> list[str]:
    """Each member's next action (``policies[i](observations[i], instructions[i],
    infos[i])``), the calls in flight at once, one thread each (at most ``max_workers``,
    default all): a server that batches requests (vLLM, SGLang) answers n members in about
    the time of one, where calling them in turn costs n model latencies.

    Each member needs its own policy instance. A policy's exception is raised here, after
    every call has returned.
    """
    n = len(policies)
    if not (len(observations) == len(instructions) == len(infos) == n):
        raise ValueError(f"act_concurrently needs one observation, instruction and info per "
                         f"policy: got {n} policies, {len(observations)} observations, "
                         f"{len(instructions)} instructions, {len(infos)} infos")
    shared = [p for p in policies if isinstance(p, OpenAIPolicy)]
    if len({id(p) for p in shared}) != len(shared):
        raise ValueError("act_concurrently: each member needs its own OpenAIPolicy instance "
                         "(one keeps one episode's turns)")
    if max_workers is not None:
        _check_number("max_workers", max_workers, low=0, integer=True, strict=True)
    if n == 0:
        return []
    with ThreadPoolExecutor(max_workers=max_workers or n,
                            thread_name_prefix="drums-model") as pool:
        futures = [pool.submit(p, o, i, f)
                   for p, o, i, f in zip(policies, observations, instructions, infos,
                                             strict=True)]
        return [future.result() for future in futures]


def is_model_spec(spec: object) -> bool:
    """Whether a ``--policy`` spec names a model (``openai:MODEL``)."""
    return isinstance(spec, str) and spec.strip().startswith(SPEC_PREFIX)


def policy_from_spec(spec: str, *, base_url: str | None = None,
                     api_key_env: str | None = "OPENAI_API_KEY",
                     **options: Any) -> OpenAIPolicy:
    """The policy ``--policy openai:MODEL`` names (``MODEL`` is everything after the
    prefix: ``openai:Qwen/Qwen2.5-VL-7B-Instruct``, ``openai:llama3:8b``); ``options`` are
    `OpenAIPolicy`'s other arguments.

    Raises:
        ValueError: naming the spec, when it is not ``openai:MODEL`` or an option is bad.
    """
    if not is_model_spec(spec):
        raise ValueError(f"a model policy spec is {SPEC_PREFIX}MODEL, got {spec!r}")
    model = spec.strip()[len(SPEC_PREFIX):].strip()
    if not model:
        raise ValueError(f"policy {spec!r}: the model name after {SPEC_PREFIX!r} is empty")
    try:
        return OpenAIPolicy(model, base_url=base_url, api_key_env=api_key_env, **options)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"policy {spec!r}: {exc}") from None
