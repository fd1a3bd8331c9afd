"""The model policy against a stand-in OpenAI-compatible server over real loopback HTTP.

Episodes run on the embedded local host (``gym.make("Drums/e0df059f")``); the stand-in
(`openai_server.StandIn`) answers from a script: a solve, 500s, a hang the test releases,
garbage. What a user relies on: a scripted model solves the task through the policy; a
failing or silent model server never stops the run nor makes the desktop invalid, and each
step's record says what happened (retries, policy error, tokens).
"""

from __future__ import annotations

import base64
import doctest
import io
import logging
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from openai_server import Received, Reply, StandIn
from PIL import Image

import drums_gym  # noqa: F401  (registers the Drums/* ids)
from drums_gym.integrations import _prompt, models
from drums_gym.integrations.models import (
    OpenAIPolicy,
    act_concurrently,
    is_model_spec,
    policy_from_spec,
)

TASK = "Drums/e0df059f"
KEY = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRUMS_TEST_MODEL_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def make_policy(server: StandIn, **kwargs: Any) -> OpenAIPolicy:
    kwargs.setdefault("api_key_env", "DRUMS_TEST_MODEL_KEY")
    kwargs.setdefault("backoff_s", 0.0)
    return OpenAIPolicy("standin-model", base_url=server.url, **kwargs)


def run_episode(policy: OpenAIPolicy, max_steps: int = 6, accessibility: bool = False,
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], float, bool, bool]:
    """One episode: (each step's info, each step's model record, last reward,
    terminated, truncated)."""
    env = gym.make(TASK, max_steps=max_steps, wait_s=0.0, accessibility=accessibility)
    try:
        obs, info = env.reset(seed=0)
        instruction = info["instruction"]
        policy.reset()
        infos, records = [], []
        reward, terminated, truncated = 0.0, False, False
        while not (terminated or truncated):
            action = policy(obs, instruction, info)
            records.append(policy.last_call)
            obs, reward, terminated, truncated, info = env.step(action)
            infos.append(info)
        return infos, records, float(reward), terminated, truncated
    finally:
        env.close()


def icon_centre(request_text: str, name: str) -> tuple[int, int]:
    """Where the policy's tree table (sent in the request) puts the icon ``name``."""
    for line in request_text.splitlines():
        cells = line.split("\t")
        if len(cells) == 6 and cells[0] == "icon" and cells[1] == name:
            (x, y), (w, h) = (tuple(int(v) for v in re.findall(r"-?\d+", c)) for c in cells[4:])
            return x + w // 2, y + h // 2
    raise AssertionError(f"no icon {name!r} in the request's accessibility tree")


