"""examples/learn.py on a tiny budget: the curve lines, the last line's format, the files."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
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
    sys.modules[spec.name] = module  # its dataclasses look their module up
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


@pytest.mark.timeout(600)  # a few hundred cloning updates: slow only on a loaded machine
def test_cloning_follows_the_demo_where_its_states_look_alike(local_host: Any) -> None:
    """5ced85fc's demo is two actions in an open terminal: type the command, then DONE.
    The two states differ in one feature (the terminal shows the command), so a fixed
    number of cloning updates left the fresh policy at 1/2 and 1/2 on both (loss ln 2),
    and PPO, rewarded for DONE from the second, answered DONE from the initial state.
    With learn.py's defaults, cloning goes on until the policy follows the demo."""
    import torch

    from drums_gym.client import connect
    from drums_gym.wrappers import ElementFeatures

    learn = load_example()
    defaults = learn.make_parser().parse_args([])
    with connect(url=local_host.url) as client:
        lesson = learn.prepare(client, "5ced85fc", None, defaults.slots)
        try:
            (before, write), (after, done) = lesson.pairs
            assert lesson.train.action_meaning(done) == "DONE" and write != done
            assert int((before != after).sum()) == 1 and learn.look_alike(lesson.pairs) == []
            model = learn.new_model(ElementFeatures(lesson.train, with_mask=True), defaults.seed)
            cloned = learn.clone(model, lesson.pairs, at_least=defaults.bc_every,
                                 at_most=defaults.bc)
            assert (cloned.matched, cloned.states) == (2, 2), cloned
            with torch.no_grad():
                greedy = [int(model.predict(o, deterministic=True)[0]) for o in (before, after)]
            assert greedy == [write, done]
            # a state that looks like another with another action cannot be followed:
            # it is left out of the criterion, and cloning stops all the same
            alike = learn.clone(model, [*lesson.pairs, (before.copy(), done)], at_least=0,
                                at_most=defaults.bc)
            assert (alike.states, alike.alike) == (1, 2) and alike.updates < defaults.bc
        finally:
            lesson.evaluation.close()
            lesson.train.close()


def test_look_alike_names_equal_observations_with_other_actions() -> None:
    learn = load_example()
    a, b = np.zeros(3, dtype=np.float32), np.ones(3, dtype=np.float32)
    assert learn.look_alike([(a, 1), (b, 2), (a.copy(), 3), (a.copy(), 1)]) == [(0, 2), (2, 3)]


@pytest.mark.timeout(600)
def test_without_a_route_the_demo_must_be_one_the_features_can_follow(local_host: Any) -> None:
    """7688b85f's GUI demo cuts todo.txt (ctrl+x), which changes no feature: the states
    before and after look alike and the demo acts differently from them, so no policy of
    the features can follow it. learn.py then takes the task's next route."""
    from drums_gym.client import connect

    learn = load_example()
    with connect(url=local_host.url) as client:
        gui = learn.prepare(client, "7688b85f", "gui", 64)
        try:
            assert learn.look_alike(gui.pairs) == [(1, 2)]
        finally:
            gui.evaluation.close()
            gui.train.close()
        chosen = learn.choose(client, "7688b85f", None, 64)
        try:
            assert chosen.route == "terminal" and learn.look_alike(chosen.pairs) == []
        finally:
            chosen.evaluation.close()
            chosen.train.close()
        assert client.states() == []  # the rejected lesson's desktops and states are gone
