"""``drums-gym eval --policy openai:MODEL --record --out DIR`` keeps what the model said:
each step's reply, parsed action, tokens and latency in ``steps.jsonl``, each episode's
instruction in its record, and the report shows both (issue 22, item 1).

One short episode per form (``--task`` and ``--tasks``), against a stand-in model server on
loopback and a real local host."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

import pytest
from model_run import INSTRUCTION_START, MODEL, REPLIES, TOKENS, model_eval

from drums_gym.report import REPORT_FILE


def steps_of(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "steps.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module", params=["task", "tasks"])
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from conftest import FAST, assert_no_leaks

    from drums_gym.local.server import LocalHost

    folder = tmp_path_factory.mktemp(f"model-{request.param}") / "run"
    with LocalHost(FAST) as host:
        summary = model_eval(folder, host.url, suite=request.param == "tasks")
        assert_no_leaks(host)
    return request.param, folder, summary


def test_each_step_records_what_the_model_said(run: Any) -> None:
    form, folder, summary = run
    if form == "task":
        [episode] = json.loads((folder / "summary.json").read_text())["episodes"]
        record = folder / episode["folder"]
        assert episode["instruction"].startswith(INSTRUCTION_START)
        assert episode["policy_stats"]["prompt_tokens"] == sum(t[0] for t in TOKENS)
        assert episode["success"] is True
    else:
        [row] = [json.loads(line) for line in (folder / "episodes.jsonl").open()]
        record = folder / row["record"]
        assert row["instruction"].startswith(INSTRUCTION_START)
        assert row["prompt_tokens"] == sum(t[0] for t in TOKENS)
        assert row["completion_tokens"] == sum(t[1] for t in TOKENS)
        assert row["success"] is True
    reset, *steps = steps_of(record)
    assert "policy" not in reset and reset["info"]["instruction"].startswith(INSTRUCTION_START)
    assert [s["policy"]["reply"] for s in steps] == REPLIES
    assert [s["action"] for s in steps] == [s["policy"]["action"] for s in steps]
    assert steps[-1]["action"] == "DONE"
    assert [(s["policy"]["prompt_tokens"], s["policy"]["completion_tokens"])
            for s in steps] == TOKENS
    assert all(s["policy"]["model"] == MODEL and s["policy"]["model_latency_s"] > 0
               and s["policy"]["parse_error"] is None for s in steps)


def test_the_report_shows_the_replies_and_the_instruction(run: Any) -> None:
    _, folder, _ = run
    page = (folder / REPORT_FILE).read_text(encoding="utf-8")
    for reply in REPLIES:
        assert escape(reply, quote=True) in page
    assert escape(INSTRUCTION_START, quote=True) in page
    assert "1234 prompt + 56 completion tokens" in page
    assert "<b>todo_list_Jan_2</b>" not in page  # the reply's markup is text, escaped
    assert (folder / REPORT_FILE).stat().st_mode & 0o777 == 0o644


def test_out_without_record_writes_the_summary_and_report(
    local_host, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from drums_gym.cli import main

    monkeypatch.setenv("DRUMS_URL", local_host.url)
    folder = tmp_path / "plain"
    assert main(["eval", "--episodes", "1", "--num-envs", "1", "--steps", "1", "--out",
                 str(folder), "--no-progress", "--json"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [REPORT_FILE, "summary.json"]
    [episode] = json.loads((folder / "summary.json").read_text())["episodes"]
    assert episode["folder"] is None and episode["instruction"].startswith(INSTRUCTION_START)
    assert "not recorded (run the eval with --record)" in (folder / REPORT_FILE).read_text()
