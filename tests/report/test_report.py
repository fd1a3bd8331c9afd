"""`drums-gym report`, without a browser: the page holds what episodes.jsonl holds, escaped.

The run is a small real evaluation (tests/report_fixture.py: two tasks, two episodes each,
the scripted policy, recorded, on real local hosts over loopback).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from html import escape, unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import FAST, assert_no_leaks
from report_fixture import SECOND_TASK, SOLVED_TASK, make_run

from drums_gym.cli import main
from drums_gym.local.faults import FaultSpec
from drums_gym.local.server import LocalHost
from drums_gym.outcomes import wilson_interval
from drums_gym.report import REPORT_FILE, ReportError, load_run, render_report, write_report


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("run") / "eval"
    with LocalHost(FAST) as healthy, LocalHost(
        FAST, faults=FaultSpec.parse("gate_fail=1")
    ) as failing:
        make_run(folder, healthy.url, failing.url)
        assert_no_leaks(healthy)
        assert_no_leaks(failing)
    yield folder


def rows_of(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


class Elements(HTMLParser):
    """Every start tag's attributes, and the text of the elements of one class."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.pre: list[str] = []
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.tags.append((tag, attributes))
        self._in_pre = tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            self.pre.append(data)


def parse(html: str) -> Elements:
    parser = Elements()
    parser.feed(html)
    return parser


