"""examples/learn.py on a tiny budget: the curve lines, the last line's format, the files."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("stable_baselines3")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "learn.py"
LAST = re.compile(
    r"success (\d\.\d\d) over the last (\d+) episodes from the task's initial state "
    r"\(steps (\d+), minutes (\d+\.\d)\)"
)


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("learn_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(600)  # one PPO round and one evaluation: slow only on a loaded machine
def test_learn_prints_its_curve_and_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    learn = load_example()
    out = tmp_path / "curve"
    assert learn.main(["--task", "ec4e3f68", "--minutes", "0.01", "--eval-episodes", "1",
                       "--last", "3", "--out", str(out), "--show"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("task ec4e3f68: demo of 3 actions (gui solver), 2 start states")
    curve_lines = [line for line in lines if line.startswith("steps ")]
    assert curve_lines and "curriculum stage" in curve_lines[0]
    match = LAST.fullmatch(lines[-1])
    assert match, lines[-1]
    success, n, steps = float(match[1]), int(match[2]), int(match[3])
    data = json.loads((out / "curve.json").read_text())
    assert data["task"] == "ec4e3f68" and len(data["curve"]) == len(curve_lines)
    assert (data["episodes"], data["steps"]) == (n, steps) and round(data["success"], 2) == success
    assert n == 1 and steps == 64  # one round: 64 training steps, one evaluation episode
    csv_lines = (out / "curve.csv").read_text().splitlines()
    assert csv_lines[0].startswith("steps,minutes,episodes,stage") and len(csv_lines) == 2
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_click_kinds_of_demo_codes() -> None:
    learn = load_example()
    assert learn.click_kind("pyautogui.click(1, 2)") == "click"
    assert learn.click_kind("pyautogui.doubleClick(1, 2)") == "double_click"
    assert learn.click_kind("pyautogui.rightClick(1, 2)") == "right_click"
    assert learn.click_kind("pyautogui.hotkey('f2')") is None
    assert learn.click_kind("DONE") is None
