"""The CLI's progress bar (tqdm): drawn only on a terminal unless forced, counting steps
actually taken."""

from __future__ import annotations

import io

import pytest

from drums_gym.cli import main
from drums_gym.cli._progress import Progress

pytestmark = pytest.mark.timeout(60)


def test_rollout_counts_steps_taken_not_the_budget(local_host, monkeypatch, capsys):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    # every member says DONE at once: each group takes 1 step of its 15-step budget
    code = main(["rollout", "--n", "2", "--groups", "2", "--steps", "15",
                 "--policy", f"{__file__}:done"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "steps: 2/2 in" in captured.err, captured.err
    assert "\r" not in captured.err  # not a terminal: no live bar


def done(observation, instruction):
    return "DONE"


def test_live_bar_only_when_forced_or_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    with Progress(10, "episodes", stream=tty, mininterval=0) as bar:
        bar.update(3, note="group 1/2")
        bar.shrink(5)
    text = tty.getvalue()
    assert "\repisodes " in text and "3/10" in text and "group 1/2" in text
    assert text.endswith("episodes: 3/5 in " + text.rsplit("episodes: 3/5 in ", 1)[1])
    pipe = io.StringIO()
    with Progress(10, "episodes", stream=pipe) as bar:
        bar.update(10)
    assert pipe.getvalue().startswith("episodes: 10/10 in") and "\r" not in pipe.getvalue()


def test_without_tqdm_only_the_closing_line(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "tqdm", None)  # the [cli] extra is not installed
    out = io.StringIO()
    with Progress(2, "steps", stream=out, enabled=True) as bar:
        bar.update(2)
    assert out.getvalue().startswith("steps: 2/2 in") and "\r" not in out.getvalue()
