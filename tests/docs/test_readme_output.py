"""The README's sample output is what its quick-start rollout prints."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from drums_gym.cli import main

pytestmark = pytest.mark.timeout(120)

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def _wall_time_free(text: str) -> list[str]:
    return [re.sub(r", \d+\.\ds$", ", <s>", line.rstrip()) for line in text.strip().splitlines()]


def test_readme_sample_output_matches_the_quick_start(monkeypatch, capsys):
    monkeypatch.delenv("DRUMS_URL", raising=False)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    command = re.findall(r"```sh\n(python3 -m venv .*?)\n```", README)[0]
    argv = shlex.split(command.split(".venv/bin/drums-gym ", 1)[1])
    sample = re.search(r"The\s+quick start prints.*?```\n(.*?)```", README, flags=re.S)
    assert sample, "the README shows the quick start's output"
    assert main([*argv, "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert _wall_time_free(printed) == _wall_time_free(sample.group(1))
