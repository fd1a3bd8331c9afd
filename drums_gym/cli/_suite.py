"""``drums-gym eval --tasks ...``: a suite of tasks x episodes into a folder, resumable.

Parsing lives in :mod:`drums_gym.cli.evaluate`; this module runs the suite (on threads,
or on Ray with ``--ray``), draws the progress bar and prints the final table: one row
per task and a total row.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

from .._loop import Policy
from ..client import DrumsError
from ..evaluation import SuiteConfig, SuiteInterrupted, SuiteResult, run_suite
from ._common import dump_json, fail, model_options
from ._progress import Progress
from ._table import format_table
from .policies import load_policy
from .report import write_report

__all__ = ["SpecPolicyFactory", "render_suite", "run_suite_command"]


class SpecPolicyFactory:
    """``(task, seed) -> policy`` of a command-line policy spec (picklable, for Ray)."""

    def __init__(self, spec: str, max_steps: int, model: Mapping[str, Any] | None = None) -> None:
        self.spec = spec
        self.max_steps = max_steps
        self.model = dict(model or {})  # OpenAIPolicy options of openai:MODEL specs

    def __call__(self, task: str, seed: int) -> Policy:
        return load_policy(self.spec, seed, task, max_steps=self.max_steps, model=self.model)

    def __repr__(self) -> str:
        return f"SpecPolicyFactory({self.spec!r}, max_steps={self.max_steps})"


def run_suite_command(args: argparse.Namespace) -> int:
    """Run ``eval --tasks``; exit code 0, 1 (an error, said on stderr) or 130 (Ctrl+C)."""
    if args.out is None:
        return fail("eval", ValueError("--tasks needs --out DIR (where the suite is written)"))
    factory = SpecPolicyFactory(args.policy, args.steps, model_options(args))
    bars: list[Progress] = []

    def on_progress(done: int, total: int, successes: int, invalid: int) -> None:
        if not bars:  # the total is known once the tasks are resolved
            bars.append(Progress(total, "episodes", enabled=args.progress))
        bars[0].set(done, note=f"success {successes} invalid {invalid}")

    try:
        config = SuiteConfig(
            tasks=(args.tasks,),
            episodes_per_task=args.episodes_per_task,
            num_envs=args.num_envs,
            seed=args.seed,
            max_steps=args.steps,
            retries_invalid=args.retries_invalid,
            policy=args.policy,
        )
        result = _run(args, config, factory, on_progress)
    except SuiteInterrupted as stop:
        for bar in bars:
            bar.close()
        print(render_suite(stop.result.summary), file=sys.stderr)
        summary = stop.result.summary
        print(
            f"interrupted: {summary['done']} of {summary['total']} episodes done, written to "
            f"{args.out}; run the same command with --resume to finish",
            file=sys.stderr,
        )
        return 130
    except (DrumsError, ValueError) as exc:
        return fail("eval", exc, args)
    finally:
        for bar in bars:
            bar.close()
    if args.json:
        dump_json(result.summary)
    else:
        print(render_suite(result.summary))
        print(f"\nwrote {result.folder / 'episodes.jsonl'} and {result.folder / 'summary.json'}")
    if args.record is not None:  # "" with --tasks: the recordings are under --out
        report = write_report(result.folder)
        if report is not None and not args.json:
            print(f"report   {report} (open it in a browser)")
    return 0


def _run(
    args: argparse.Namespace, config: SuiteConfig, factory: SpecPolicyFactory, on_progress: Any
) -> SuiteResult:
    if args.ray is None:
        return run_suite(
            config, factory, args.out, resume=args.resume, url=args.url, token=args.token,
            on_progress=on_progress, record=args.record is not None,
        )
    if args.record is not None:
        raise ValueError("--record is not supported with --ray (the workers' files would "
                         "stay on their machines)")
    from ..integrations.ray import run_suite_on_ray

    return run_suite_on_ray(
        config, factory, args.out, resume=args.resume, url=args.url, token=args.token,
        address=None if args.ray == "local" else args.ray, on_progress=on_progress,
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _row(name: str, s: dict[str, Any]) -> list[str]:
    ci = s["ci95"]
    reasons = ", ".join(f"{k} x{v}" for k, v in s["invalid"].items())
    invalid = s["episodes"] - s["valid"]
    return [
        name,
        str(s["episodes"]),
        f"{s['success']}/{s['valid']}",
        _pct(s["success_rate"]),
        f"{_pct(ci[0])} - {_pct(ci[1])}" if ci else "-",
        str(invalid) + (f" ({reasons})" if reasons else ""),
        "-" if s["mean_steps"] is None else f"{s['mean_steps']:.1f}",
        "-" if s["mean_step_latency_s"] is None else f"{1000 * s['mean_step_latency_s']:.0f} ms",
    ]


def render_suite(summary: dict[str, Any]) -> str:
    """The final table of a suite: one row per task, and a total row."""
    rows = [_row(short, stats) for short, stats in summary["tasks"].items()]
    rows.append(_row("total", summary["overall"]))
    table = format_table(
        ["task", "episodes", "success", "rate", "95% Wilson CI", "invalid", "steps",
         "step latency"],
        rows,
        align="lrrrrlrr",
    )
    args = summary.get("args", {})
    head = (
        f"suite    {summary['done']}/{summary['total']} episodes, "
        f"{len(summary['tasks'])} tasks x {args.get('episodes_per_task', '?')}, "
        f"policy {args.get('policy', '?')} (seed {args.get('seed', '?')}); success over "
        "valid episodes, invalid ones counted by reason"
    )
    return head + "\n\n" + table
