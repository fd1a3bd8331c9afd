"""Every README snippet runs, and CI runs the README's test command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_snippets():
    assert len(SNIPPETS) >= 3


@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet{i}" for i in range(len(SNIPPETS))])
def test_readme_snippet_runs(code, tmp_path):
    env = {**os.environ, "DRUMS_LOCAL_GATE_DELAY": "0.05"}
    env.pop("DRUMS_URL", None)
    env.pop("DRUMS_TOKEN", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip(), "each snippet prints what it shows"


def test_client_snippet_prints_valid_rewards_with_scores(tmp_path):
    """The client section's snippet verifies right after fork: valid rewards, real scores
    (the untouched task scores 0.0), never a pending placeholder."""
    import ast

    (code,) = [c for c in SNIPPETS if "client.map(" in c and "fork(" in c]
    env = {**os.environ, "DRUMS_LOCAL_GATE_DELAY": "0.3"}  # the gates are pending at verify
    env.pop("DRUMS_URL", None)
    env.pop("DRUMS_TOKEN", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    rewards = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    assert rewards == [(True, 0.0), (True, 0.0)], out.stdout


def test_quick_start_commands_are_what_ci_runs():
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", README)
    assert len(commands) == 2, "two quick-start commands"
    assert "drums-gym rollout" in commands[0]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci, "CI calls the README's test command"
