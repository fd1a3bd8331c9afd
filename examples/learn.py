"""PPO learns a desktop task from one demonstration, on a 2-core machine, in minutes.

    python examples/learn.py --task e0df059f --minutes 10 --seed 0

The pieces (docs/learning.md): a scripted solver's run is the demonstration; its states are
saved along the way (`record_states`) and a `ReverseCurriculum` starts episodes from the
last of them, moving the start back as the agent succeeds; actions are the screen's
elements (`A11yActions`: a click, double-click or right-click per element slot, DONE and
FAIL, the demo's keys and typed strings, the instruction's quoted strings) and the
observation is their feature vector (`ElementFeatures`), the action mask included, which
the policy here applies to its logits (plain Stable-Baselines3 PPO, MlpPolicy). The demo
also warm-starts the policy by behaviour cloning, until the policy's most likely action at
each demo state is the demo's (at most ``--bc`` updates), and again after each PPO round
(at least ``--bc-every`` updates), which keeps PPO from unlearning it; ``--bc 0`` is pure
RL from the curriculum alone. Every evaluation runs the deterministic policy from the
task's initial state on a second desktop and prints a line; the last line is the success
rate over the last evaluation episodes. The curve is written as JSON, CSV and (with
matplotlib, the ``[learn]`` extra) PNG under ``--out``.

Needs the ``[sb3]`` extra (stable-baselines3, torch).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from drums_gym.client import Client, connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.solvers import get_solver, routes
from drums_gym.wrappers import (
    KINDS,
    A11yActions,
    ElementFeatures,
    ElementSlots,
    ReverseCurriculum,
    StartState,
    click_of,
    evaluate_from_initial,
    quoted_strings,
    record_states,
)

SCREEN = (1024, 768)  # small frames: faster steps; every position comes from the tree
SAVED_STATES = 7  # the local host keeps 8 saved states per workspace by default


def click_kind(code: str) -> str | None:
    """``"click"``, ``"double_click"`` or ``"right_click"`` for one plain click, else None."""
    click = click_of(code)
    return None if click is None else click[0]


def make_env(client: Client, task: str, max_steps: int) -> DrumsDesktopEnv:
    return DrumsDesktopEnv(task, client=client, accessibility=True, screenshots=False,
                           wait_s=0.0, max_steps=max_steps, screen=SCREEN)


def demonstration(client: Client, task: str, route: str | None) -> list[str]:
    """The solver's pyautogui strings on the task's initial desktop (one episode)."""
    env = make_env(client, task, 40)
    try:
        solver = get_solver(task, route)
        obs, info = env.reset()
        codes: list[str] = []
        while True:
            code = solver(obs, "", info)
            codes.append(code)
            obs, reward, terminated, truncated, info = env.step(code)
            if terminated or truncated:
                break
        if float(reward) < 1.0:
            raise SystemExit(f"the {solver.route} solver of {task} did not solve it (score "
                             f"{reward}): no demonstration to learn from")
        return codes
    finally:
        env.close()


@dataclass(frozen=True)
class Lesson:
    """What one demonstration gives: the training and evaluation envs (the same actions,
    one slot numbering), the demo's start states and its (features, action) pairs."""

    demo: list[str]
    route: str
    max_steps: int
    train: A11yActions
    evaluation: A11yActions
    states: list[StartState]
    pairs: list[tuple[np.ndarray, int]]