class Solver:
    """A scripted "model": the 3-step rename of e0df059f, then DONE; the folder's position
    read from the accessibility tree in the request (as a model reading the tree would)."""

    def __init__(self) -> None:
        self.step = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        self.step += 1
        if self.step == 1:
            x, y = icon_centre(Received(body, {}).text(), "todo_list_Jan_1")
            return Reply.text(f"The folder is on the desktop; select it.\n```python\n"
                              f"import pyautogui\npyautogui.click({x}, {y})\n```", 1200, 30)
        if self.step == 2:
            return Reply.text("Rename it with F2:\n```\npyautogui.press('f2')\n```", 1300, 20)
        if self.step == 3:
            return Reply.text("```python\npyautogui.write('todo_list_Jan_2')\n"
                              "pyautogui.press('enter')\n```", 1400, 25)
        return Reply.text("The folder has its new name.\n```DONE```", 1500, 8)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_scripted_model_solves_the_task_through_the_policy(stream: bool) -> None:
    with StandIn(Solver()) as server, make_policy(
            server, observation="screenshot_a11y_tree", history=2, stream=stream) as policy:
        infos, records, reward, terminated, truncated = run_episode(policy, accessibility=True)
        requests = list(server.requests)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert infos[-1]["valid"] is True
    assert [r["action"] for r in records][-1] == "DONE"
    assert [r["prompt_tokens"] for r in records] == [1200, 1300, 1400, 1500]
    assert [r["completion_tokens"] for r in records] == [30, 20, 25, 8]
    assert all(r["policy_error"] is None and r["parse_error"] is None and r["retries"] == 0
               for r in records)
    assert all(r["model_latency_s"] > 0 for r in records)
    assert records[1]["action"] == "pyautogui.press('f2')"
    assert len(requests) == 4
    first = requests[0]
    assert first.body["model"] == "standin-model"
    assert first.body.get("stream", False) is stream
    assert (first.body["temperature"], first.body["top_p"], first.body["max_tokens"]) == (
        1.0, 0.9, 1500)
    assert first.headers["authorization"] == f"Bearer {KEY}"
    # the instruction, the tree and the screenshot (a PNG of the screen) are in the request
    assert "todo_list_Jan_2" in first.text() and "Can you help me" in first.text()
    (url,) = first.images()
    assert url.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])), formats=["PNG"])
    assert image.size == (1920, 1080)
    # history: the last two replies come back as assistant turns, only the current image
    roles = [m["role"] for m in requests[3].body["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert requests[3].body["messages"][4]["content"] == records[2]["reply"]
    assert len(requests[3].images()) == 1


def test_the_policy_reset_forgets_the_last_episode() -> None:
    replies = [Reply.text("```python\npyautogui.moveTo(5, 5)\n```"), Reply.text("DONE"),
               Reply.text("DONE")]
    with StandIn(replies) as server, make_policy(
            server, temperature=None, top_p=None, max_tokens=None, seed=7,
            extra_body={"max_completion_tokens": 99}) as policy:
        run_episode(policy)
        assert len(policy.calls) == 2
        run_episode(policy)
        assert len(policy.calls) == 1
        roles = [m["role"] for m in server.requests[2].body["messages"]]
    assert roles == ["system", "user"]
    body = server.requests[0].body
    assert not {"temperature", "top_p", "max_tokens"} & set(body)
    assert (body["seed"], body["max_completion_tokens"]) == (7, 99)


def test_a_server_that_answers_500_leaves_the_episode_going_with_policy_errors(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="drums_gym.integrations.models")
    with StandIn(lambda body: Reply.error(500, "the GPU fell over")) as server, make_policy(
            server, retries=2) as policy:
        infos, records, reward, terminated, truncated = run_episode(policy, max_steps=3)
        sent = len(server.requests)
    assert (terminated, truncated) == (False, True)
    assert [i["valid"] for i in infos] == [True, True, True]
    assert all("invalid_reason" not in i or i["invalid_reason"] is None for i in infos)
    assert sent == 9  # 3 steps x (1 attempt + 2 retries)
    for record in records:
        assert record["action"] == "WAIT"
        assert record["retries"] == 2
        assert "HTTP 500" in record["policy_error"] and "GPU fell over" in record["policy_error"]
        assert "after 2 retries" in record["policy_error"]
        assert record["reply"] is None and record["prompt_tokens"] is None
    # one warning for the run of failures, not one per step
    (warning,) = [r for r in caplog.records if r.name == "drums_gym.integrations.models"]
    assert "policy error at step 1" in warning.getMessage()


def test_transient_errors_are_retried_until_the_model_answers_honouring_retry_after() -> None:
    replies = [Reply.error(503, "busy"), Reply.error(429, "slow down", retry_after="1"),
               Reply.text("DONE", 50, 1)]
    with StandIn(replies) as server, make_policy(server, retries=3, backoff_s=0.0) as policy:
        _, records, _, terminated, _ = run_episode(policy)
    assert terminated
    (record,) = records
    assert record["retries"] == 2
    assert record["backoff_s"] == 1.0  # 0 (backoff_s) for the 503, Retry-After for the 429
    assert record["policy_error"] is None and record["action"] == "DONE"
    assert record["prompt_tokens"] == 50


def test_a_server_that_hangs_times_out_each_attempt_and_the_episode_goes_on() -> None:
    with StandIn(lambda body: Reply.hang()) as server, make_policy(
            server, timeout_s=0.3, retries=1) as policy:
        infos, records, _, terminated, truncated = run_episode(policy, max_steps=1)
        deadline = time.monotonic() + 30
        while len(server.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)  # the second attempt's arrival, bounded (not a timing assertion)
        arrived = len(server.requests)
    assert (terminated, truncated) == (False, True) and infos[-1]["valid"] is True
    (record,) = records
    assert record["retries"] == 1
    assert "did not answer within 0.3s" in record["policy_error"]
    assert record["action"] == "WAIT"
    assert arrived == 2


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_garbage_replies_are_no_ops_recorded_as_parse_errors(stream: bool) -> None:
    replies = [Reply.text("I am not sure what to do here, maybe click something?"),
               Reply.text("```python\nimport os; os.remove('/')\n```"),
               Reply.raw("<html>502 Bad Gateway</html>"), Reply.text("DONE")]
    with StandIn(replies) as server, make_policy(server, retries=2, stream=stream) as policy:
        infos, records, _, terminated, _ = run_episode(policy)
        sent = len(server.requests)
    assert terminated and infos[-1]["valid"] is True
    assert records[0]["action"] == "WAIT"
    assert "no fenced code block" in records[0]["parse_error"]
    # code the host refuses is the env's action error: data, the episode goes on
    assert records[1]["parse_error"] is None and "action_error" in infos[1]
    # a body that is not a chat completion is a policy error, not retried
    assert "not a chat completion" in records[2]["policy_error"]
    assert records[2]["retries"] == 0 and records[2]["action"] == "WAIT"
    assert sent == 4


def test_the_refused_action_is_told_to_the_model_next_step() -> None:
    replies = [Reply.text("```python\nx = 1\n```"), Reply.text("DONE")]
    with StandIn(replies) as server, make_policy(server) as policy:
        infos, _, _, _, _ = run_episode(policy)
        second = server.requests[1].text()
    assert "action_error" in infos[0]
    assert "Your previous action was not run" in second and infos[0]["action_error"] in second


def test_an_unreachable_server_is_a_policy_error_after_the_retries() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    policy = OpenAIPolicy("m", base_url=f"http://127.0.0.1:{port}/v1", api_key_env=None,
                          retries=2, backoff_s=0.0)
    with policy:
        action = policy(np.zeros((40, 60, 3), np.uint8), "do it", {})
    record = policy.last_call
    assert action == "WAIT" and record is not None
    assert record["retries"] == 2 and "connection to the model server failed" in (
        record["policy_error"])


def test_the_key_never_shows_in_reprs_records_errors_or_logs(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    def echo(body: dict[str, Any]) -> Reply:
        return Reply.error(401, f"Incorrect API key provided: {KEY}")

    with StandIn(echo) as server, make_policy(server) as policy:
        policy(np.zeros((40, 60, 3), np.uint8), "do it", {})
        record = policy.last_call
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
        shown = [repr(policy), repr(policy._chat), str(record), str(vars(policy))]
    assert record is not None and "HTTP 401" in record["policy_error"]
    assert record["retries"] == 0  # 401 is not transient
    assert all(KEY not in s for s in shown) and KEY not in caplog.text
    assert "HTTP 401" in caplog.text
    assert "***" in record["policy_error"]


def test_the_policy_records_a_policy_error_rather_than_raise_on_a_404_with_a_hint() -> None:
    with StandIn([]) as server:
        policy = OpenAIPolicy("m", base_url=server.url.removesuffix("/v1"), api_key_env=None)
        with policy:
            assert policy(np.zeros((4, 6, 3), np.uint8), "x", {}) == "WAIT"
    assert "HTTP 404 (does base_url end in /v1?)" in policy.last_call["policy_error"]


def test_members_call_the_model_concurrently() -> None:
    """Each request is answered only once all three are in flight together: calls made in
    turn would time out (20 s each) and fail this test; concurrent ones pass at once."""
    with StandIn(lambda body: Reply.together("DONE", 3)) as server:
        policies = [make_policy(server, timeout_s=20, retries=0) for _ in range(3)]
        screen = np.zeros((40, 60, 3), np.uint8)
        actions = act_concurrently(policies, [screen] * 3, ["x"] * 3, [{}] * 3)
        for policy in policies:
            policy.close()
    assert actions == ["DONE"] * 3
    assert [p.last_call["policy_error"] for p in policies] == [None] * 3
    with pytest.raises(ValueError, match="own OpenAIPolicy"):
        act_concurrently([policies[0]] * 2, [screen] * 2, ["x"] * 2, [{}] * 2)
    with pytest.raises(ValueError, match="2 observations"):
        act_concurrently(policies, [screen] * 2, ["x"] * 3, [{}] * 3)


# -- parsing, prompt, arguments, specs ----------------------------------------------------

@pytest.mark.parametrize(("reply", "actions"), [
    ("```python\npyautogui.click(1, 2)\n```", ["pyautogui.click(1, 2)"]),
    ("Thinking...\n```\npyautogui.press('f2')\n```\nthen more", ["pyautogui.press('f2')"]),
    ("```python pyautogui.click(3, 4)```", ["pyautogui.click(3, 4)"]),
    ("```pyautogui.click(3, 4)```", ["pyautogui.click(3, 4)"]),
    ("```python\na()\n```\nand\n```python\nb()\n```", ["a()\nb()"]),
    # OSWorld runs a reply's actions in turn: the code, then DONE (nothing after DONE)
    ("```python\npyautogui.click(1, 1)\n```\n```DONE```", ["pyautogui.click(1, 1)", "DONE"]),
    ("```python\npyautogui.click(1, 1)\nDONE\n```\n```python\nb()\n```",
     ["pyautogui.click(1, 1)", "DONE"]),
    ("DONE", ["DONE"]), ("  FAIL  ", ["FAIL"]), ("```WAIT```", ["WAIT"]),
    ("The task is impossible.\n```FAIL```", ["FAIL"]),
])
def test_replies_parse_by_osworlds_rule(reply: str, actions: list[str]) -> None:
    assert _prompt.parse_reply(reply) == (actions, None)


# OSWorld's rule: a control word counts alone or in a fenced block, never inside the text
@pytest.mark.parametrize("reply", ["", "   ", "click the folder", "I am DONE with thinking, now",
                                   "All set.\nDONE", "The task is impossible.\n**FAIL**",
                                   "done"])
def test_replies_without_an_action_are_parse_errors(reply: str) -> None:
    actions, problem = _prompt.parse_reply(reply)
    assert actions == [] and problem


def test_a_replys_later_actions_are_the_next_steps_without_a_call() -> None:
    replies = [Reply.text("Enter, and that is it.\n```python\npyautogui.press('enter')\n"
                          "DONE\n```", 40, 9)]
    screen = np.zeros((40, 60, 3), np.uint8)
    with StandIn(replies) as server, make_policy(server) as policy:
        first = policy(screen, "task", {})
        record = policy.step_extras()
        second = policy(screen, "task", {})
        queued = policy.step_extras()
        requests = list(server.requests)
    assert (first, second) == ("pyautogui.press('enter')", "DONE")
    assert len(requests) == 1
    assert record["reply"].startswith("Enter") and record["prompt_tokens"] == 40
    assert record["queued"] is False
    assert queued["queued"] is True and queued["reply"] is None and queued["action"] == "DONE"


def test_the_system_prompt_states_the_convention_and_the_task() -> None:
    text = _prompt.system_prompt("Rename the folder", "screenshot", 1280, 800)
    assert "Rename the folder" in text and "1280" in text and "800" in text
    for word in ("```python", "DONE", "FAIL", "WAIT", "pyautogui", "password"):
        assert word in text


def test_the_tree_linearizes_as_a_table_or_xml_and_is_cut_when_long() -> None:
    tree = {"role": "desktop-frame", "name": "Desktop", "position": [0, 0], "size": [9, 9],
            "states": ["showing", "visible"], "children": [
                {"role": "icon", "name": "a", "position": [1, 2], "size": [3, 4],
                 "states": ["showing", "visible"], "children": []},
                {"role": "icon", "name": "hidden", "position": [1, 2], "size": [3, 4],
                 "states": [], "children": []}]}
    table = _prompt.linearize(tree).splitlines()
    assert table[1:] == ["desktop-frame\tDesktop\t\t\t(0, 0)\t(9, 9)",
                         "icon\ta\t\t\t(1, 2)\t(3, 4)"]
    assert _prompt.linearize(tree, "xml").startswith("<desktop-frame")
    assert _prompt.linearize(tree, max_chars=20).endswith("too long ...]")


def test_a_tree_observation_without_the_tree_is_a_clear_error() -> None:
    with StandIn([]) as server, make_policy(server, observation="a11y_tree") as policy:
        assert policy.needs_accessibility
        with pytest.raises(ValueError, match="accessibility=True"):
            policy(np.zeros((4, 6, 3), np.uint8), "x", {})
        assert server.requests == []


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"observation": "som"}, "observation"), ({"history": -1}, "history"),
    ({"timeout_s": 0}, "timeout_s"), ({"retries": 1.5}, "retries"),
    ({"max_tokens": 0}, "max_tokens"), ({"on_error": "DONE"}, "on_error"),
    ({"base_url": "ftp://x"}, "base_url"), ({"stream": "yes"}, "stream"),
])
def test_bad_arguments_are_refused_naming_them(kwargs: dict[str, Any], named: str) -> None:
    kwargs.setdefault("base_url", "http://127.0.0.1:1/v1")
    with pytest.raises(ValueError, match=named):
        OpenAIPolicy("m", api_key_env=None, **kwargs)


