"""``drums-gym rollout``: GRPO-style groups of rollouts forked from one desktop.

The loop of the Drums guide, in Gymnasium terms: make a `DrumsDesktopEnv`, reset it
(and run the optional ``--prefix`` actions on it), fork it into a vector env of ``--n``
children, run the policy in every child until its episode ends, and report each group:
how many members were valid, their scores, and their group-relative advantages. Invalid
members (a failed gate, a crash, a failed fork child...) get no advantage and stay out of
the mean; their reasons are counted.

    drums-gym rollout --task e0df059f --n 8 --groups 2 --steps 15 --policy random
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from typing import Any

from .._loop import check_capacity
from ..client import DrumsError, connect
from ..evaluation.plan import resolve_task
from ..rollouts import GroupOutcome, MemberOutcome, iter_groups, run_groups, start_parent, total
from ._common import (
    add_connection_args,
    add_model_args,
    add_output_args,
    dump_json,
    fail,
    fit_to_terminal,
    info_at,
    model_options,
    positive_int,
)
from ._progress import Progress
from ._table import format_table
from ._view import ViewLinks, add_view_arg
from .policies import load_policies, needs_accessibility

# GroupOutcome, MemberOutcome and run_groups live in drums_gym.rollouts (re-exported here)
__all__ = ["GroupOutcome", "MemberOutcome", "add_parser", "render", "run", "run_groups"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "rollout",
        help="GRPO-style groups of rollouts forked from one desktop",
        description=(
            "Reset one desktop for TASK, run the --prefix actions on it, then fork it into "
            "groups of --n children and run the policy in each until its episode ends. "
            "Prints each group's valid members, scores and group-relative advantages "
            "(invalid members are left out and their reasons counted)."
        ),
    )
    p.add_argument(
        "--task", default="e0df059f", help="task id or its first 8 characters (default e0df059f)"
    )
    p.add_argument("--n", type=positive_int, default=8, help="members per group (default 8)")
    p.add_argument("--groups", type=positive_int, default=2, help="groups (default 2)")
    p.add_argument(
        "--steps",
        type=positive_int,
        default=15,
        help="step budget of each member's episode (default 15)",
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
        "--prefix",
        action="append",
        default=[],
        metavar="CODE",
        help="pyautogui code run on the parent before forking (repeatable)",
    )
    add_view_arg(p)
    add_model_args(p)
    add_connection_args(p)
    add_output_args(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..envs import DrumsDesktopEnv

    for code in args.prefix:
        if code.strip().upper() in ("DONE", "FAIL"):
            return fail(
                "rollout",
                ValueError(f"--prefix {code!r}: a prefix cannot end the parent's episode"),
            )
    if len(args.prefix) >= args.steps:
        return fail(
            "rollout",
            ValueError(
                f"{len(args.prefix)} --prefix actions leave no step of the --steps {args.steps} "
                "budget (the parent's episode shares it)"
            ),
        )
    try:
        policies = load_policies(
            args.policy,
            args.seed,
            args.n,
            task=args.task,
            max_steps=args.steps - len(args.prefix),
            model=model_options(args),
        )
    except ValueError as exc:
        return fail("rollout", exc, args)

    def retry(reason: str | None) -> None:
        print(
            f"drums-gym rollout: the parent's episode is invalid ({reason}); resetting it",
            file=sys.stderr,
        )

    parent = None
    client = None
    progress: Progress | None = None
    started = time.perf_counter()
    try:
        client = connect(url=args.url, token=args.token)
        parent = DrumsDesktopEnv(
            resolve_task(client, args.task),  # the one unknown-task message
            client=client,
            max_steps=args.steps,
            accessibility=needs_accessibility(policies),
        )
        check_capacity(parent.client, args.n, name="--n")
        start_parent(parent, args.prefix, args.seed, on_retry=retry, label="--prefix")
        views = ViewLinks(args)
        if parent.slot is not None:
            views.show(client.url, "parent", parent.slot.id)

        def on_start(group: int, infos: Any) -> None:
            for i in range(args.n):
                views.show(client.url, f"group {group} member {i}",
                           info_at(infos, "slot_id", i))

        progress = Progress(args.groups * args.steps, "steps", enabled=args.progress)
        outcomes: list[GroupOutcome] = []
        bar = progress
        taken = 0

        def on_step(group: int, step: int) -> None:
            bar.set(taken + step, note=f"group {group}/{args.groups}")

        for outcome in iter_groups(
            parent, n=args.n, groups=args.groups, policy=policies, spec=args.policy,
            on_step=on_step, on_start=on_start,
        ):
            taken += outcome.steps
            bar.shrink(args.steps - outcome.steps)  # the budget this group did not use
            outcomes.append(outcome)
    except (DrumsError, ValueError) as exc:
        return fail("rollout", exc, args)
    finally:
        if progress is not None:
            progress.close()
        if parent is not None:
            parent.close()
        if client is not None:
            client.close()

    elapsed = time.perf_counter() - started
    summary = _summary(args, parent, outcomes, elapsed)
    if args.json:
        dump_json(summary)
    else:
        print(render(summary))
    return 0


# ---------------------------------------------------------------------------------- output


def _summary(
    args: argparse.Namespace, parent: Any, outcomes: list[GroupOutcome], elapsed: float
) -> dict[str, Any]:
    totals = total(outcomes).summary()
    totals["action_errors"] = sum(o.action_errors for o in outcomes)
    return {
        "task": parent.task_id,
        "env_id": f"Drums/{parent.task_id[:8]}",
        "instruction": parent.instruction,
        "policy": args.policy,
        "seed": args.seed,
        "n": args.n,
        "groups": [o.to_json() for o in outcomes],
        "steps": args.steps,
        "prefix": list(args.prefix),
        "total": totals,
        "elapsed_s": round(elapsed, 3),
    }


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    if math.isclose(value, 0.0, abs_tol=5e-3):
        value = 0.0  # no "-0.00"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def _cells(values: list[float | None], signed: bool) -> str:
    texts = [_num(v, signed) for v in values]
    width = max(len(t) for t in texts)
    return " ".join(t.rjust(width) for t in texts)


def _reasons(reasons: dict[str, int]) -> str:
    if not reasons:
        return "-"
    return ", ".join(
        f"{name} x{count}" for name, count in sorted(reasons.items(), key=lambda kv: -kv[1])
    )


def render(summary: dict[str, Any]) -> str:
    """The terminal report of a rollout summary: a header, one row per group, a total."""
    groups = summary["groups"]
    n_groups = len(groups)
    header = (
        f"rollout  {summary['env_id']}: {n_groups} group{'s' * (n_groups != 1)} x "
        f"{summary['n']} members, up to {summary['steps']} steps, policy {summary['policy']} "
        f"(seed {summary['seed']})"
    )
    lines = [header]
    lines.append("task     " + fit_to_terminal(summary["instruction"], used=9))
    if summary["prefix"]:
        lines.append("prefix   " + "; ".join(summary["prefix"]))
    lines.append("")
    # the errors column shows when a policy made mistakes (they are data, never invalid)
    show_errors = any(sum(g["action_errors"]) for g in groups)
    rows = []
    for g in groups:
        row = [
            str(g["group"]),
            f"{g['valid']}/{g['n']}",
            _num(g["mean_score"]),
            _cells(g["scores"], signed=False),
            _cells(g["advantages"], signed=True),
        ]
        if show_errors:
            row.append(str(sum(g["action_errors"])))
        rows.append([*row, _reasons(g["invalid_reasons"])])
    headers = ["group", "valid", "mean", "scores", "advantages"]
    headers += ["errors"] if show_errors else []
    lines.append(
        format_table(
            [*headers, "invalid"], rows, align="rrrll" + "r" * show_errors + "l"
        )
    )
    total = summary["total"]
    successes = total["successes"]
    reasons = Counter(total["invalid_reasons"])
    lines.append("")
    lines.append(
        f"total    {total['valid']}/{total['n']} valid, mean score {_num(total['mean_score'])}, "
        f"{successes} success{'es' * (successes != 1)}, "
        f"{total['action_errors']} action error{'s' * (total['action_errors'] != 1)}, "
        f"invalid: {_reasons(dict(reasons))}, {summary['elapsed_s']:.1f}s"
    )
    lines.append(
        "         advantage = (score - group mean) / (group std + 1e-6) over valid "
        "members; '-': invalid, left out"
    )
    if show_errors:
        lines.append(
            "         errors = actions the env rejected (policy mistakes: data, the episode "
            "goes on)"
        )
    return "\n".join(lines)