def prepare(client: Client, task: str, route: str | None, slots: int) -> Lesson:
    """Run the solver once (the demo), build the action space from it, then replay it on
    the training desktop, saving its start states (at most :data:`SAVED_STATES`) and the
    features the policy sees before each demo action."""
    demo = demonstration(client, task, route)
    kinds = sorted({k for k in map(click_kind, demo) if k}, key=list(KINDS).index)
    codes = list(dict.fromkeys(c for c in demo if c not in ("DONE", "FAIL", "WAIT")
                               and click_kind(c) is None))
    max_steps = len(demo) + 3
    numbering = ElementSlots(slots)  # one numbering for both desktops

    def wrap(env: DrumsDesktopEnv) -> A11yActions:
        texts = [t for t in quoted_strings(env.instruction)
                 if f"pyautogui.write({t!r})" not in codes]
        return A11yActions(env, numbering, kinds=kinds or ("click",), words=("DONE", "FAIL"),
                           keys=("enter", "escape"), texts=texts, codes=codes)

    train = wrap(make_env(client, task, max_steps))
    try:
        solver = get_solver(task, route)
        seen = ElementFeatures(train, with_mask=True)  # the demo's observations, for --bc
        pairs: list[tuple[np.ndarray, int]] = []

        def demo_index(obs: Any, info: dict[str, Any]) -> int:
            index = train.index_of(solver(obs, "", info))
            if index is None:
                raise SystemExit(f"a demo action of {task} is not in the action space")
            pairs.append((seen.observation(obs), index))
            return index

        steps_to_save = len(demo) - 1
        at = None
        if steps_to_save > SAVED_STATES:  # the last ones, where the curriculum spends most
            at = set(np.linspace(1, steps_to_save, SAVED_STATES).round().astype(int).tolist())
        states = record_states(train, demo_index, at=at)
        evaluation = wrap(make_env(client, task, max_steps))
    except BaseException:
        train.close()
        raise
    return Lesson(demo, solver.route, max_steps, train, evaluation, states, pairs)


def choose(client: Client, task: str, route: str | None, slots: int) -> Lesson:
    """The lesson of ``route``; without one, of the first of the task's routes (GUI first)
    whose demo the features can follow (no two of its states look alike with different
    actions, :func:`look_alike`: 7688b85f's GUI route cuts a file, which no feature
    shows), else of the first route."""
    if route is not None:
        return prepare(client, task, route, slots)
    rejected: list[Lesson] = []
    try:
        for candidate in routes(task) or (None,):  # no route: prepare says there is no solver
            lesson = prepare(client, task, candidate, slots)
            if not look_alike(lesson.pairs):
                return lesson
            rejected.append(lesson)
        return rejected.pop(0)
    finally:
        for lesson in rejected:
            lesson.evaluation.close()
            lesson.train.close()


def new_model(env: Any, seed: int) -> Any:
    """learn.py's PPO: the masked MlpPolicy 128x128, 64 steps a round."""
    from stable_baselines3 import PPO

    return PPO(masked_policy_class(), env, n_steps=64, batch_size=64, n_epochs=6,
               learning_rate=1e-3, gamma=0.9, gae_lambda=0.9, ent_coef=0.05,
               policy_kwargs={"net_arch": [128, 128]}, seed=seed, verbose=0, device="cpu")


def masked_policy_class() -> type:
    """An MlpPolicy that masks its logits with the action mask the observation ends with."""
    import torch
    from stable_baselines3.common.policies import ActorCriticPolicy

    class MaskedMlpPolicy(ActorCriticPolicy):
        _mask: Any = None

        def _stash(self, obs: Any) -> None:
            self._mask = obs[..., -int(self.action_space.n):] > 0.5

        def forward(self, obs: Any, deterministic: bool = False) -> Any:
            self._stash(obs)
            return super().forward(obs, deterministic)

        def evaluate_actions(self, obs: Any, actions: Any) -> Any:
            self._stash(obs)
            return super().evaluate_actions(obs, actions)

        def get_distribution(self, obs: Any) -> Any:
            self._stash(obs)
            return super().get_distribution(obs)

        def _get_action_dist_from_latent(self, latent_pi: Any) -> Any:
            dist = super()._get_action_dist_from_latent(latent_pi)
            if self._mask is not None:
                logits = dist.distribution.logits.masked_fill(~self._mask, -1e9)
                dist.distribution = torch.distributions.Categorical(logits=logits)
            return dist

    return MaskedMlpPolicy


@dataclass(frozen=True)
class Cloning:
    """What behaviour cloning did: its updates, the last loss, and at how many of the
    demo's states the policy's most likely action is now the demo's (``matched`` of
    ``states``; the states that look alike, ``alike``, cannot all be followed and are not
    counted)."""

    updates: int
    loss: float
    matched: int
    states: int
    alike: int


