"""Every example runs as users run it (``python examples/X.py``) and prints what it promises.

Each runs in a subprocess on its own embedded local host (no DRUMS_URL), with fast gates
and small sizes; one more run points ``group_rollouts.py`` at a fixture host, whose
teardown fails the test if the example left a desktop or a saved state behind.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.timeout(120)


def run_example(name: str, *args: str, url: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRUMS_")}
    env["DRUMS_LOCAL_GATE_DELAY"] = "0.05"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if url is not None:
        env["DRUMS_URL"] = url
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=90,
    )
    assert proc.returncode == 0, f"{name} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    if url is None:
        assert "using the embedded local Drums host" in proc.stderr
    return proc.stdout


def test_every_example_is_tested():
    tested = {"group_rollouts.py", "vector_eval.py", "llm_policy.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


def test_group_rollouts():
    out = run_example("group_rollouts.py", "--n", "3", "--groups", "2", "--steps", "2")
    assert "group 1: 3 valid of 3 rollouts" in out
    assert "group 2: 3 valid of 3 rollouts" in out
    children = re.findall(r"child \d: score (\d\.\d\d)  advantage ([+-]\d\.\d{3})", out)
    assert len(children) == 6
    # random moves never rename the folder: equal scores, zero advantages
    assert all(score == "0.00" and float(adv) == 0.0 for score, adv in children)


def test_group_rollouts_leave_nothing_behind(local_host):
    out = run_example("group_rollouts.py", "--n", "2", "--groups", "1", "--steps", "1",
                      url=local_host.url)
    assert "group 1: 2 valid of 2 rollouts" in out
    # the local_host fixture checks at teardown that no desktop or saved state is left


def test_vector_eval():
    out = run_example("vector_eval.py", "--num-envs", "2", "--episodes", "3", "--steps", "2")
    assert out.startswith("task: I have a directory named")
    ended = re.findall(r"env \d: episode of (\d) steps, return (\d\.\d), valid", out)
    assert len(ended) >= 3 and all(int(steps) <= 2 for steps, _ in ended)
    summary = re.search(r"(\d+) episodes: (\d+) valid, 0 invalid \{\}", out)
    assert summary and int(summary.group(1)) >= 3
    assert "success rate over valid episodes: 0% (0/" in out


def test_llm_policy_renames_the_folder():
    out = run_example("llm_policy.py", "--steps", "4", "--max-width", "640")
    # the size it sends, not the screen's: 1920x1080 downscaled to 640 wide
    assert "prompt: 2 messages, screenshot 1920x1080 sent as a 640x360 PNG (" in out
    assert "action: pyautogui.click(142, 98)" in out
    assert "pyautogui.write('todo_list_Jan_2')" in out
    assert "step 2: model said 'The folder is now named todo_list_Jan_2.'\n  action: DONE" in out
    assert out.rstrip().endswith("episode ended after 2 steps: score 1.0, valid True")


def load_example(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: replies ending in DONE, and the actions OSWorld's rule makes of them (run in turn)
ENDING_IN_DONE = [
    ("Renamed.\n```python\npyautogui.press('enter')\nDONE\n```",
     ["pyautogui.press('enter')", "DONE"]),
    ("The folder is renamed.\n```DONE```", ["DONE"]),
    ("DONE", ["DONE"]),
    ("The folder is renamed. DONE", ["WAIT"]),  # outside a block: no action (OSWorld's)
    ("```python\npyautogui.click(1, 2); DONE\n```", ["pyautogui.click(1, 2)", "DONE"]),
]


def test_the_example_and_the_openai_policy_parse_replies_by_one_rule():
    from openai_server import Reply, StandIn

    from drums_gym.integrations import models

    example = load_example("llm_policy")
    assert example.parse_reply is models.parse_reply  # the rule is written once
    screen = np.zeros((60, 80, 3), np.uint8)
    for reply, actions in ENDING_IN_DONE:
        mine = example.LLMPolicy(model=lambda messages, reply=reply: reply)
        with StandIn([Reply.text(reply)]) as server:
            theirs = models.OpenAIPolicy("m", base_url=server.url, api_key_env=None)
            got = [theirs(screen, "task", {}) for _ in actions]
            theirs.close()
        assert got == actions, reply
        assert [mine(screen, "task") for _ in actions] == actions, reply


def test_embedded_host_faults_from_the_environment():
    """DRUMS_LOCAL_FAULTS reaches the embedded host: invalid members are counted, not scored."""
    import json

    env = {**os.environ, "DRUMS_LOCAL_FAULTS": "gate_fail=0.5", "DRUMS_LOCAL_SEED": "1",
           "DRUMS_LOCAL_GATE_DELAY": "0.05"}
    env.pop("DRUMS_URL", None)
    out = subprocess.run(
        [sys.executable, "-m", "drums_gym.cli", "rollout", "--task", "e0df059f", "--n", "4",
         "--groups", "2", "--steps", "2", "--json"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    text = json.dumps(summary)
    assert "gate_failed" in text, "some members were invalid, with their reason"
    assert "embedded local Drums host" in out.stderr and "gate_fail=0.5" in out.stderr


def test_benchmark_suite_runs():
    """The benchmark command keeps working (a smoke run of one of its parts)."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only", "observation"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "png: client CPU per frame" in out.stdout and "floor" in out.stdout
