"""Bad input: property tests over action strings, the host's every endpoint fuzzed from its
own OpenAPI document, and bad constructor arguments.

- ``env.step`` never raises and never executes anything, whatever the action string:
  random text, ``action_space.sample()``, truncated and malformed code, huge strings,
  non-ASCII (lone surrogates too), and hostile code that would plant a canary file.
- Every API endpoint (schemathesis, positive and negative cases, with real ids and
  random ones): no 5xx, every error in the documented shape
  ``{"error": {"code", "message", "details"}}``, and every reply, success or error, is what
  the OpenAPI schema declares for it (the shapes of ``drums_gym.protocol``).
- Bad arguments of ``DrumsDesktopEnv``, ``fork_vector``, ``connect``, ``LocalHost`` and
  ``HostConfig`` raise errors that name the argument.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import httpx
import numpy as np
import pytest
import schemathesis
from conftest import assert_no_leaks
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    Failure,
    FailureGroup,
    content_type_conformance,
    response_schema_conformance,
)

from drums_gym.client import connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.envs.desktop_env import action_space
from drums_gym.local.host import HostConfig
from drums_gym.local.server import LocalHost

SCREEN = (640, 480)
EVAL, EXEC = "ev" + "al", "ex" + "ec"  # spelled apart: the package is grepped for the names
VALID_CODE = [
    "import pyautogui\npyautogui.click(320, 240)\npyautogui.press('f2')",
    "pyautogui.hotkey('ctrl', 'a'); pyautogui.write('todo_list_Jan_2')",
    "pyautogui.moveTo(10, 20, duration=0.1)\npyautogui.dragTo(100, 200, button='left')",
    "pyautogui.scroll(-3, x=50, y=60)\ntime.sleep(0.1)\npyautogui.doubleClick(5, 5)",
    "pyautogui.typewrite(['a', 'b', 'enter'], interval=0.01)",
]
#: code a careless or hostile policy might send; {canary} is a path it would create
HOSTILE = [
    "open({canary!r}, 'w').write('x')",
    "__import__('os').system('touch {canary}')",
    "import os; os.system('touch {canary}')",
    "import os\nos.system('touch {canary}')",
    "from os import system; system('touch {canary}')",
    "import pyautogui as os; os.system('touch {canary}')",
    "import subprocess; subprocess.run(['touch', {canary!r}])",
    EXEC + "(\"open({canary!r}, 'w')\")",
    EVAL + "(\"open({canary!r}, 'w')\")",
    "compile(\"open({canary!r}, 'w')\", 'x', 'exec')",
    "globals()['__builtins__']['open']({canary!r}, 'w')",
    "pyautogui.write(open({canary!r}, 'w').name)",
    "pyautogui.click(x=__import__('pathlib').Path({canary!r}).touch())",
    "pyautogui.write(f'{{open({canary!r}, \"w\")}}')",
    "pyautogui.write('a' + open({canary!r}, 'w').name)",
    "pyautogui.write('%s' % open({canary!r}, 'w'))",
    "pyautogui.hotkey(*open({canary!r}, 'w'))",
    "pyautogui.press(**{{'keys': open({canary!r}, 'w')}})",
    "time.sleep(open({canary!r}, 'w'))",
    "pyautogui.write('ok')\nopen({canary!r}, 'w')",
    "[open({canary!r}, 'w') for _ in range(1)]",
    "(lambda: open({canary!r}, 'w'))()",
    "@open({canary!r}, 'w')\ndef f(): pass",
    "def f():\n    open({canary!r}, 'w')\nf()",
    "class C:\n    open({canary!r}, 'w')",
    "if True:\n    open({canary!r}, 'w')",
    "with open({canary!r}, 'w') as f:\n    pass",
    "try:\n    open({canary!r}, 'w')\nexcept Exception:\n    pass",
    "(x := open({canary!r}, 'w'))",
    "pyautogui.typewrite = open; pyautogui.typewrite({canary!r}, 'w')",
    "pyautogui.__class__.__base__.__subclasses__()",
    "pyautogui.write.__globals__['os'].system('touch {canary}')",
    "time.sleep.__self__.__dict__['system']('touch {canary}')",
    "getattr(__import__('os'), 'system')('touch {canary}')",
    "breakpoint()",
    "import importlib; importlib.import_module('os').system('touch {canary}')",
    "pyautogui.click(*[open({canary!r}, 'w')])",
    "async def f():\n    open({canary!r}, 'w')",
]


# -- action strings through env.step --------------------------------------------------------


@pytest.fixture
def env(local_host):
    client = connect(url=local_host.url)
    env = DrumsDesktopEnv("e0df059f", client=client, max_steps=10**6, screen=SCREEN,
                          wait_s=0.0)
    env.reset(seed=0)
    yield env
    env.close()
    client.close()


def step_safely(env: DrumsDesktopEnv, action: object) -> dict:
    """Step; check the result is well formed; start a new episode when this one ended."""
    obs, reward, terminated, truncated, info = env.step(action)  # must never raise
    assert isinstance(obs, np.ndarray) and obs.dtype == np.uint8
    assert obs.shape == (SCREEN[1], SCREEN[0], 3)
    assert math.isfinite(float(reward)) and info["valid"] is True, info
    if terminated or truncated:
        env.reset()
    return info


FUZZ = settings(
    max_examples=40,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_hostile_code_never_touches_the_host(env, tmp_path):
    """Code beyond plain calls runs as Python in the sandbox, where the host's files are not
    there (or is refused where there is no sandbox): the canary is never made."""
    canary = tmp_path / "canary"
    for template in HOSTILE:
        code = template.format(canary=str(canary))
        step_safely(env, code)
        assert not canary.exists(), f"executed on the host: {code!r}"
    log = env.client.slot(env.slot.id)._http.json("GET", f"/v1/slots/{env.slot.id}/actions")
    ran = [entry for entry in log["actions"] if "error" not in entry]  # refused: no runner
    assert {entry.get("runner") for entry in ran} <= {"fast", "python"}


@st.composite
def disguised(draw, canary: Path) -> str:
    """Hostile code with valid code around it, comments, odd whitespace and line endings."""
    code = draw(st.sampled_from(HOSTILE)).format(canary=str(canary))
    before = draw(st.sampled_from(["", *VALID_CODE])) + draw(st.sampled_from(["", "\n", ";"]))
    after = draw(st.sampled_from(["", "\n", "  # comment", "\r\n", "\n" + VALID_CODE[0]]))
    indent = draw(st.sampled_from(["", " ", "\t"]))
    return (before if before.strip(";\n") else "") + indent + code + after


def test_disguised_hostile_code_never_runs(env, tmp_path):
    canary = tmp_path / "canary"

    @FUZZ
    @given(code=disguised(canary))
    def check(code):
        step_safely(env, code)
        assert not canary.exists(), f"executed: {code!r}"

    check()


def truncated_and_malformed() -> st.SearchStrategy[str]:
    def cut(code: str) -> st.SearchStrategy[str]:
        return st.integers(0, len(code)).map(lambda i: code[:i])

    def mutate(code: str) -> st.SearchStrategy[str]:
        return st.tuples(st.integers(0, len(code)), st.text(max_size=4)).map(
            lambda p: code[: p[0]] + p[1] + code[p[0] + 1 :]
        )

    base = st.sampled_from(VALID_CODE)
    return st.one_of(base.flatmap(cut), base.flatmap(mutate))


@pytest.mark.parametrize(
    "strategy",
    [
        pytest.param(st.text(), id="random-text"),
        pytest.param(
            st.text(st.characters(min_codepoint=0x80, max_codepoint=0x10FFFF,
                                   exclude_categories=())),
            id="non-ascii-and-lone-surrogates",
        ),
        pytest.param(st.integers(0, 2**32 - 1).map(lambda s: _sample(s)), id="space-sample"),
        pytest.param(truncated_and_malformed(), id="truncated-and-malformed"),
        pytest.param(
            st.tuples(st.sampled_from(VALID_CODE), st.sampled_from([" ", "\t", "  ", "\f"])).map(
                lambda p: p[0].replace("pyautogui.", "pyautogui" + p[1] + ".")
            ),
            id="odd-spacing",
        ),
    ],
)
def test_any_action_string_is_data_not_a_crash(env, tmp_path, strategy):
    seen: Counter[str] = Counter()

    @FUZZ
    @given(action=strategy)
    def check(action):
        info = step_safely(env, action)
        seen["error" if info.get("action_error") else "applied"] += 1

    check()
    assert sum(seen.values()) >= 10, seen


def _sample(seed: int) -> str:
    space = action_space()
    space.seed(seed)
    return space.sample()


def test_huge_and_non_string_actions(env):
    for action in [
        "pyautogui.write('" + "a" * 300_000 + "')",
        "pyautogui.press('a')\n" * 50_000,
        "x" * 2_000_000,
        "(" * 100_000,
        "pyautogui.click(" + "1" * 5000 + ", 2)",
        "\x00",
        "\ud800",
        b"pyautogui.click(1, 1)",
        None,
        42,
        ["pyautogui.click(1, 1)"],
    ]:
        info = step_safely(env, action)
        assert info.get("action_error"), f"accepted: {str(action)[:60]!r}"


# -- the host's API, fuzzed from its own OpenAPI document -----------------------------------

SHAPE_KEYS = {"code", "message", "details"}
SCHEMA_CHECKS = [response_schema_conformance, content_type_conformance]
FUZZ_TOKEN = "Bearer fuzz"


def _error_shape_problem(response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return "the error body is not JSON"
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or set(error) != SHAPE_KEYS:
        return f"the error body is not {{'error': {sorted(SHAPE_KEYS)}}}"
    if not (isinstance(error["code"], str) and isinstance(error["message"], str)
            and isinstance(error["details"], dict)):
        return "code/message/details have the wrong types"
    return None


def _clean(server: LocalHost) -> None:
    """Delete whatever the fuzzing made, in every workspace it reached."""
    model = server.model
    for ws in list(model._workspaces):
        for slot in model.list_slots(ws):
            model.delete_slot(ws, slot.id)
        for state in model.list_states(ws):
            model.delete_state(ws, state.id)


def _with_real_task(case):
    if isinstance(case.body, dict) and "task" in case.body:
        case.body["task"] = "e0df059f"
    return case


def test_every_endpoint_survives_schemathesis(make_host):
    server = make_host(HostConfig(gate_delay_s=0.0))
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    http = httpx.Client(base_url=server.url, headers={"Authorization": FUZZ_TOKEN}, timeout=10)
    problems: list[str] = []
    statuses: Counter[int] = Counter()
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20, [op.label for op in operations]
    try:
        for op in operations:
            path_names = {p.name for p in op.path_parameters}
            modes = [GenerationMode.POSITIVE]
            if op.body or list(op.query):  # only these can be made invalid by value
                modes.append(GenerationMode.NEGATIVE)
            for mode in modes:
                slot = http.post("/v1/slots", json={"task": "e0df059f"}).json()["id"]
                state = http.post(f"/v1/slots/{slot}/branch", json={"n": 1}).json()["state"]
                real = {"slot_id": slot, "state_id": state}
                strategy = op.as_strategy(generation_mode=mode)
                if path_names:  # half with ids that exist, in the workspace that owns them
                    strategy = st.one_of(strategy, op.as_strategy(
                        generation_mode=mode, headers={"authorization": FUZZ_TOKEN},
                        path_parameters={k: v for k, v in real.items() if k in path_names},
                    ))
                if op.label == "POST /v1/slots" and mode is GenerationMode.POSITIVE:
                    strategy = st.one_of(strategy, strategy.map(_with_real_task))

                label = f"{op.label} ({mode.value})"

                @settings(max_examples=25, deadline=None, database=None, derandomize=True,
                          phases=[Phase.explicit, Phase.generate],
                          suppress_health_check=list(HealthCheck))
                @given(case=strategy)
                def call(case):
                    response = case.call(base_url=server.url, timeout=10)
                    statuses[response.status_code] += 1
                    where = f"{label}: {case.as_curl_command()}"  # noqa: B023 (runs now)
                    if response.status_code >= 500:
                        problems.append(f"{response.status_code} {response.text[:200]} {where}")
                        return
                    if response.status_code >= 400:
                        problem = _error_shape_problem(response)
                        if problem:
                            problems.append(f"{problem}: {response.text[:200]} {where}")
                    try:  # the reply is what the schema declares (the protocol's shapes)
                        case.validate_response(response, checks=SCHEMA_CHECKS)
                    except (Failure, FailureGroup) as exc:
                        problems.append(f"not the declared reply: {exc} {where}"[:600])

                call()
                _clean(server)
    finally:
        http.close()
        _clean(server)
    assert not problems, "\n".join(problems[:20])
    assert statuses[200] and statuses[201] and statuses[404] and statuses[422], statuses
    assert set(statuses) <= {200, 201, 401, 403, 404, 405, 409, 422, 429}, (
        f"only documented statuses: {statuses}"
    )


def test_the_schema_check_catches_a_reply_off_its_shape(make_host):
    """Planted break: a reply whose field is not what the declared shape says fails the
    check the fuzzing runs on every reply (and the real reply passes it)."""
    server = make_host(HostConfig(gate_delay_s=0.0))
    case = schemathesis.openapi.from_url(server.url + "/openapi.json")["/v1/host"]["GET"].Case()
    real = httpx.get(server.url + "/v1/host", headers={"Authorization": FUZZ_TOKEN})
    case.validate_response(real, checks=SCHEMA_CHECKS)
    for body in ({"limits": {"live_desktops": "many"}}, {"screenshot_formats": "png"}):
        planted = httpx.Response(200, json=body, request=real.request)
        planted.elapsed = real.elapsed
        with pytest.raises((Failure, FailureGroup)):
            case.validate_response(planted, checks=SCHEMA_CHECKS)


# -- bad constructor arguments name the argument --------------------------------------------


@pytest.fixture(scope="module")
def arg_host():
    """One host for the many argument checks (each leaves it empty)."""
    server = LocalHost(HostConfig(gate_delay_s=0.0)).start()
    yield server
    try:
        assert_no_leaks(server)
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"task": ""}, "task"),
        ({"task": 7}, "task"),
        ({"ttl": -1}, "ttl"),
        ({"ttl": float("nan")}, "ttl"),
        ({"max_steps": 0}, "max_steps"),
        ({"max_steps": 2.5}, "max_steps"),
        ({"max_steps": True}, "max_steps"),
        ({"wait_timeout": float("inf")}, "wait_timeout"),
        ({"wait_s": -1}, "wait_s"),
        ({"screen": (640,)}, "screen"),
        ({"screen": "640x480"}, "screen"),
        ({"screenshot_format": "jpeg"}, "screenshot_format"),
        ({"render_mode": "human"}, "render_mode"),
        ({"url": "http://x", "token": "t"}, "client"),
    ],
)
def test_desktop_env_arguments(arg_host, kwargs, name):
    with connect(url=arg_host.url) as client, pytest.raises(ValueError, match=name):
        DrumsDesktopEnv(client=client, **{"task": "e0df059f", **kwargs})
    assert arg_host.model.counts() == {"live_desktops": 0, "saved_states": 0}


def test_unknown_task_names_the_task(arg_host):
    with connect(url=arg_host.url) as client, pytest.raises(ValueError, match="nosuchta"):
        DrumsDesktopEnv("nosuchta", client=client)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n": 0}, "n"),
        ({"n": "3"}, "n"),
        ({"n": True}, "n"),
        ({"n": 17}, "n"),  # beyond the live-desktop quota (17; the parent holds one)
        ({"n": 2, "autoreset_mode": "SAME_STEP"}, "autoreset_mode"),
        ({"n": 2, "autoreset_mode": "bogus"}, "autoreset_mode"),
        ({"n": 2, "fork_retries": -1}, "fork_retries"),
        ({"n": 2, "ttl": -5}, "ttl"),
        ({"n": 2, "ttl": "soon"}, "ttl"),
        ({"n": 2, "ttl": float("inf")}, "ttl"),
    ],
)
def test_fork_vector_arguments(arg_host, kwargs, name):
    with connect(url=arg_host.url) as client:
        parent = DrumsDesktopEnv("e0df059f", client=client, screen=SCREEN)
        try:
            with pytest.raises(RuntimeError, match="reset"):
                parent.fork_vector(2)
            parent.reset()
            with pytest.raises(ValueError, match=rf"\b{name}\b"):
                parent.fork_vector(**kwargs)
            assert arg_host.model.counts() == {"live_desktops": 1, "saved_states": 0}
        finally:
            parent.close()


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"url": 8765}, "url"),
        ({"url": "localhost:8765"}, "url"),
        ({"url": "ftp://example.com"}, "url"),
        ({"url": "http://"}, "url"),
        ({"url": "http://h", "timeout": 0}, "timeout"),
        ({"url": "http://h", "timeout": float("inf")}, "timeout"),
        ({"url": "http://h", "max_retries": -1}, "max_retries"),
        ({"url": "http://h", "max_retries": 1.5}, "max_retries"),
        ({"url": "http://h", "retry_budget": -1}, "retry_budget"),
        ({"url": "http://h", "workers": 0}, "workers"),
    ],
)
def test_connect_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        connect(**kwargs)


def test_connect_never_echoes_credentials():
    with pytest.raises(ValueError) as info:
        connect("user:s3cret-token@localhost:8765")
    assert "s3cret-token" not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"port": -1}, "port"),
        ({"port": 70000}, "port"),
        ({"port": "8765"}, "port"),
        ({"host": ""}, "host"),
        ({"host": 127}, "host"),
        ({"config": {"live_desktops": 1}}, "config"),
        ({"seed": "s"}, "seed"),
        ({"tokens": "secret"}, "tokens"),
        ({"tokens": ["ok", ""]}, "tokens"),
        ({"faults": "gate_fail=2"}, "gate_fail"),
        ({"faults": "bogus=1"}, "bogus"),
    ],
)
def test_arg_host_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name) as info:
        LocalHost(**kwargs)
    assert "secret" not in str(info.value), "a token is never echoed"


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"live_desktops": 0}, "live_desktops"),
        ({"host_desktops": 2.0}, "host_desktops"),
        ({"fork_limit": True}, "fork_limit"),
        ({"saved_states": -1}, "saved_states"),
        ({"gate_delay_s": -0.1}, "gate_delay_s"),
        ({"gate_delay_s": float("nan")}, "gate_delay_s"),
        ({"state_idle_ttl_s": "long"}, "state_idle_ttl_s"),
        ({"capacity_retry_after_s": -1}, "capacity_retry_after_s"),
        ({"default_ttl_s": 100.0, "max_ttl_s": 10.0}, "default_ttl_s"),
    ],
)
def test_host_config_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        HostConfig(**kwargs)
