"""A small real evaluation's output folder, in the suite runner's schema, for the report tests.

`make_run(folder, hosts)` runs ``drums-gym eval --record`` (the real CLI, real local hosts
over loopback) for two tasks, two episodes each, with the scripted policy, and lays the
result out as docs/report.md describes it (``episodes.jsonl``, ``summary.json``,
``record/<task_short>/episode-<k>/``):

- task e0df059f: the scripted GUI route, 2 episodes, both solved;
- task 7688b85f: episode 0 with too few steps for its route (failed), episode 1 on a host
  whose gates fail (invalid, ``gate_failed``).

(``drums-gym eval`` writes this schema itself once the suite runner lands; until then this
converts its ``--record`` folder, field by field.)
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import time
from pathlib import Path
from typing import Any

from drums_gym.cli import main

__all__ = ["SECOND_TASK", "SOLVED_TASK", "make_run"]

SOLVED_TASK = "e0df059f"
SECOND_TASK = "7688b85f"


def _eval(folder: Path, task: str, episodes: int, steps: int, url: str) -> dict[str, Any]:
    argv = [
        "eval", "--task", task, "--episodes", str(episodes), "--num-envs", "1",
        "--steps", str(steps), "--policy", "scripted:gui", "--record", str(folder),
        "--no-progress", "--url", url,
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    if code != 0:
        raise RuntimeError(f"drums-gym {' '.join(argv)} exited {code}: {out.getvalue()}")
    return json.loads((folder / "summary.json").read_text(encoding="utf-8"))


def _steps(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "steps.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _row(
    run: Path, task_id: str, k: int, result: dict[str, Any], source: Path, seed: int
) -> dict[str, Any]:
    short = task_id[:8]
    dest = run / "record" / short / f"episode-{k}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, dest)
    lines = _steps(dest)
    totals = {"action": 0.0, "observe": 0.0, "verify": 0.0}
    for line in lines:
        for key, value in (line.get("info", {}).get("timings") or {}).items():
            totals[key] = totals.get(key, 0.0) + float(value)
    steps = int(result["length"])
    now = time.time()
    return {
        "task": task_id, "task_short": short, "episode": k, "seed": seed, "attempt": 0,
        "valid": result["valid"], "score": result["score"] if result["valid"] else None,
        "success": result["success"] if result["valid"] else None,
        "invalid_reason": result["reason"], "steps": steps,
        "action_errors": result["action_errors"], "timings": totals,
        "step_latency_s": (totals["action"] + totals["observe"]) / steps if steps else 0.0,
        "policy": "scripted:gui", "started_at": now, "finished_at": now,
        "record": dest.relative_to(run).as_posix(), "final": True,
    }


def make_run(folder: Path, healthy_url: str, failing_url: str) -> Path:
    """Write the run into ``folder`` (made); ``healthy_url`` and ``failing_url`` are local
    hosts, the second with ``gate_fail=1``. Returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    scratch = folder / ".eval"
    plans = [  # (task, episodes, steps, host): the rows of episodes.jsonl in order
        (SOLVED_TASK, 2, 15, healthy_url),
        (SECOND_TASK, 1, 2, healthy_url),
        (SECOND_TASK, 1, 15, failing_url),
    ]
    rows = []
    index: dict[str, int] = {}
    for n, (task, episodes, steps, url) in enumerate(plans):
        summary = _eval(scratch / str(n), task, episodes, steps, url)
        for result in summary["episodes"]:
            k = index.get(task, 0)
            index[task] = k + 1
            source = scratch / str(n) / result["folder"]
            rows.append(_row(folder, result["task_id"], k, result, source, seed=k))
    shutil.rmtree(scratch)
    with (folder / "episodes.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    summary = {
        "args": {"tasks": [SOLVED_TASK, SECOND_TASK], "episodes": 2, "policy": "scripted:gui"},
        "done": len(rows), "total": len(rows),
    }
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return folder