def with_class(page: Elements, tag: str, cls: str) -> list[dict[str, str]]:
    return [a for t, a in page.tags if t == tag and cls in a.get("class", "").split()]


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def test_the_summary_holds_the_figures_of_the_jsonl(run_dir: Path) -> None:
    html = render_report(run_dir)
    rows = [r for r in rows_of(run_dir) if r["final"]]
    groups = {SOLVED_TASK: [r for r in rows if r["task_short"] == SOLVED_TASK],
              SECOND_TASK: [r for r in rows if r["task_short"] == SECOND_TASK],
              "overall": rows}
    for label, group in groups.items():
        valid = [r for r in group if r["valid"]]
        solved = sum(bool(r["success"]) for r in valid)
        lo, hi = wilson_interval(solved, len(valid))
        line = re.search(rf'<tr[^>]*data-task="{label}">(.*?)</tr>', html).group(1)
        cells = [unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", line)]
        assert cells[1:5] == [str(len(group)), str(len(valid)), str(solved),
                              pct(solved / len(valid))]
        assert cells[5] == f"{pct(lo)} – {pct(hi)}"
        invalid = [r for r in group if not r["valid"]]
        assert cells[6] == str(len(invalid))
        for reason in {r["invalid_reason"] for r in invalid}:
            assert f"{reason} ×" in cells[7]
        mean_steps = sum(r["steps"] for r in valid) / len(valid)
        assert cells[8] == f"{mean_steps:.1f}"
    # the chart: one bar per task with a valid episode, plus the overall one
    page = parse(html)
    bars = with_class(page, "rect", "bar")
    assert [b["data-label"] for b in bars] == [SOLVED_TASK, SECOND_TASK, "overall"]
    rates = [float(b["data-rate"]) for b in bars]
    assert rates == pytest.approx([1.0, 0.0, 2 / 3], abs=1e-6)
    widths = [float(b["width"]) for b in bars]
    assert widths[0] > widths[2] > widths[1] == 0.0
    whiskers = with_class(page, "g", "ci")
    assert float(whiskers[2]["data-lo"]) == pytest.approx(wilson_interval(2, 3)[0], abs=1e-6)


def test_the_table_has_one_row_per_counted_episode(run_dir: Path) -> None:
    page = parse(render_report(run_dir))
    rows = with_class(page, "tr", "episode")
    expected = [
        (r["task_short"], "invalid" if not r["valid"] else "solved" if r["success"] else "failed")
        for r in rows_of(run_dir)
    ]
    assert [(r["data-task"], r["data-outcome"]) for r in rows] == expected
    assert {o for _, o in expected} == {"solved", "failed", "invalid"}  # the fixture's mix
    options = [a.get("value") for t, a in page.tags if t == "option"]
    assert options == ["", SOLVED_TASK, SECOND_TASK, "", "solved", "failed", "invalid"]


def test_every_recorded_step_is_shown_with_its_frame_and_action(run_dir: Path) -> None:
    html = render_report(run_dir)
    page = parse(html)
    images = [a["src"] for t, a in page.tags if t == "img"]
    for row in rows_of(run_dir):
        lines = (run_dir / row["record"] / "steps.jsonl").read_text().splitlines()
        steps = [json.loads(x) for x in lines][1:]  # the reset has no action
        for step in steps:
            assert escape(step["action"]) in html
        shown = [s for s in images if s.startswith(row["record"] + "/")]
        # each step on the frame it was chosen on, then the final screen
        expected = [f"{row['record']}/step-{n:04d}.png" for n in range(len(steps))]
        if (run_dir / row["record"] / f"step-{len(steps):04d}.png").exists():
            expected.append(f"{row['record']}/step-{len(steps):04d}.png")
        assert shown == expected
        assert all((run_dir / s).is_file() for s in shown)
    # the page links nothing outside its folder, and loads nothing from the network
    for tag, attributes in page.tags:
        for key in ("src", "href"):
            value = attributes.get(key)
            if value is not None:
                assert not re.match(r"^[a-z]+:|^/|\.\.", value), (tag, value)


def test_the_click_is_marked_where_the_action_pressed(run_dir: Path) -> None:
    run = load_run(run_dir)
    step = run.episodes[0].steps[0]
    assert step.action.startswith("pyautogui.click(")
    x, y = (int(v) for v in re.findall(r"\d+", step.action)[:2])
    width, height = step.frame_size
    marks = with_class(parse(render_report(run_dir)), "span", "click")
    assert marks, "no click marked"
    assert marks[0]["style"] == f"left:{100 * x / width:.3f}%;top:{100 * y / height:.3f}%"
    # a step without a press has no mark: one per click action of the run
    clicks = sum(len(s.clicks) for ep in run.episodes for s in ep.steps)
    assert len(marks) == clicks


def planted(run_dir: Path, tmp_path: Path) -> Path:
    """A copy of the run whose data tries to inject HTML, with a model reply and an error."""
    folder = tmp_path / "planted"
    shutil.copytree(run_dir, folder)
    rows = rows_of(folder)
    rows[2]["task_short"] = 'x"><script>alert(1)</script>'
    rows[3]["invalid_reason"] = "<img src=x onerror=alert(2)>"
    (folder / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    steps_file = folder / rows[0]["record"] / "steps.jsonl"
    lines = [json.loads(x) for x in steps_file.read_text().splitlines()]
    lines[1]["action"] = "pyautogui.write('</pre><script>alert(3)</script>')"
    lines[1]["info"]["action_error"] = "<b>bad</b> & worse"
    lines[2]["info"]["policy"] = {"reply": "I'll click <here> & </details>",
                                  "model_latency_s": 0.25}
    steps_file.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def test_text_from_the_data_is_escaped_never_injected(run_dir: Path, tmp_path: Path) -> None:
    html = render_report(planted(run_dir, tmp_path))
    assert html.count("<script>") == 1  # the page's own
    assert "<img src=x" not in html and "<b>bad</b>" not in html and "<here>" not in html
    page = parse(html)
    texts = "".join(page.pre)
    assert "pyautogui.write('</pre><script>alert(3)</script>')" in texts
    assert "I'll click <here> & </details>" in texts  # the model's reply, as text
    assert escape("<b>bad</b> & worse") in html
    assert "model 250 ms" in html
    tasks = {a["data-task"] for a in with_class(page, "tr", "episode")}
    assert 'x"><script>alert(1)</script>' in tasks  # one attribute value, not markup


def test_retried_attempts_are_not_counted(run_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "retried"
    shutil.copytree(run_dir, folder)
    rows = rows_of(folder)
    earlier = {**rows[3], "attempt": 0, "final": False, "invalid_reason": "app_crash"}
    rows[3]["attempt"] = 1
    (folder / "episodes.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in [earlier, *rows])
    )
    run = load_run(folder)
    assert len(run.episodes) == 4 and len(run.retried) == 1
    html = render_report(folder)
    assert "app_crash" not in html
    assert "1 earlier attempt(s)" in html


def test_a_record_folder_outside_the_run_is_not_shown(run_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "outside"
    shutil.copytree(run_dir, folder)
    rows = rows_of(folder)
    rows[0]["record"] = "../../../etc"
    rows[1]["record"] = None
    (folder / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = load_run(folder)
    assert run.episodes[0].steps == [] and "not inside" in run.episodes[0].note
    assert "--record" in run.episodes[1].note
    assert "etc" not in " ".join(a.get("src", "") for _, a in parse(render_report(folder)).tags)


def test_write_report_and_the_cli(run_dir: Path, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "cli"
    shutil.copytree(run_dir, folder)
    assert main(["report", str(folder)]) == 0
    assert f"wrote {folder / REPORT_FILE}" in capsys.readouterr().out
    assert (folder / REPORT_FILE).read_text(encoding="utf-8") == render_report(folder)
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []
    assert write_report(folder) == folder / REPORT_FILE


def test_the_eval_hook_never_fails_the_evaluation(run_dir: Path, tmp_path: Path, capsys) -> None:
    from drums_gym.cli.report import write_report as hook

    folder = tmp_path / "hooked"
    shutil.copytree(run_dir, folder)
    assert hook(folder) == folder / REPORT_FILE and (folder / REPORT_FILE).is_file()
    assert hook(tmp_path / "empty-run") is None
    err = capsys.readouterr().err
    assert err.startswith("drums-gym eval: warning: no report written: ") and "empty-run" in err


def test_bad_folders_are_named(tmp_path: Path, capsys) -> None:
    assert main(["report", str(tmp_path / "nope")]) == 1
    assert "nope: not a folder" in capsys.readouterr().err
    assert main(["report", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "episodes.jsonl: no such file" in err and "--out folder" in err
    (tmp_path / "episodes.jsonl").write_text('{"task": "t", "valid": true}\n{oops\n')
    with pytest.raises(ReportError, match=r"episodes.jsonl:2: not JSON"):
        load_run(tmp_path)
    (tmp_path / "episodes.jsonl").write_text('{"task": "t"}\n')
    with pytest.raises(ReportError, match=r"episodes.jsonl:1: .*'valid'"):
        load_run(tmp_path)
    # a run still being written: its last line is cut off; the rest shows
    (tmp_path / "episodes.jsonl").write_text('{"task": "t", "valid": true}\n{"task": "t", "va')
    assert len(load_run(tmp_path).episodes) == 1


def test_marks_stay_on_a_resized_frame(run_dir: Path, tmp_path: Path) -> None:
    """Click coordinates are screen pixels: on a frame recorded smaller (ResizeScreenshot),
    the mark is placed by the screen's size from the reset's accessibility tree."""
    from PIL import Image

    folder = tmp_path / "resized"
    shutil.copytree(run_dir, folder)
    record = folder / rows_of(folder)[0]["record"]
    with Image.open(record / "step-0000.png", formats=["PNG"]) as image:
        image.resize((960, 540)).save(record / "step-0000.png")
    step = load_run(folder).episodes[0].steps[0]
    assert step.frame_size == (1920, 1080)
    lines = [json.loads(x) for x in (record / "steps.jsonl").read_text().splitlines()]
    del lines[0]["info"]["accessibility"]
    (record / "steps.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert load_run(folder).episodes[0].steps[0].frame_size == (960, 540)  # all it knows


@pytest.mark.parametrize("name", ["drums_gym.report._clicks", "drums_gym.report._stats"])
def test_docstring_examples(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0, result



def test_a_single_task_record_folder_is_reported_too(local_host, tmp_path: Path, capsys) -> None:
    """``drums-gym eval --task T --record DIR`` (no suite) writes no episodes.jsonl; the
    report reads its summary.json's episodes and their folders."""
    folder = tmp_path / "single"
    assert main(["eval", "--task", SOLVED_TASK, "--episodes", "2", "--num-envs", "2",
                 "--policy", "scripted:gui", "--record", str(folder), "--no-progress",
                 "--url", local_host.url]) == 0
    capsys.readouterr()
    summary = json.loads((folder / "summary.json").read_text())
    assert main(["report", str(folder)]) == 0
    page = parse((folder / REPORT_FILE).read_text(encoding="utf-8"))
    rows = with_class(page, "tr", "episode")
    assert [(r["data-task"], r["data-outcome"]) for r in rows] == [
        (e["task_id"][:8], "solved" if e["success"] else "failed") for e in summary["episodes"]
    ]
    run = load_run(folder)
    for episode, item in zip(run.episodes, summary["episodes"], strict=True):
        assert len(episode.steps) == item["length"]
        assert episode.steps[0].frame == f"{item['folder']}/step-0000.png"
        assert episode.row["step_latency_s"] > 0


def test_an_invalid_episode_says_it_was_invalid_and_why(run_dir: Path) -> None:
    """(issue 22, item 3) not that its recording was cut off."""
    run = load_run(run_dir)
    [invalid] = [e for e in run.episodes if e.outcome == "invalid"]
    page = render_report(run_dir)
    start = page.index(f'id="{invalid.anchor}"')
    section = page[start:page.index("</details>", start)]
    assert "the episode was invalid (gate_failed): the host flagged it" in section
    assert "did not reach" not in section
