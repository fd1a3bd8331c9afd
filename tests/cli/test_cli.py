"""`drums-gym tasks | rollout | eval`, run in-process against real local hosts.

Every host comes from the `make_host`/`local_host` fixtures, which fail the test if a
desktop or saved state is left behind, so each command is also checked for leaks.
"""

from __future__ import annotations

import io
import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

from drums_gym.cli import main
from drums_gym.cli._progress import Progress
from drums_gym.cli._table import format_table
from drums_gym.cli.evaluate import wilson_interval
from drums_gym.cli.policies import PolicyError, RandomPolicy, load_policy
from drums_gym.grpo import group_advantages

pytestmark = pytest.mark.timeout(60)

RENAME = (
    "pyautogui.click(142, 98)\\n"
    "pyautogui.press('f2')\\n"
    "pyautogui.hotkey('ctrl', 'a')\\n"
    "pyautogui.write('todo_list_Jan_2')\\n"
    "pyautogui.press('enter')"
)

# Calls alternate: solve the task, then DONE. Members are asked in order each step, so
# with --n 4 --steps 2, members 1 and 3 end at once (DONE: 0.0) and members 0 and 2
# rename the folder and score 1.0: scores [1, 0, 1, 0].
POLICIES = textwrap.dedent(f'''
    import itertools

    class Alternating:
        """Each member has its own instance (seeds seed, seed + 1, ...): even seeds rename
        the folder, then say DONE; odd seeds say DONE at once."""

        def __init__(self, seed=0):
            self.solves = seed % 2 == 0
            self.calls = itertools.count()

        def __call__(self, observation, instruction):
            assert observation.ndim == 3 and "todo_list_Jan_1" in instruction
            first = next(self.calls) % 2 == 0
            return "{RENAME}" if self.solves and first else "DONE"

    def make(*, seed=0):
        return lambda observation, instruction: "DONE"

    def broken(observation, instruction):
        raise ValueError("model unavailable")

    def interrupt(observation, instruction):
        raise KeyboardInterrupt

    NOT_CALLABLE = 3
''')


@pytest.fixture
def policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A policy module, importable as ``cli_test_policies`` and by its file path."""
    path = tmp_path / "cli_test_policies.py"
    path.write_text(POLICIES)
    monkeypatch.syspath_prepend(str(tmp_path))
    return path


@pytest.fixture
def host_url(local_host, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    return local_host.url


def one_line_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# ------------------------------------------------------------------------------ tasks


def test_tasks_lists_the_task_with_its_instruction(host_url, capsys):
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("e0df059f"))
    assert "e0df059f-28a6-4169-924f-b9623e7184cc" in row
    assert 'I have a directory named "todo_list_Jan_1"' in row
    assert main(["tasks", "--json"]) == 0
    tasks = json.loads(capsys.readouterr().out)
    task = next(t for t in tasks if t["short_id"] == "e0df059f")
    assert task["env_id"] == "Drums/e0df059f"
    assert "todo_list_Jan_2" in task["instruction"]


def test_tasks_honours_drums_token(make_host, monkeypatch, capsys):
    server = make_host(tokens=["s3cret"])
    monkeypatch.setenv("DRUMS_URL", server.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    assert main(["tasks"]) == 1
    line = one_line_error(capsys.readouterr().err)
    assert line.startswith("drums-gym tasks: error:") and "unauthorized" in line
    monkeypatch.setenv("DRUMS_TOKEN", "s3cret")
    assert main(["tasks"]) == 0
    assert "e0df059f" in capsys.readouterr().out


# ------------------------------------------------------------------------------ rollout


def group_rows(out: str) -> dict[int, str]:
    """The table's group rows, by group number."""
    rows = {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) > 2 and cells[0].isdigit() and "/" in cells[1]:
            rows[int(cells[0])] = line
    return rows


