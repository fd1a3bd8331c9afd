"""``drums-gym eval``: vectorized evaluation of a policy on a task, or a suite of tasks.

With ``--tasks`` it runs a suite (see :mod:`drums_gym.cli._suite`):

    drums-gym eval --tasks all --episodes-per-task 3 --num-envs 8 --out runs/s1 --resume

Without, it runs ``gym.make_vec("Drums/<task>", num_envs=K)`` (children forked from one desktop,
``NEXT_STEP`` autoreset) until ``--episodes`` episodes have finished, then reports the
success rate over VALID episodes (score >= 1.0) with a 95% Wilson interval, the invalid
rate by reason, and the mean step latency.

    drums-gym eval --task e0df059f --episodes 20 --num-envs 4 --policy random
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from ..client import DrumsError
from ..evaluation import EpisodeResult, Evaluation, evaluate, make_envs
from ..evaluation.recording import step_extras
from ..outcomes import wilson_interval
from ._common import (
    add_connection_args,
    add_model_args,
    add_output_args,
    dump_json,
    fail,
    fit_to_terminal,
    model_options,
    positive_int,
)
from ._progress import Progress
from ._view import ViewLinks, add_view_arg
from .policies import load_policies
from .report import write_report

# wilson_interval lives in drums_gym.outcomes (re-exported here)
__all__ = ["add_parser", "render", "run", "wilson_interval"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "eval",
        help="vectorized evaluation: success rate over valid episodes",
        description=(
            "Run the policy in a vector env of --num-envs desktops until --episodes episodes "
            "have finished. Success rate is over VALID episodes (score >= 1.0), with a 95% "
            "Wilson interval; invalid episodes are counted by reason, never scored as 0. "
            "With --tasks: a suite of tasks x --episodes-per-task on --num-envs desktops "
            "shared across tasks, written as it goes to --out DIR (episodes.jsonl, "
            "summary.json) and resumable with --resume."
        ),
    )
    p.add_argument(
        "--task", default="e0df059f", help="task id or its first 8 characters (default e0df059f)"
    )
    p.add_argument(
        "--episodes", type=positive_int, default=None,
        help="episodes to finish, with --task (default 8)",
    )
    suite = p.add_argument_group("suites (--tasks)")
    suite.add_argument(
        "--tasks",
        default=None,
        metavar="all|ID,ID,...|FILE",
        help="run a suite: every task the host serves, a list of ids, or an OSWorld-style "
        "test_all.json (domain -> list of ids); needs --out",
    )
    suite.add_argument(
        "--episodes-per-task", type=positive_int, default=1, metavar="K",
        help="episodes of each task (default 1); episode k of a task gets a seed derived "
        "from (--seed, task, k)",
    )
    suite.add_argument(
        "--out", default=None, metavar="DIR",
        help="the suite's folder: episodes.jsonl (one line per finished episode, written "
        "at once) and summary.json (rewritten as the run goes); with --task: the folder of "
        "summary.json, report.html and (with --record) the recordings",
    )
    suite.add_argument(
        "--resume", action="store_true",
        help="finish the suite already in --out: what is done is skipped",
    )
    suite.add_argument(
        "--retries-invalid", type=_non_negative_int, default=2, metavar="R",
        help="attempts after an invalid episode (a fresh desktop, the same seed); the "
        "last is reported invalid with its reason (default 2)",
    )
    suite.add_argument(
        "--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
        help="run the suite's workers on Ray (pip install 'drums-gym[ray]'): a local Ray "
        "without ADDRESS, else ray.init(address=ADDRESS) (e.g. 'auto' on a cluster node, "
        "or ray://HEAD:10001)",
    )
    p.add_argument(
        "--num-envs", type=positive_int, default=4, help="desktops stepped together (default 4)"
    )
    p.add_argument(
        "--steps", type=positive_int, default=15, help="step budget of each episode (default 15)"
    )
    p.add_argument(
        "--policy",
        default="random",
        help="'random' (default); 'scripted' (the task's scripted solver: its GUI route "
        "when it fits --steps, else the terminal route), 'scripted:gui' or "
        "'scripted:terminal'; or MODULE:CALLABLE or FILE.py:CALLABLE (a class or a "
        "factory taking seed= is called with --seed; see drums_gym.cli.policies); "
        "or openai:MODEL (a model behind --base-url: docs/models.md)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the policy (default 0)")
    p.add_argument(
        "--record",
        default=None,
        nargs="?",
        const="",
        metavar="DIR",
        help="with --tasks (no DIR): record each counted episode under "
        "OUT/record/<task8>/episode-<k>/. With --task (DIR, or --out DIR): record every "
        "episode (frames, steps.jsonl with what the policy said at each step, GIF) of "
        "sub-env k under "
        "DIR/env-<k>/episode-NNNNNN/ (the same forked desktops as without --record), and "
        "DIR/summary.json: the arguments and each counted episode's result and folder; "
        "an episode cut off at the end is marked unfinished.json",
    )
    add_view_arg(p)
    add_model_args(p)
    add_connection_args(p)
    add_output_args(p)
    p.set_defaults(run=run)


class _Recording:
    """The ``--record`` folder: the recorder, which folder each counted episode is in,
    and ``summary.json`` (arguments, statistics, per-episode results) when done."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.recorder: Any = None
        self.counted: list[tuple[EpisodeResult, Path | None]] = []

    def wrap(self, envs: Any) -> Any:
        from ..wrappers import VectorRecordTrajectory

        self.recorder = VectorRecordTrajectory(envs, self.folder)
        return self.recorder

    def note(self, index: int, policy: Any) -> None:
        """(before the step) what sub-env ``index``'s policy said about its action: the
        step's ``policy`` in ``steps.jsonl`` (a model's reply, tokens, latency)."""
        if self.recorder is not None:
            self.recorder.note_policy(index, step_extras(policy))

    def count(self, result: EpisodeResult) -> None:
        """(at the step the episode ended) remember the folder it was recorded in."""
        dirs = self.recorder.episode_dirs if self.recorder is not None else []
        self.counted.append((result, dirs[result.env_index] if dirs else None))

    def write_summary(self, args: argparse.Namespace, summary: dict[str, Any]) -> Path:
        """Write ``summary.json`` (after the recorder closed); returns its path."""
        from ..wrappers import UNFINISHED

        def rel(path: Path) -> str:
            return path.relative_to(self.folder).as_posix()

        counted = {p for _, p in self.counted if p is not None}
        others = [
            {"folder": rel(p), "finished": not (p / UNFINISHED).exists()}
            for p in sorted(self.folder.glob("env-*/episode-*"))
            if p not in counted
        ]
        data = {
            # the token is never written
            "arguments": {k: v for k, v in vars(args).items() if k not in ("run", "token")},
            "statistics": {k: v for k, v in summary.items() if k != "record"},
            "episodes": [
                {**r.to_json(), "folder": None if p is None else rel(p)}
                for r, p in self.counted
            ],
            "not_counted": others,
        }
        self.folder.mkdir(parents=True, exist_ok=True)  # --out DIR without --record
        path = self.folder / "summary.json"
        path.write_text(json.dumps(data, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        self.unfinished = sum(not o["finished"] for o in others)
        self.uncounted = len(others)
        return path


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


#: suite flags and their defaults: given without --tasks, they are an error
_SUITE_ONLY = {"resume": False, "ray": None}


def run(args: argparse.Namespace) -> int:
    if args.tasks is not None:
        if args.episodes is not None:
            return fail("eval", ValueError("--episodes is for --task; with --tasks use "
                                           "--episodes-per-task"))
        if args.record:
            return fail("eval", ValueError("with --tasks, --record takes no folder: "
                                           "recordings go to --out DIR/record/"))
        from ._suite import run_suite_command

        return run_suite_command(args)
    for name, default in _SUITE_ONLY.items():
        if getattr(args, name) != default:
            flag = "--" + name.replace("_", "-")
            return fail("eval", ValueError(f"{flag} is for suites: give --tasks"))
    if args.episodes is None:
        args.episodes = 8
    if args.record and args.out is not None and Path(args.record) != Path(args.out):
        return fail("eval", ValueError(f"--record {args.record} and --out {args.out} name "
                                       "two folders: give one (--record --out DIR)"))
    if args.record == "" and args.out is None:
        return fail("eval", ValueError("--record needs a folder with --task: --record DIR, "
                                       "or --record --out DIR"))
    folder = args.record or args.out  # --out DIR alone: summary.json and the report
    try:
        policies = load_policies(
            args.policy,
            args.seed,
            args.num_envs,
            task=args.task,
            max_steps=args.steps,
            model=model_options(args),
        )
    except ValueError as exc:
        return fail("eval", exc, args)

    envs = None
    progress: Progress | None = None
    recording = None if folder is None else _Recording(Path(folder))
    started = time.perf_counter()
    try:
        envs = make_envs(
            args.task,
            args.num_envs,
            max_steps=args.steps,
            url=args.url,
            token=args.token,
            policy=policies,
            wrap=None if recording is None or args.record is None else recording.wrap,
            name="--num-envs",
        )
        progress = Progress(args.episodes, "episodes", enabled=args.progress)
        bar = progress

        def on_episode(result: EpisodeResult) -> None:
            bar.update(1)
            if recording is not None:
                recording.count(result)

        views = ViewLinks(args)
        host_url = _host_url(envs)

        def on_start(index: int, info: Any) -> None:
            views.show(host_url, f"env {index}", info.get("slot_id"))

        evaluation = evaluate(
            envs, policies, args.episodes, spec=args.policy, seed=args.seed,
            on_episode=on_episode, on_action=None if recording is None else recording.note,
            on_start=on_start,
        )
        task_id, instruction = _task_of(envs, args.task)
    except (DrumsError, ValueError) as exc:
        return fail("eval", exc, args)
    finally:
        if progress is not None:
            progress.close()
        if envs is not None:
            envs.close()

    summary = _summary(
        args, f"Drums/{task_id[:8]}", task_id, instruction, evaluation,
        time.perf_counter() - started,
    )
    if recording is not None:
        path = recording.write_summary(args, summary)
        summary["record"] = {
            "folder": str(recording.folder),
            "summary": str(path),
            "not_counted": recording.uncounted,
            "unfinished": recording.unfinished,
        }
        report = write_report(recording.folder)
        summary["record"]["report"] = None if report is None else str(report)
    if args.json:
        dump_json(summary)
    else:
        print(render(summary))
    return 0


def _host_url(envs: Any) -> str:
    """The base URL of the host the envs' desktops are on (the fork parent's client)."""
    base = envs.unwrapped
    env = getattr(base, "parent", None)
    if env is None and getattr(base, "envs", None):
        env = base.envs[0].unwrapped
    client = getattr(env, "client", None)
    return str(getattr(client, "url", ""))


def _task_of(envs: Any, default: str) -> tuple[str, str]:
    """(task id, instruction) of the envs under evaluation: the fork parent's, or the
    first sub-env's."""
    base = envs.unwrapped
    env = getattr(base, "parent", None)
    if env is None and getattr(base, "envs", None):
        env = base.envs[0].unwrapped
    return str(getattr(env, "task_id", default)), str(getattr(env, "instruction", ""))


# ---------------------------------------------------------------------------------- output


def _summary(
    args: argparse.Namespace,
    env_id: str,
    task_id: str,
    instruction: str,
    evaluation: Evaluation,
    elapsed: float,
) -> dict[str, Any]:
    stats = evaluation.summary.to_json()
    return {
        "env_id": env_id,
        "task": task_id,
        "instruction": instruction,
        "policy": args.policy,
        "seed": args.seed,
        "num_envs": args.num_envs,
        "steps": args.steps,
        **stats,
        "latency_ms": evaluation.timings.mean_ms(),
        "vector_steps": evaluation.vector_steps,
        "record": args.record,
        "elapsed_s": round(elapsed, 3),
    }


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def render(summary: dict[str, Any]) -> str:
    """The terminal report of an evaluation summary."""
    s = summary
    lines = [
        f"eval     {s['env_id']}: {s['episodes']} episodes on {s['num_envs']} envs, "
        f"up to {s['steps']} steps, policy {s['policy']} (seed {s['seed']})",
        "task     " + fit_to_terminal(s["instruction"], used=9),
        "",
    ]
    ci = s["success_ci95"]
    ci_text = f"95% Wilson CI {_pct(ci[0])} - {_pct(ci[1])}" if ci else "no valid episode"
    reasons = ", ".join(f"{k} x{v}" for k, v in s["invalid_reasons"].items())
    lat = s["latency_ms"]
    rows = [
        (
            "success rate",
            _pct(s["success_rate"]),
            f"{s['successes']} of {s['valid']} valid episodes ({ci_text})",
        ),
        (
            "invalid rate",
            _pct(s["invalid_rate"]),
            f"{s['invalid']} of {s['episodes']} episodes" + (f": {reasons}" if reasons else ""),
        ),
        (
            "mean score",
            "-" if s["mean_score"] is None else f"{s['mean_score']:.2f}",
            "over valid episodes",
        ),
        (
            "mean length",
            "-" if s["mean_length"] is None else f"{s['mean_length']:.1f}",
            "steps, valid episodes",
        ),
        (
            "step latency",
            _ms(lat["step"]),
            f"action {_ms(lat['action'])} + observe {_ms(lat['observe'])}; "
            f"verify {_ms(lat['verify'])} at episode end",
        ),
        (
            "action errors",
            str(s["action_errors"]),
            "actions the env rejected (policy mistakes: data, the episode goes on)",
        ),
        ("wall time", f"{s['elapsed_s']:.1f}s", f"{s['vector_steps']} vector steps"),
    ]
    record = s["record"]
    if record:
        extra = ""
        if record["not_counted"]:
            extra = (
                f"; {record['not_counted']} more episode folder"
                f"{'s' * (record['not_counted'] != 1)} not counted "
                f"({record['unfinished']} unfinished, marked unfinished.json)"
            )
        rows.append(
            ("recorded", "", f"{record['summary']}: {s['episodes']} counted episodes{extra}")
        )
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    lines.extend(f"{a.ljust(w0)}  {b.rjust(w1)}  {c}".rstrip() for a, b, c in rows)
    return "\n".join(lines)