def clone(model: Any, pairs: list[tuple[np.ndarray, int]], *, at_least: int,
          at_most: int) -> Cloning:
    """Behaviour cloning of the demo's (observation, action) pairs into the policy: gradient
    steps of the log-likelihood, at least ``at_least``, then on until the demo's action has
    a probability over one half (so it is the deterministic policy's action) at every demo
    state that does not look like another (:func:`look_alike`), at most ``at_most``.

    A fixed number of updates is not enough: when two demo states differ in one feature
    of ~100 (a terminal task, before and after typing its command), the freshly
    initialised policy sits at a saddle for hundreds of updates, answering both actions
    with probability 1/2 (loss ln 2), and PPO, rewarded for the last action, then tips
    the initial state to it too."""
    import torch

    obs = torch.as_tensor(np.stack([o for o, _ in pairs]))
    actions = torch.as_tensor([a for _, a in pairs])
    alike = {k for pair in look_alike(pairs) for k in pair}
    rows = torch.as_tensor([k for k in range(len(pairs)) if k not in alike], dtype=torch.long)
    updates = 0
    while True:
        dist = model.policy.get_distribution(obs)
        loss = -dist.log_prob(actions).mean()
        matched = int((dist.distribution.probs[rows, actions[rows]] > 0.5).sum())
        if updates >= at_most or (updates >= at_least and matched == len(rows)):
            return Cloning(updates, float(loss.detach()), matched, len(rows), len(alike))
        model.policy.optimizer.zero_grad()
        loss.backward()
        model.policy.optimizer.step()
        updates += 1


def look_alike(pairs: list[tuple[np.ndarray, int]]) -> list[tuple[int, int]]:
    """The demo steps ``(i, j)`` whose observations are equal but whose actions differ:
    no policy of the features can follow the demo there."""
    return [(i, j) for i, (oi, ai) in enumerate(pairs) for j, (oj, aj) in enumerate(pairs)
            if i < j and ai != aj and np.array_equal(oi, oj)]


def write_curve(out: Path, task: str, curve: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "curve.json").write_text(json.dumps({"task": task, "curve": curve, **summary},
                                               indent=1))
    with (out / "curve.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(curve[0]) if curve else ["steps"])
        writer.writeheader()
        writer.writerows(curve)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib is missing (pip install 'drums-gym[learn]'): no curve.png",
              flush=True)
        return
    fig, ax = plt.subplots(figsize=(6, 3.5))
    minutes = [p["minutes"] for p in curve]
    ax.plot(minutes, [p["initial_success"] for p in curve], label="from the initial state")
    ax.plot(minutes, [p["stage_fraction"] for p in curve], "--",
            label="curriculum: start step / demo length")
    ax.set_xlabel("minutes")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"PPO on {task}: {summary['success']:.2f} over the last "
                 f"{summary['episodes']} episodes")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=80)
    plt.close(fig)


