"""verifiers (v1) over Drums desktops (``drums_gym.integrations.verifiers``): the real
``vf-eval`` with the local subprocess runtime, against a loopback OpenAI-compatible model
server (tests/model_server.py: FastAPI, real HTTP, streaming) whose scripted replies solve
the task, and the embedded Drums host with faults injected. Skipped without the
``[verifiers]`` extra."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "verifiers.v1", reason="needs the [verifiers] extra: pip install -e '.[verifiers]'"
)

from model_server import ModelServer

from drums_gym.integrations.verifiers import InvalidEpisodeError, in_thread

TASK = "e0df059f"
MV = "mv ~/Desktop/todo_list_Jan_1 ~/Desktop/todo_list_Jan_2\n"
#: the player's replies, turn by turn: open a terminal, type the command, say DONE
SCRIPT = [
    "I will open a terminal.\n```python\npyautogui.hotkey('ctrl', 'alt', 't')\n```",
    f"```python\npyautogui.write({MV!r})\n```",
    "DONE",
]
VF_EVAL = Path(sys.executable).with_name("vf-eval")
ROLLOUTS = 4


def vf_eval(server: ModelServer, out: Path, *extra: str, faults: str = "crash=0.5") -> tuple:
    """Run vf-eval as a user does; answer (stdout, the episodes of traces.jsonl)."""
    env = {
        **os.environ,
        "HOME": str(out),  # verifiers' caches and runtimes stay in the test's folder
        "STUB_KEY": "not-a-secret",
        "DRUMS_LOCAL_FAULTS": faults,
        "DRUMS_LOCAL_SEED": "0",
        "DRUMS_LOCAL_GATE_DELAY": "0.05",
    }
    env.pop("DRUMS_URL", None)
    cmd = [
        str(VF_EVAL), "drums-gym-verifiers", "-m", "scripted",
        "--client.base-url", server.url, "--client.api-key-var", "STUB_KEY",
        "--no-push", "-o", str(out / "runs"), "--clean", "-r", str(ROLLOUTS),
        "--env.taskset.tasks", f'["{TASK}"]', "--env.player.runtime.type", "subprocess",
        "--env.screen-width", "640", "--env.screen-height", "480", *extra,
    ]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [traces] = (out / "runs").glob("*/traces.jsonl")
    episodes = [json.loads(line) for line in traces.read_text().splitlines() if line.strip()]
    return done.stdout, episodes


def errors_of(episode: dict) -> list[str]:
    """The error types recorded on the episode's traces (verifiers wraps them as an
    EnvError at the episode level)."""
    return [e["type"] for trace in episode["traces"] for e in trace["errors"]]


def test_vf_eval_leaves_invalid_episodes_out_of_the_mean_as_errored_rollouts(tmp_path):
    with ModelServer(SCRIPT) as server:
        stdout, episodes = vf_eval(server, tmp_path / "plain")
        requests, streamed = len(server.requests), server.streamed
        first = server.requests[0]
    assert len(episodes) == ROLLOUTS
    ok = [e for e in episodes if e["ok"]]
    failed = [e for e in episodes if not e["ok"]]
    assert ok and failed
    # an invalid episode is an errored rollout (an exception), never a 0 score
    assert all(errors_of(e) == ["InvalidEpisodeError"] for e in failed)
    for episode in ok:
        [trace] = episode["traces"]
        assert trace["rewards"]["drums_score"]["score"] == 1.0  # the replies solved it
    # verifiers' headline mean is over the valid rollouts: 1.00, errors counted apart
    share = len(ok) / ROLLOUTS
    assert re.search(r"reward 1\.00 \(" + f"{share:.2f}" + r"\) · err " + f"{1 - share:.2f}",
                     stdout), stdout
    # the model was reached over real HTTP, streaming, and shown the screen
    assert requests == streamed > 0
    content = first["messages"][-1]["content"]
    kinds = [part["type"] for part in content]
    image = content[kinds.index("image_url")]["image_url"]["url"]
    assert image.startswith("data:image/png;base64,")
    assert any("icon\ttodo_list_Jan_1" in part.get("text", "") for part in content)


def test_vf_eval_retries_invalid_episodes(tmp_path):
    with ModelServer(SCRIPT) as server:
        stdout, episodes = vf_eval(server, tmp_path / "retry", "--env.retries.max-retries", "8")
    assert len(episodes) == ROLLOUTS and all(e["ok"] for e in episodes)
    assert "reward 1.00 · err 0.00" in stdout


def test_the_sync_seam_is_one_awaitable_function():
    import asyncio

    assert asyncio.run(in_thread(sum, [1, 2, 3])) == 6
    error = InvalidEpisodeError("app_crash")
    assert error.reason == "app_crash" and "app_crash" in str(error)


def test_the_plugin_exports_one_taskset_env_and_harness():
    import verifiers.v1 as vf
    from verifiers.v1.harness import Harness
    from verifiers.v1.utils.loaders import environment_class, harness_class, taskset_class

    import drums_gym_verifiers
    from drums_gym.integrations.verifiers import DrumsChatHarness, DrumsEnv, DrumsTaskset

    assert taskset_class("drums-gym-verifiers") is DrumsTaskset
    assert environment_class("drums-gym-verifiers") is DrumsEnv
    assert harness_class("drums-gym-verifiers") is DrumsChatHarness
    assert issubclass(DrumsEnv, vf.Env) and issubclass(DrumsChatHarness, Harness)
    assert set(drums_gym_verifiers.__all__) == {"DrumsChatHarness", "DrumsEnv", "DrumsTaskset"}


def test_taskset_lists_the_hosts_tasks_and_names_an_unknown_one(local_host):
    from drums_gym.integrations.verifiers import DrumsTaskset, DrumsTasksetConfig

    tasks = list(DrumsTaskset(DrumsTasksetConfig(id="drums-gym-verifiers", url=local_host.url)))
    assert len(tasks) >= 7 and TASK in {t.data.name for t in tasks}
    one = list(DrumsTaskset(DrumsTasksetConfig(id="x", url=local_host.url, tasks=[TASK])))
    assert [t.data.drums_task[:8] for t in one] == [TASK]
    assert one[0].data.prompt.startswith("I have a directory named")
    with pytest.raises(ValueError, match="'zzzzzzzz' is not on the Drums host"):
        list(DrumsTaskset(DrumsTasksetConfig(id="x", url=local_host.url, tasks=["zzzzzzzz"])))


def test_vf_eval_group_starts_from_one_forked_desktop(tmp_path, make_host):
    """``--env.group-size 4`` with ``-r 4``: the host (in this process, so its branch calls
    are counted on its side) answers one branch call of 4 children for the task's group,
    after the prefix ran once on the parent; the rollouts are those children."""
    host = make_host(faults="crash=0.5", seed=0)
    calls: list[tuple[int, list[str]]] = []
    branch, create = host.model.branch, host.model.create_slot
    created: list[str] = []

    def counted(workspace, slot_id, body, idempotency_key=None):
        out = branch(workspace, slot_id, body, idempotency_key)
        calls.append((body.n, [child.id for child in out.children]))
        return out

    def creating(*args, **kwargs):
        out = create(*args, **kwargs)
        created.append(out.id)
        return out

    host.model.branch, host.model.create_slot = counted, creating
    with ModelServer(SCRIPT) as server:
        _, episodes = vf_eval(server, tmp_path / "group", "--env.taskset.url", host.url,
                              "--env.group-size", str(ROLLOUTS),
                              "--env.prefix", '["pyautogui.moveTo(5, 5)"]')
    assert len(episodes) == ROLLOUTS
    assert [n for n, _ in calls] == [ROLLOUTS], "one branch call for the group"
    assert len(created) <= 3, "parents only: no desktop created per rollout"
    ok = [e for e in episodes if e["ok"]]
    assert ok and all(e["traces"][0]["rewards"]["drums_score"]["score"] == 1.0 for e in ok)
    assert host.model.counts()["live_desktops"] == 0