def test_specs_name_the_model_after_the_prefix() -> None:
    assert is_model_spec("openai:gpt-4o") and not is_model_spec("random")
    assert not is_model_spec("mymodule:Policy")
    with policy_from_spec("openai:llama3:8b", base_url="http://127.0.0.1:1/v1",
                          api_key_env=None, observation="screenshot_a11y_tree") as policy:
        assert policy.model == "llama3:8b" and policy.needs_accessibility
    with pytest.raises(ValueError, match="model name"):
        policy_from_spec("openai:", base_url="http://127.0.0.1:1/v1")
    with pytest.raises(ValueError, match="openai:MODEL"):
        policy_from_spec("random")
    with pytest.raises(ValueError, match=r"'openai:m'.*history"):
        policy_from_spec("openai:m", base_url="http://127.0.0.1:1/v1", history=-2)


def test_openais_own_url_needs_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(ValueError, match="NO_SUCH_KEY_VAR is not set"):
        policy_from_spec("openai:gpt-4o", api_key_env="NO_SUCH_KEY_VAR")


def test_the_base_url_defaults_to_openai_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    with OpenAIPolicy("m", api_key_env=None) as policy:
        assert policy.base_url == "http://127.0.0.1:9/v1"


def test_the_docs_example_runs_against_a_server(tmp_path: Any) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text()
    (snippet,) = [b for b in re.findall(r"```python\n(.*?)```", docs, flags=re.S)
                  if "OpenAIPolicy(" in b]
    replies = [Reply.text("```python\npyautogui.moveTo(5, 5)\n```", 900, 12),
               Reply.text("DONE", 950, 1)]
    with StandIn(replies) as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": KEY,
               "DRUMS_LOCAL_GATE_DELAY": "0.05"}
        env.pop("DRUMS_URL", None)
        out = subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)
        sent = len(server.requests)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines() == ["'pyautogui.moveTo(5, 5)' 0.0 12 None", "'DONE' 0.0 1 None",
                                       "reward 0.0 valid True"]
    assert sent == 2 and KEY not in out.stdout + out.stderr


@pytest.mark.parametrize("module", [models, _prompt])
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.fixture(autouse=True)
def _no_threads_left() -> Iterator[None]:
    yield
    import threading

    assert not [t for t in threading.enumerate() if t.name == "openai-stand-in"]