def make_parser() -> argparse.ArgumentParser:
    """learn.py's command line (its defaults are the settings the docs' figures use)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="e0df059f", help="task id (8 characters)")
    parser.add_argument("--minutes", type=float, default=10.0, help="wall-clock budget")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--route", default=None, help="the demo's solver route (gui, terminal)")
    parser.add_argument("--slots", type=int, default=64, help="element slots")
    parser.add_argument("--eval-episodes", type=int, default=2, help="episodes per evaluation")
    parser.add_argument("--last", type=int, default=10,
                        help="the evaluation episodes the final success rate is over")
    parser.add_argument("--stop-at", type=float, default=0.9,
                        help="stop once the last episodes' success rate reaches this")
    parser.add_argument("--out", type=Path, default=None, help="where the curve goes")
    parser.add_argument("--bc-every", type=int, default=10, metavar="UPDATES",
                        help="behaviour-cloning updates after each PPO round, at least; then "
                             "on until the policy follows the demo again (with --bc)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (the policy is small: on a busy machine more "
                             "threads mostly wait for each other)")
    parser.add_argument("--show", action="store_true",
                        help="print the actions of each evaluation's episodes")
    parser.add_argument("--bc", type=int, default=2000, metavar="UPDATES",
                        help="clone the demo into the policy until it follows it, at most "
                             "this many updates at a time (0: pure RL)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.minutes <= 0:
        parser.error(f"--minutes must be > 0, got {args.minutes}")
    if args.threads < 1:
        parser.error(f"--threads must be >= 1, got {args.threads}")
    import torch

    torch.set_num_threads(args.threads)  # 200 cloning updates: 2.6 s on 1, 55 s on 2 at load 10

    start = time.monotonic()
    out = args.out or Path(f"learn-{args.task}")
    client = connect()
    envs: list[Any] = []
    try:
        lesson = choose(client, args.task, args.route, args.slots)
        envs.extend([lesson.train, lesson.evaluation])
        demo, states, pairs = lesson.demo, lesson.states, lesson.pairs
        curriculum = ReverseCurriculum(lesson.train, states, threshold=0.8, window=8,
                                       replay=0.2)
        curriculum.reset(seed=args.seed)
        env = ElementFeatures(curriculum, with_mask=True)
        evaluation = ElementFeatures(lesson.evaluation, with_mask=True)
        print(f"task {args.task}: demo of {len(demo)} actions ({lesson.route} solver), "
              f"{len(states)} start states, {env.action_space.n} actions, observation "
              f"{env.observation_space.shape[0]} floats, max {lesson.max_steps} steps",
              flush=True)
        if args.route is None and lesson.route != routes(args.task)[0]:
            print(f"note: the {routes(args.task)[0]} route's demo has states that look alike "
                  f"(the same features, other actions): learning from the {lesson.route} "
                  f"route's", flush=True)
        for i, j in look_alike(pairs):
            print(f"note: the demo's states before actions {i + 1} and {j + 1} have the same "
                  f"features but the demo acts differently: no policy of them can follow it",
                  flush=True)
        model = new_model(env, args.seed)
        if args.bc:
            cloned = clone(model, pairs, at_least=args.bc_every, at_most=args.bc)
            print(f"behaviour cloning: {cloned.updates} updates on the demo's {len(pairs)} "
                  f"steps (loss {cloned.loss:.3f}; the policy follows the demo at "
                  f"{cloned.matched} of its {cloned.states} distinct states)", flush=True)

        played: list[int] = []  # the last evaluation episode's actions (--show)

        def act(obs: Any, info: dict[str, Any]) -> int:
            action, _ = model.predict(obs, deterministic=True)
            played.append(int(action))
            return int(action)

        last: deque[bool] = deque(maxlen=args.last)
        curve: list[dict[str, Any]] = []
        budget = args.minutes * 60.0
        while True:
            model.learn(total_timesteps=64, reset_num_timesteps=False)
            refresh = 0
            if args.bc:  # keep the demo in the policy as PPO moves it
                refresh = clone(model, pairs, at_least=args.bc_every, at_most=args.bc).updates
            played.clear()
            result = evaluate_from_initial(evaluation, act, args.eval_episodes)
            last.extend([True] * result.successes + [False] * (result.valid - result.successes))
            minutes = (time.monotonic() - start) / 60.0
            point = {
                "steps": int(model.num_timesteps), "minutes": round(minutes, 3),
                "episodes": curriculum.episodes, "stage": curriculum.stage,
                "stage_fraction": round(
                    (states[curriculum.stage - 1].step if curriculum.stage else 0) / len(demo), 3),
                "initial_success": result.rate if result.rate is not None else 0.0,
                "last_success": round(sum(last) / len(last), 3) if last else 0.0,
                "bc_updates": refresh,
            }
            curve.append(point)
            print(f"steps {point['steps']:5d}  minutes {minutes:5.2f}  episodes "
                  f"{point['episodes']:4d}  curriculum stage {curriculum.stage}/"
                  f"{curriculum.stages}  from the initial state {point['initial_success']:.2f} "
                  f"(last {len(last)}: {point['last_success']:.2f})", flush=True)
            if args.show:
                print("  played: " + "; ".join(map(lesson.evaluation.action_meaning, played)))
            done = len(last) == args.last and sum(last) >= args.stop_at * args.last
            if done or time.monotonic() - start >= budget:
                break
        success = sum(last) / len(last) if last else 0.0
        minutes = (time.monotonic() - start) / 60.0
        summary = {"success": success, "episodes": len(last), "steps": int(model.num_timesteps),
                   "minutes": round(minutes, 2), "demo_length": len(demo),
                   "start_states": len(states), "seed": args.seed}
        write_curve(out, args.task, curve, summary)
        print(f"curve: {out}/curve.json, {out}/curve.csv" +
              (f", {out}/curve.png" if (out / "curve.png").exists() else ""), flush=True)
        print(f"success {success:.2f} over the last {len(last)} episodes from the task's "
              f"initial state (steps {model.num_timesteps}, minutes {minutes:.1f})", flush=True)
        return 0
    finally:
        for e in reversed(envs):
            e.close()
        client.close()


if __name__ == "__main__":
    sys.exit(main())
