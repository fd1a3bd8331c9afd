"""Reading an evaluation's output folder: ``episodes.jsonl``, ``summary.json``, recordings.

The folder is what ``drums-gym eval --out DIR`` writes (docs/report.md): one JSON object per
finished episode in ``episodes.jsonl``, and with ``--record`` one recording folder per
counted episode (``step-NNNN.png`` frames and ``steps.jsonl``, as
:mod:`drums_gym.wrappers` writes them). Only standard library and the action parser: the
report reads files, it never talks to a host.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._clicks import Click, clicks_of

__all__ = [
    "EPISODES_FILE",
    "FAILED",
    "INVALID",
    "SOLVED",
    "SUMMARY_FILE",
    "Episode",
    "ReportError",
    "Run",
    "Step",
    "load_run",
    "outcome_of",
]

EPISODES_FILE = "episodes.jsonl"
SUMMARY_FILE = "summary.json"
STEPS_FILE = "steps.jsonl"
SOLVED, FAILED, INVALID = "solved", "failed", "invalid"
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class ReportError(ValueError):
    """The folder is not an evaluation's output (the message names the file and line)."""


@dataclass
class Step:
    """One action of an episode and what surrounds it.

    ``frame`` is the screen the action was chosen on (the previous step's frame), where
    ``clicks`` are marked; ``after`` the screen it led to. Paths are relative to the run's
    folder (None when the recording has no such frame). ``frame_size`` is the size of the
    screen the click coordinates refer to (the marks are placed as fractions of it).
    """

    number: int
    action: Any
    frame: str | None = None
    frame_size: tuple[int, int] | None = None
    after: str | None = None
    clicks: list[Click] = field(default_factory=list)
    reply: str | None = None
    #: the policy's record of the step beyond its reply: ``prompt_tokens``,
    #: ``completion_tokens``, the parsed ``action``, ``retries`` (what the policy recorded)
    said: dict[str, Any] = field(default_factory=dict)
    errors: list[tuple[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    reward: float | None = None
    ended: bool = False


@dataclass
class Episode:
    """One line of ``episodes.jsonl`` and its recording's steps."""

    row: dict[str, Any]
    line: int
    steps: list[Step] = field(default_factory=list)
    first_frame: str | None = None
    last_frame: str | None = None
    #: why there are no steps to show (no recording, a folder that is gone, ...)
    note: str | None = None
    unfinished: bool = False

    @property
    def task(self) -> str:
        return str(self.row.get("task", ""))

    @property
    def task_short(self) -> str:
        short = self.row.get("task_short")
        return str(short) if short else self.task[:8]

    @property
    def index(self) -> int:
        value = self.row.get("episode", 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    @property
    def attempt(self) -> int:
        value = self.row.get("attempt", 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    @property
    def outcome(self) -> str:
        return outcome_of(self.row)

    @property
    def anchor(self) -> str:
        """The id of the episode's section in the page (letters, digits, ``-`` only)."""
        safe = "".join(c if c.isalnum() else "-" for c in self.task_short)
        return f"ep-{safe}-{self.index}-{self.attempt}"


@dataclass
class Run:
    """An evaluation's output: its folder, ``summary.json`` (or None) and its episodes."""

    directory: Path
    summary: dict[str, Any] | None
    #: the episodes that count (``final``), by task, then episode
    episodes: list[Episode]
    #: earlier attempts of invalid episodes that were retried (not counted)
    retried: list[Episode]


def outcome_of(row: Mapping[str, Any]) -> str:
    """``solved``, ``failed`` or ``invalid`` for one ``episodes.jsonl`` row."""
    if not row.get("valid"):
        return INVALID
    return SOLVED if row.get("success") else FAILED


def load_run(directory: str | os.PathLike[str]) -> Run:
    """Read the run in ``directory``; a ReportError names what is missing or malformed."""
    folder = Path(directory)
    if not folder.is_dir():
        raise ReportError(f"{folder}: not a folder")
    path = folder / EPISODES_FILE
    summary = _read_summary(folder / SUMMARY_FILE)
    if path.is_file():
        rows = _read_rows(path)
    elif summary is not None and isinstance(summary.get("episodes"), list):
        rows, summary = _single_task_rows(summary)
    else:
        raise ReportError(
            f"{path}: no such file (is {folder} the --out folder of an eval, or the "
            "--record folder of a single-task eval?)"
        )
    counted: list[Episode] = []
    retried: list[Episode] = []
    for line, row in rows:
        episode = Episode(row, line)
        _attach_recording(folder, episode)
        (counted if row.get("final", True) else retried).append(episode)
    # by task (in the order tasks first appear), then episode and attempt: the file is in
    # the order episodes finished
    first: dict[str, int] = {}
    for episode in counted:
        first.setdefault(episode.task_short, len(first))
    counted.sort(key=lambda e: (first[e.task_short], e.index, e.attempt))
    return Run(folder, summary, counted, retried)


def _read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    with path.open(encoding="utf-8", errors="replace") as lines:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            try:
                row = json.loads(text)
            except json.JSONDecodeError as exc:
                if text.endswith("\n"):
                    raise ReportError(f"{path}:{number}: not JSON ({exc.msg})") from None
                continue  # the last line of a run still being written
            if not isinstance(row, dict):
                raise ReportError(f"{path}:{number}: not a JSON object")
            if not isinstance(row.get("task"), str) or not isinstance(row.get("valid"), bool):
                raise ReportError(
                    f"{path}:{number}: an episode needs 'task' (str) and 'valid' (bool)"
                )
            rows.append((number, row))
    return rows


def _single_task_rows(
    summary: dict[str, Any],
) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, Any]]:
    """Rows in the suite's schema from the ``summary.json`` that a single-task
    ``drums-gym eval --task T --record DIR`` writes (its ``episodes`` list, in the order
    they finished; timings are summed from the recordings later)."""
    arguments = summary.get("arguments")
    arguments = arguments if isinstance(arguments, dict) else {}
    statistics = summary.get("statistics")
    task = statistics.get("task") if isinstance(statistics, dict) else None
    rows = []
    for number, item in enumerate(summary["episodes"], start=1):
        if not isinstance(item, dict) or not isinstance(item.get("valid"), bool):
            raise ReportError(f"summary.json: episode {number} has no 'valid' (bool)")
        task_id = str(item.get("task_id") or task or arguments.get("task") or "")
        valid = item["valid"]
        rows.append((number, {
            "task": task_id,
            "task_short": task_id[:8],
            "episode": number - 1,
            "attempt": 0,
            "valid": valid,
            "score": item.get("score") if valid else None,
            "success": item.get("success") if valid else None,
            "invalid_reason": item.get("reason"),
            "steps": item.get("length"),
            "action_errors": item.get("action_errors", 0),
            "policy": arguments.get("policy"),
            "record": item.get("folder"),
            "final": True,
            "instruction": item.get("instruction"),
            **_figures(item.get("policy_stats")),
        }))
    header = {"args": {k: v for k, v in arguments.items() if k in ("task", "episodes",
                                                                   "num_envs", "steps",
                                                                   "policy", "seed")}}
    return rows, header


#: a policy's episode figures (``episode_stats()``) a row may hold: shown with the episode
POLICY_FIGURES = ("model_latency_s", "prompt_tokens", "completion_tokens", "policy_errors")


def _figures(stats: object) -> dict[str, Any]:
    """The numeric `POLICY_FIGURES` of a policy's ``episode_stats()``."""
    if not isinstance(stats, dict):
        return {}
    return {k: v for k, v in stats.items() if k in POLICY_FIGURES and _number(v) is not None}


def _read_summary(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: not JSON ({exc.msg})") from None
    return data if isinstance(data, dict) else None


def _inside(folder: Path, relative: object) -> Path | None:
    """``folder / relative`` when it stays inside ``folder`` (else None)."""
    if not isinstance(relative, str) or not relative:
        return None
    candidate = (folder / relative).resolve()
    try:
        candidate.relative_to(folder.resolve())
    except ValueError:
        return None
    return candidate


def _attach_recording(folder: Path, episode: Episode) -> None:
    record = episode.row.get("record")
    if record is None:
        episode.note = "not recorded (run the eval with --record)"
        return
    where = _inside(folder, record)
    if where is None:
        episode.note = "its record folder is not inside the run's folder: not shown"
        return
    steps_file = where / STEPS_FILE
    if not steps_file.is_file():
        episode.note = f"no {STEPS_FILE} in {record}"
        return
    episode.unfinished = (where / "unfinished.json").exists()
    prefix = Path(record).as_posix().rstrip("/")

    def frame(n: int) -> str | None:
        name = f"step-{n:04d}.png"
        return f"{prefix}/{name}" if (where / name).is_file() else None

    sizes: dict[str, tuple[int, int] | None] = {}

    def size(rel: str | None) -> tuple[int, int] | None:
        if rel is None:
            return None
        if rel not in sizes:
            sizes[rel] = png_size(folder / rel)
        return sizes[rel]

    pointer: tuple[int, int] | None = None
    episode.first_frame = frame(0)
    last = episode.first_frame
    lines = _step_lines(steps_file)
    screen = _screen_size(lines)
    if not episode.row.get("instruction"):  # the reset's info says it too
        reset = lines[0].get("info") if lines else None
        said_there = reset.get("instruction") if isinstance(reset, dict) else None
        if isinstance(said_there, str) and said_there:
            episode.row["instruction"] = said_there
    for record_line in lines:
        number = record_line.get("step")
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            continue  # the reset (step 0) has no action
        info = record_line.get("info")
        info = info if isinstance(info, dict) else {}
        action = record_line.get("action")
        said = _policy_record(record_line, info)
        clicks, pointer = clicks_of(action, pointer)
        before = frame(number - 1)
        after = frame(number)
        step = Step(
            number=number,
            action=action,
            frame=before,
            frame_size=screen or size(before),
            after=after,
            clicks=clicks,
            reply=_reply(said, info),
            said=_said(said),
            errors=_errors(record_line, info, said),
            timings=_timings(info, said),
            reward=_number(record_line.get("reward")),
            ended=bool(record_line.get("terminated") or record_line.get("truncated")),
        )
        episode.steps.append(step)
        if after is not None:
            last = after
    episode.last_frame = last
    if "timings" not in episode.row and episode.steps:  # a single-task eval's episode
        totals: dict[str, float] = {}
        for step in episode.steps:
            for key in ("action", "observe", "verify"):
                totals[key] = totals.get(key, 0.0) + step.timings.get(key, 0.0)
        episode.row["timings"] = totals
        count = len(episode.steps)
        episode.row["step_latency_s"] = (totals["action"] + totals["observe"]) / count


def _screen_size(lines: list[dict[str, Any]]) -> tuple[int, int] | None:
    """The screen's size from the reset's accessibility tree (its root's ``size``), when
    recorded: click coordinates are screen pixels, a frame may have been resized."""
    for line in lines[:1]:
        info = line.get("info")
        tree = info.get("accessibility") if isinstance(info, dict) else None
        size = tree.get("size") if isinstance(tree, dict) else None
        if (
            isinstance(size, list)
            and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
        ):
            return size[0], size[1]
    return None


def _step_lines(path: Path) -> list[dict[str, Any]]:
    out = []
    with path.open(encoding="utf-8", errors="replace") as lines:
        for text in lines:
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                continue  # a line cut off by a crash: the steps before it still show
            if isinstance(value, dict):
                out.append(value)
    return out


def _policy_record(line: Mapping[str, Any], info: Mapping[str, Any]) -> Mapping[str, Any]:
    """The policy's record of the step: the line's ``policy`` (what the eval loops write),
    else an ``info["policy"]`` / ``info["model"]`` a hand-made loop put there."""
    value = line.get("policy")
    if isinstance(value, Mapping):
        return value
    for key in ("policy", "model"):
        value = info.get(key)
        if isinstance(value, Mapping):
            return value
    return info


def _reply(record: Mapping[str, Any], info: Mapping[str, Any]) -> str | None:
    reply = record.get("reply", info.get("reply"))
    return reply if isinstance(reply, str) and reply else None


#: what a step card shows of the policy's record besides the reply, errors and latency
_SAID = ("model", "action", "prompt_tokens", "completion_tokens", "retries", "queued")


def _said(record: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in _SAID:
        value = record.get(key)
        if key == "queued":
            if value is True:
                out[key] = True
        elif value and isinstance(value, (str, int)) and not isinstance(value, bool):
            out[key] = value
    return out


def _errors(
    line: Mapping[str, Any], info: Mapping[str, Any], record: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """``(kind, message)`` of what went wrong at the step: the action's error (policy
    mistakes: data), a recorder or host error, the policy's own errors."""
    found = []
    for kind, value in (
        ("action error", info.get("action_error")),
        ("error", info.get("error")),
        ("error", line.get("error")),
        ("policy error", record.get("policy_error")),
        ("parse error", record.get("parse_error")),
    ):
        if value:
            found.append((kind, value if isinstance(value, str) else json.dumps(value)))
    return found


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _timings(info: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, float]:
    timings = info.get("timings")
    out: dict[str, float] = {}
    if isinstance(timings, Mapping):
        for key, value in timings.items():
            number = _number(value)
            if number is not None and isinstance(key, str):
                out[key] = number
    model = _number(record.get("model_latency_s"))
    if model is not None:
        out["model"] = model
    return out


def png_size(path: Path) -> tuple[int, int] | None:
    """``(width, height)`` from a PNG's header, or None when it is not a PNG."""
    try:
        with path.open("rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or not head.startswith(_PNG_SIGNATURE) or head[12:16] != b"IHDR":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
