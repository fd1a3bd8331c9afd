"""Security: a locked-down host.

- No action reaches eval, exec, a code-compiling compile, or a shell: hostile actions are
  sent through ``env.step`` and the raw HTTP API with those functions booby-trapped, and
  none is ever called (nor does a canary file appear).
- Workspaces are isolated: one token cannot see, step, fork, verify, reset, extend or
  delete another's desktops or saved states, nor list them, nor reuse its idempotency keys.
- The token never appears in a repr, a log line (DEBUG, every logger, a whole rollout), an
  exception or its traceback, the CLI's output, or a recorded trajectory.
- The host binds to loopback unless told otherwise, and warns when it is told otherwise.
"""

from __future__ import annotations

import ast
import builtins
import logging
import os
import secrets
import select
import signal
import subprocess
import sys
import traceback
from pathlib import Path

import httpx
import pytest
from reliability import wait_until

import drums_gym.cli
from drums_gym.cli import build_parser
from drums_gym.client import DrumsError, connect
from drums_gym.client._h1 import ENV_CHOICE
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.local.host import HostConfig
from drums_gym.local.sandbox.bwrap import bwrap_path
from drums_gym.local.sandbox.tree import base_dir
from drums_gym.local.server import LocalHost, is_loopback
from drums_gym.wrappers import RecordTrajectory

SCREEN = (640, 480)
EVAL, EXEC = "ev" + "al", "ex" + "ec"


# -- nothing is executed ----------------------------------------------------------------------