def test_rollout_prints_valid_counts_and_advantages(host_url, policies, capsys):
    code = main(["rollout", "--task", "e0df059f", "--n", "4", "--groups", "2", "--steps", "2",
                 "--policy", "cli_test_policies:Alternating"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = captured.out
    header = next(line for line in out.splitlines() if line.startswith("group"))
    assert header.split() == ["group", "valid", "mean", "scores", "advantages", "invalid"]
    rows = group_rows(out)
    assert sorted(rows) == [1, 2]
    expected = [f"{a:+.2f}" for a in group_advantages([1.0, 0.0, 1.0, 0.0])]  # +1.00 -1.00 ...
    for row in rows.values():
        assert "4/4" in row
        assert "0.50  1.00 0.00 1.00 0.00" in row
        assert " ".join(expected) in row
    # columns line up: every row starts its advantages where the header says
    column = header.index("advantages")
    assert all(row[column:].startswith(expected[0]) for row in rows.values())
    assert "total    8/8 valid, mean score 0.50, 4 successes" in out
    assert "steps: 4/4" in captured.err  # the progress bar's final line


def test_rollout_leaves_invalid_members_out(make_host, monkeypatch, capsys):
    server = make_host(faults="gate_fail=0.5", seed=1)
    monkeypatch.setenv("DRUMS_URL", server.url)
    code = main(["rollout", "--n", "4", "--groups", "2", "--steps", "2", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert [g["group"] for g in summary["groups"]] == [1, 2]
    invalid_total = 0
    for g in summary["groups"]:
        scores, advantages = g["scores"], g["advantages"]
        assert g["n"] == len(scores) == len(advantages) == 4
        valid = [s for s in scores if s is not None]
        assert g["valid"] == len(valid) and g["invalid"] == 4 - len(valid)
        assert sum(g["invalid_reasons"].values()) == g["invalid"]
        assert set(g["invalid_reasons"]) <= {"gate_failed"}
        # an invalid member has no advantage; the others are relative to valid ones only
        assert [a is None for a in advantages] == [s is None for s in scores]
        assert [a for a in advantages if a is not None] == pytest.approx(
            [a for a in group_advantages(valid)])
        if valid:
            assert g["mean_score"] == pytest.approx(sum(valid) / len(valid))
        invalid_total += g["invalid"]
    assert invalid_total > 0
    assert summary["total"]["invalid"] == invalid_total
    assert summary["total"]["invalid_reasons"] == {"gate_failed": invalid_total}


def test_rollout_table_marks_invalid_members(make_host, monkeypatch, policies, capsys):
    server = make_host(faults="gate_fail=0.5", seed=1)
    monkeypatch.setenv("DRUMS_URL", server.url)
    code = main(["rollout", "--n", "4", "--groups", "1", "--steps", "2",
                 "--policy", f"{policies}:Alternating"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    row = group_rows(captured.out)[1]
    valid, total = row.split()[1].split("/")
    assert total == "4" and int(valid) < 4
    assert "gate_failed x" + str(4 - int(valid)) in row
    dashes = 2 * (4 - int(valid)) + (int(valid) == 0)  # no score, no advantage (no mean)
    assert row.split().count("-") == dashes


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("no_such_module:act", "cannot import module 'no_such_module'"),
        ("cli_test_policies:missing", "has no attribute 'missing'"),
        ("cli_test_policies:NOT_CALLABLE", "not callable"),
        ("clever", "unknown policy 'clever'"),
    ],
)
def test_rollout_bad_policy_is_one_line_exit_1(policies, spec, expected, capsys):
    assert main(["rollout", "--policy", spec]) == 1
    line = one_line_error(capsys.readouterr().err)
    assert line.startswith("drums-gym rollout: error:")
    assert repr(spec) in line and expected in line


def test_rollout_policy_errors_exit_1_without_leaks(host_url, policies, capsys):
    assert main(["rollout", "--n", "2", "--groups", "1", "--steps", "2",
                 "--policy", "cli_test_policies:broken"]) == 1
    err = capsys.readouterr().err
    assert "policy 'cli_test_policies:broken' raised ValueError: model unavailable" in err
    assert "Traceback" not in err
    # KeyboardInterrupt: exit 130, and the host's leak check (fixture teardown) passes
    assert main(["rollout", "--n", "2", "--groups", "1", "--steps", "2",
                 "--policy", "cli_test_policies:interrupt"]) == 130


def test_rollout_refuses_more_members_than_the_fork_limit(host_url, capsys):
    assert main(["rollout", "--n", "9", "--groups", "1"]) == 1
    line = one_line_error(capsys.readouterr().err)
    assert "--n 9 exceeds the host's fork limit of 8" in line


def test_rollout_prefix_runs_on_the_parent(host_url, capsys):
    assert main(["rollout", "--n", "2", "--groups", "1", "--steps", "2", "--json",
                 "--prefix", "pyautogui.moveTo(960, 540)", "--policy", "random"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["prefix"] == ["pyautogui.moveTo(960, 540)"]
    assert summary["groups"][0]["n"] == 2
    assert main(["rollout", "--n", "2", "--groups", "1", "--prefix", "pyautogui.nope()"]) == 1
    assert "--prefix 'pyautogui.nope()' was rejected" in one_line_error(capsys.readouterr().err)


# ------------------------------------------------------------------------------ eval


def test_eval_reports_success_rate_interval_and_invalid_rate(host_url, policies, capsys):
    code = main(["eval", "--episodes", "4", "--num-envs", "2", "--steps", "2",
                 "--policy", "cli_test_policies:Alternating"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    lines = {line.split("  ")[0]: line for line in captured.out.splitlines()}
    assert "success rate" in lines and "95% Wilson CI" in lines["success rate"]
    assert "invalid rate" in lines and "0.0%" in lines["invalid rate"]
    assert "step latency" in lines and " ms" in lines["step latency"]
    assert "episodes: 4/4" in captured.err


def test_eval_json_counts_invalid_episodes_by_reason(make_host, monkeypatch, capsys):
    server = make_host(faults="gate_fail=0.5", seed=1)
    monkeypatch.setenv("DRUMS_URL", server.url)
    assert main(["eval", "--episodes", "6", "--num-envs", "3", "--steps", "2", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["episodes"] == 6 and s["valid"] + s["invalid"] == 6
    assert s["invalid"] > 0 and s["invalid_reasons"] == {"gate_failed": s["invalid"]}
    assert s["invalid_rate"] == pytest.approx(s["invalid"] / 6)
    if s["valid"]:
        lo, hi = s["success_ci95"]
        assert 0.0 <= lo <= s["success_rate"] <= hi <= 1.0
    assert s["latency_ms"]["step"] is None or s["latency_ms"]["step"] > 0


def test_eval_records_episodes(local_host, host_url, tmp_path, capsys, monkeypatch):
    branch = local_host.model.branch
    forks: list[int] = []

    def spy(workspace, slot_id, body, *args, **kwargs):
        forks.append(body.n)
        return branch(workspace, slot_id, body, *args, **kwargs)

    monkeypatch.setattr(local_host.model, "branch", spy)
    record = tmp_path / "runs"
    assert main(["eval", "--episodes", "2", "--num-envs", "2", "--steps", "1",
                 "--record", str(record)]) == 0
    assert "recorded" in capsys.readouterr().out
    assert forks and forks[0] == 2  # the fork vector env: both sub-envs forked from one parent
    listed = sorted(p.name for p in record.iterdir())
    assert listed == ["env-0", "env-1", "report.html", "summary.json"]
    for k in range(2):  # each sub-env's first episode: the reset, then its one step
        folder = record / f"env-{k}" / "episode-000001"
        first = [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]
        assert [s["step"] for s in first] == [0, 1] and first[0]["action"] is None
        assert first[0]["info"]["instruction"].startswith("I have a directory")
        assert first[1]["truncated"] or first[1]["terminated"]
        assert (folder / "episode.gif").exists()


# ------------------------------------------------------------------------------ pieces


def test_load_policy_rules(policies):
    obs = np.zeros((1080, 1920, 3), np.uint8)
    instruction = 'I have a directory named "todo_list_Jan_1".'
    assert load_policy("cli_test_policies:Alternating")(obs, instruction).startswith("pyautogui")
    assert load_policy(f"{policies}:make", seed=3)(obs, instruction) == "DONE"  # a factory
    assert load_policy("cli_test_policies:broken").__name__ == "broken"  # the policy itself
    a, b = load_policy("random", seed=7), load_policy("random", seed=7)
    assert [a(obs, "") for _ in range(20)] == [b(obs, "") for _ in range(20)]
    with pytest.raises(PolicyError, match="no such file"):
        load_policy("missing/file.py:act")


def test_random_policy_stays_on_screen():
    policy = RandomPolicy(seed=0, p_done=0.0)
    obs = np.zeros((480, 640, 3), np.uint8)
    for _ in range(200):
        action = policy(obs, "")
        if action.split("(")[0] in ("pyautogui.click", "pyautogui.moveTo"):
            x, y = (int(v) for v in action.split("(")[1].rstrip(")").split(","))
            assert 0 <= x < 640 and 0 <= y < 480


def test_progress_draws_only_on_a_terminal_and_always_ends_with_a_line():
    live = io.StringIO()
    with Progress(4, "steps", stream=live, enabled=True, mininterval=0) as bar:
        bar.update(2, note="group 1/2")
    assert "\rsteps " in live.getvalue() and " 2/4 " in live.getvalue()  # tqdm's live bar
    assert "ETA" in live.getvalue() and "group 1/2" in live.getvalue()
    assert live.getvalue().endswith("\n") and "steps: 2/4 in" in live.getvalue()
    quiet = io.StringIO()  # not a terminal: only the final line
    with Progress(4, "episodes", stream=quiet) as bar:
        bar.update(4)
    assert quiet.getvalue().startswith("episodes: 4/4 in") and "\r" not in quiet.getvalue()


def test_wilson_interval_and_table():
    lo, hi = wilson_interval(8, 10)
    assert math.isclose(lo, 0.4902, abs_tol=1e-4) and math.isclose(hi, 0.9433, abs_tol=1e-4)
    assert wilson_interval(0, 5)[0] == 0.0 and wilson_interval(5, 5)[1] == 1.0
    table = format_table(["a", "bb"], [["1", "x"], ["22", "yyy"]], align="rl")
    assert table.splitlines() == [" a  bb", "--  ---", " 1  x", "22  yyy"]
