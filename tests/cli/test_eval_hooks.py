"""What ``drums-gym eval`` hands on: a model policy's figures reach ``episodes.jsonl``, and
a recorded evaluation (a suite or a single task) ends with its HTML report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_server import Reply, StandIn

from drums_gym.cli import main

KEY = "sk-eval-hooks-0123456789"


@pytest.fixture
def hosted(local_host, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    monkeypatch.setenv("DRUMS_EVAL_TEST_KEY", KEY)
    return local_host


def test_a_model_policys_figures_are_recorded_per_episode(hosted, tmp_path: Path, capsys):
    out = tmp_path / "run"
    move = Reply.text("```python\npyautogui.moveTo(5, 5)\n```", 30, 9)
    replies = [move, Reply.text("DONE", 40, 2)]
    with StandIn(replies) as server:
        code = main([
            "eval", "--tasks", "e0df059f", "--episodes-per-task", "1", "--num-envs", "1",
            "--steps", "3", "--out", str(out), "--no-progress",
            "--policy", "openai:standin-model", "--base-url", server.url,
            "--api-key-env", "DRUMS_EVAL_TEST_KEY",
        ])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    [record] = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert record["valid"] and record["steps"] == 2
    assert (record["prompt_tokens"], record["completion_tokens"]) == (70, 11)
    assert record["policy_errors"] == 0 and record["model_latency_s"] > 0
    assert KEY not in (out / "episodes.jsonl").read_text() + captured.out + captured.err


def test_a_recorded_suite_ends_with_its_report(hosted, tmp_path: Path, capsys):
    out = tmp_path / "suite"
    code = main(["eval", "--tasks", "e0df059f", "--episodes-per-task", "1", "--num-envs", "1",
                 "--out", str(out), "--record", "--policy", "scripted", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = out / "report.html"
    assert report.is_file() and f"report   {report}" in captured.out
    assert "e0df059f" in report.read_text()


def test_a_recorded_single_task_eval_ends_with_its_report(hosted, tmp_path: Path, capsys):
    folder = tmp_path / "rec"
    code = main(["eval", "--task", "e0df059f", "--episodes", "1", "--num-envs", "1",
                 "--record", str(folder), "--policy", "scripted", "--json", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert summary["record"]["report"] == str(folder / "report.html")
    assert (folder / "report.html").is_file()