class Tripwires:
    """Booby-trap the ways code can run: ``eval``, ``exec``, ``compile`` (to code; parsing to
    an AST, as the action parser does, is allowed), ``os.system``, ``os.popen``, the
    ``os.exec*``/``os.spawn*`` family, ``os.fork``, ``os.posix_spawn`` and
    ``subprocess.Popen``. Every call is recorded (with its thread and stack) and raises, but
    two: a ``Popen`` of a desktop's sandbox (bwrap, `Sandbox.start`), in which code beyond
    plain calls runs, outside the host's process (started by the sandbox's broker), and
    the ``cp -a`` that copies a desktop's tree (`tree.copy_tree`: a new desktop, a fork)
    within this process's folder of trees."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        for name in (EVAL, EXEC):
            monkeypatch.setattr(builtins, name, self._trap(name))
        real_compile = builtins.compile

        def compile_(source, filename, mode, flags=0, *args, **kwargs):
            if flags & ast.PyCF_ONLY_AST:
                return real_compile(source, filename, mode, flags, *args, **kwargs)
            return self._trap("compile")(source)

        monkeypatch.setattr(builtins, "compile", compile_)
        for name in dir(os):
            if name in ("system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp") or (
                name.startswith(("exec", "spawn")) and callable(getattr(os, name))
            ):
                monkeypatch.setattr(os, name, self._trap(f"os.{name}"))
        real_popen, trapped_popen = subprocess.Popen, self._trap("subprocess.Popen")
        bwrap = bwrap_path()

        trees = base_dir() + "/"

        def popen(argv, *args, **kwargs):
            if bwrap is not None and isinstance(argv, list) and bwrap in argv:
                return real_popen(argv, *args, **kwargs)
            if isinstance(argv, list) and argv[:3] == ["cp", "-a", "--"] and all(
                str(a).startswith(trees) for a in argv[3:]
            ):
                return real_popen(argv, *args, **kwargs)
            return trapped_popen(argv, *args, **kwargs)

        monkeypatch.setattr(subprocess, "Popen", popen)

    def _trap(self, name: str):
        def trapped(*args, **kwargs):
            stack = "".join(traceback.format_stack(limit=6))
            self.calls.append(f"{name}{args[:1]!r}\n{stack}")
            raise RuntimeError(f"tripwire: {name} was called")

        return trapped


HOSTILE = [
    "__import__('os').system('touch {canary}')",
    "import os; os.system('touch {canary}')",
    "import subprocess; subprocess.Popen(['touch', {canary!r}])",
    f"{EXEC}(\"open({{canary!r}}, 'w')\")",
    f"{EVAL}(\"open({{canary!r}}, 'w')\")",
    "compile('1', 'x', 'exec')",
    "open({canary!r}, 'w')",
    "pyautogui.write(open({canary!r}, 'w').name)",
    "pyautogui.write(f'{{__import__(\"os\").system(\"touch {canary}\")}}')",
    "pyautogui.click(*__import__('os').popen('touch {canary}'))",
    "pyautogui.write.__globals__['__builtins__']['open']({canary!r}, 'w')",
]


def test_no_action_reaches_eval_exec_or_a_shell(make_host, tmp_path, monkeypatch):
    # the desktops in this process (stations of the same code a worker runs), so that the
    # wires see every place an action's work runs, the Python path's sandbox included
    local_host = make_host(in_process=True)
    canary = tmp_path / "canary"
    hostile = [h.format(canary=str(canary)) for h in HOSTILE]
    with connect(url=local_host.url) as client:
        env = DrumsDesktopEnv("e0df059f", client=client, max_steps=100, screen=SCREEN,
                              wait_s=0.0)
        http = httpx.Client(base_url=local_host.url, timeout=10)
        try:
            env.reset(seed=0)
            env.step("pyautogui.click(10, 10)")  # warm every code path first
            with monkeypatch.context() as patch:
                wires = Tripwires(patch)
                with pytest.raises(RuntimeError, match="tripwire"):
                    getattr(builtins, EVAL)("1")  # the wires are live
                wires.calls.clear()
                for code in hostile:  # refused, or run as Python in the sandbox: data either way
                    *_, info = env.step(code)
                    assert info["valid"], code
                sid = http.post("/v1/slots", json={"task": "e0df059f"}).json()["id"]
                for code in hostile:
                    r = http.post(f"/v1/slots/{sid}/actions", json={"code": code})
                    if local_host.model.config.shell == "sandbox":  # the Python path runs
                        assert r.status_code == 200 and r.json()["runner"] == "python", code
                    else:
                        assert r.status_code == 422
                        assert r.json()["error"]["code"] == "invalid_action"
                for task in ["__import__('os').system('touch x')", "../../../etc/passwd"]:
                    assert http.post("/v1/slots", json={"task": task}).status_code == 404
                for path in [f"/v1/slots/{sid}/screenshot?format=png;id",
                             "/v1/slots/..%2F..%2Fetc%2Fpasswd", "/v1/states/$(id)"]:
                    assert 400 <= http.get(path).status_code < 500
                # and a whole ordinary episode, fork included, runs with the wires live
                vec = env.fork_vector(2, autoreset_mode="DISABLED")
                try:
                    vec.reset()
                    vec.step(["pyautogui.press('f2')", "DONE"])
                    vec.step(["DONE", "WAIT"])
                finally:
                    vec.close()
                http.delete(f"/v1/slots/{sid}")
            assert not wires.calls, "\n\n".join(wires.calls)
            assert not canary.exists()
        finally:
            http.close()
            env.close()


# -- workspace isolation ----------------------------------------------------------------------


def test_one_token_cannot_reach_another_workspace(make_host):
    token_a, token_b = "tok-A-" + secrets.token_hex(8), "tok-B-" + secrets.token_hex(8)
    server = make_host(HostConfig(gate_delay_s=0.0), tokens=[token_a, token_b])

    def client(token):
        return httpx.Client(base_url=server.url, timeout=10,
                            headers={"Authorization": f"Bearer {token}"} if token else {})

    with client(token_a) as a, client(token_b) as b:
        key = "shared-key-1"
        slot = a.post("/v1/slots", json={"task": "e0df059f"}, headers={"Idempotency-Key": key})
        sid = slot.json()["id"]
        a.get(f"/v1/slots/{sid}/episode", params={"wait": "true"})
        fork = a.post(f"/v1/slots/{sid}/branch", json={"n": 1}).json()
        state, child = fork["state"], fork["children"][0]["id"]

        def not_found(response, what):
            assert response.status_code == 404, (what, response.status_code, response.text)
            assert response.json()["error"]["code"] == "not_found", what

        for target in (sid, child):
            for method, path, body in [
                ("GET", "", None), ("GET", "/episode", None), ("GET", "/screenshot", None),
                ("GET", "/accessibility", None), ("GET", "/actions", None),
                ("POST", "/actions", {"code": "pyautogui.press('delete')"}),
                ("POST", "/verify", {"strict": False}), ("POST", "/reset", None),
                ("POST", "/branch", {"n": 1}), ("POST", "/lease", {"ttl_s": 5}),
                ("DELETE", "", None),
            ]:
                not_found(b.request(method, f"/v1/slots/{target}{path}", json=body),
                          f"{method} {path} of another workspace's slot")
        not_found(b.get(f"/v1/states/{state}"), "another workspace's state")
        not_found(b.delete(f"/v1/states/{state}"), "deleting another workspace's state")
        assert b.get("/v1/slots").json() == {"slots": []}
        assert b.get("/v1/states").json() == {"states": []}
        assert b.get("/v1/host").json()["usage"]["live_desktops"] == 0
        # the same idempotency key in another workspace is another request
        theirs = b.post("/v1/slots", json={"task": "e0df059f"}, headers={"Idempotency-Key": key})
        assert theirs.status_code == 201 and theirs.json()["id"] not in (sid, child)
        # an unknown id and another workspace's id answer alike: no existence oracle
        unknown = b.get("/v1/slots/slot_000000000000").json()["error"]
        foreign = b.get(f"/v1/slots/{sid}").json()["error"]
        assert unknown["code"] == foreign["code"] and set(unknown["details"]) == set(
            foreign["details"])
        # and A's desktops are untouched
        assert {s["id"] for s in a.get("/v1/slots").json()["slots"]} == {sid, child}
        assert a.get(f"/v1/slots/{sid}/episode").json()["actions"] == 0
        assert [s["id"] for s in a.get("/v1/states").json()["states"]] == [state]
        b.delete(f"/v1/slots/{theirs.json()['id']}")
        a.delete(f"/v1/states/{state}")
        a.delete(f"/v1/slots/{child}")
        a.delete(f"/v1/slots/{sid}")
    for token in (None, "tok-unknown", token_a + "x"):
        with client(token) as c:
            for path in ("/v1/slots", "/v1/states", "/v1/host", "/v1/tasks"):
                r = c.get(path)
                assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"


# -- the token never shows --------------------------------------------------------------------


def _no_token(token: str, text: str, where: str) -> None:
    assert token not in text, f"the token shows in {where}"


# both of the sync client's HTTP paths: its own for plain HTTP, httpx's Client (which logs
# each request at INFO) for the rest (docs/client.md)
@pytest.mark.parametrize("http_path", ["auto", "httpx"])
def test_token_never_shows_in_reprs_logs_errors_or_recordings(make_host, tmp_path, caplog,
                                                              monkeypatch, http_path):
    monkeypatch.setenv(ENV_CHOICE, http_path)
    token = "tok-SECRET-" + secrets.token_hex(12)
    server = make_host(HostConfig(gate_delay_s=0.0), tokens=[token],
                       faults="overload=0.3,retry_after_ms=1,gate_fail=0.3", seed=2)
    caplog.set_level(logging.DEBUG)  # every logger: drums_gym, httpx, httpcore, uvicorn
    texts: list[tuple[str, str]] = []
    with connect(url=server.url, token=token, max_retries=30) as client:
        env = RecordTrajectory(
            DrumsDesktopEnv("e0df059f", client=client, max_steps=3, screen=SCREEN, wait_s=0.0),
            tmp_path / "runs",
        )
        try:
            for _ in range(3):  # some episodes invalid (gate_fail), some valid
                env.reset()
                for action in ("pyautogui.click(30, 30)", "import os", "DONE"):
                    *_, terminated, truncated, _ = env.step(action)
                    if terminated or truncated:
                        break
            env.reset()
            vec = env.unwrapped.fork_vector(2, autoreset_mode="DISABLED")
            texts += [("vector env repr", repr(vec)), ("slots", repr(vec.slots))]
            vec.reset()
            vec.step(["pyautogui.moveTo(1, 1)", "DONE"])
            vec.close()
            slot = client.create(task="e0df059f", screen=SCREEN)
            group = slot.fork(1)
            texts += [(f"repr of {o!r}", repr(o)) for o in (client, env, env.unwrapped, slot,
                                                              group, server, group[0])]
            texts += [("str of client", str(client)), ("vars of client", repr(vars(client)))]
            group.close()
            slot.close()
        finally:
            env.close()
    errors: list[BaseException] = []
    with connect(url=server.url, token="tok-WRONG-" + token) as bad:
        try:
            bad.tasks()
        except DrumsError as exc:
            errors.append(exc)
    server_down = LocalHost().start()
    url = server_down.url
    server_down.stop()
    with connect(url=url, token=token, max_retries=0) as gone:
        try:
            gone.tasks()
        except DrumsError as exc:
            errors.append(exc)
    assert len(errors) == 2
    for exc in errors:
        texts += [("exception", str(exc)), ("exception repr", repr(exc)),
                  ("traceback", "".join(traceback.format_exception(exc)))]
    texts.append(("logs", caplog.text))
    texts += [(f"log record args {r.name}", repr(r.args)) for r in caplog.records]
    for path in sorted((tmp_path / "runs").rglob("*")):
        if path.is_file():
            texts.append((str(path), path.read_bytes().decode("latin-1")))
    assert any(name.endswith("steps.jsonl") for name, _ in texts)
    assert "retry" in caplog.text, "the logs were captured"
    assert ("HTTP Request" in caplog.text) == (http_path == "httpx"), "httpx's own log lines"
    for where, text in texts:
        _no_token(token, text, where)
        _no_token(token[4:], text, where)


def test_token_never_shows_in_cli_output(make_host, tmp_path, monkeypatch, capsys):
    token = "tok-SECRET-" + secrets.token_hex(12)
    server = make_host(HostConfig(gate_delay_s=0.0), tokens=[token])
    monkeypatch.setenv("DRUMS_TOKEN", token)
    runs = [
        ["rollout", "--url", server.url, "--n", "2", "--groups", "1", "--steps", "2"],
        ["rollout", "--url", server.url, "--n", "2", "--groups", "1", "--steps", "2", "--json"],
        ["eval", "--url", server.url, "--episodes", "2", "--num-envs", "2", "--steps", "2",
         "--record", str(tmp_path / "rec")],
        ["tasks", "--url", server.url],
    ]
    for argv in runs:
        assert drums_gym.cli.main(argv) == 0, argv
        out = capsys.readouterr()
        _no_token(token, out.out + out.err, f"drums-gym {argv[0]}")
    monkeypatch.setenv("DRUMS_TOKEN", "tok-WRONG-" + token)
    assert drums_gym.cli.main(runs[0]) == 1
    out = capsys.readouterr()
    assert "unauthorized" in out.err
    _no_token(token, out.out + out.err, "a CLI error")
    recorded = [p for p in (tmp_path / "rec").rglob("*") if p.is_file()]
    assert any(p.name == "steps.jsonl" for p in recorded)
    for path in recorded:
        _no_token(token, path.read_bytes().decode("latin-1"), str(path))


# -- loopback ---------------------------------------------------------------------------------


def test_hosts_bind_loopback_by_default(caplog):
    caplog.set_level(logging.WARNING, logger="drums_gym.local")
    with LocalHost() as server:
        assert server.bind_host == "127.0.0.1" and is_loopback(server._socket.getsockname()[0])
        assert httpx.URL(server.url).host == "127.0.0.1"
    assert build_parser().parse_args(["serve"]).host == "127.0.0.1"
    assert not caplog.records, "no warning on loopback"


def test_binding_beyond_loopback_warns(caplog):
    caplog.set_level(logging.WARNING, logger="drums_gym.local")
    with LocalHost(host="0.0.0.0", tokens=["t"]):
        pass
    assert "reachable beyond this machine" in caplog.text
    assert "no token required" not in caplog.text
    caplog.clear()
    with LocalHost(host="0.0.0.0"):
        pass
    assert "reachable beyond this machine with no token required" in caplog.text


def test_serve_warns_when_told_to_bind_beyond_loopback():
    proc = subprocess.Popen(
        [sys.executable, "-m", "drums_gym.cli", "serve", "--host", "0.0.0.0", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        def serving():
            ready, _, _ = select.select([proc.stdout], [], [], 0.1)
            return bool(ready) and b"serving at" in proc.stdout.readline()

        wait_until(lambda: proc.poll() is not None or serving(), 60, "drums-gym serve to start")
        assert proc.poll() is None, proc.stderr.read().decode()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    assert b"reachable beyond this machine with no token required" in err
    assert proc.returncode == 0


#: the places allowed to: the program the sandboxed interpreter runs (never in the host's
#: process), the Popen that starts a desktop's sandbox (bwrap; its broker starts the
#: interpreter), the one that starts the embedded host (drums-gym's own server, no agent
#: input in its argv) and the one that starts the desktop zygote (the host's own workers)
SANDBOX_ONLY = {
    ("local/pycode/server.py", EXEC), ("local/pycode/server.py", "compile"),
    ("local/sandbox/sandbox.py", ".Popen"),
    ("local/embedded.py", ".Popen"),
    ("local/workers/pool.py", ".Popen"),
}


def test_no_eval_or_exec_in_the_package():
    """The grep-able promise: the package never names eval or exec, but where agent code
    runs inside the sandbox."""
    root = Path(drums_gym.cli.__file__).resolve().parent.parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            found = None
            if isinstance(node, ast.Name) and node.id in (EVAL, EXEC, "compile"):
                found = node.id
            if isinstance(node, ast.Attribute) and node.attr in ("system", "popen", "Popen"):
                found = "." + node.attr
            if found and (where, found) not in SANDBOX_ONLY:
                offenders.append(f"{where}:{node.lineno} {found}")
    assert not offenders, offenders
