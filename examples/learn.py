"""PPO learns a desktop task from one demonstration, on a 2-core machine, in minutes.

    python examples/learn.py --task e0df059f --minutes 10 --seed 0

The pieces (docs/learning.md): a scripted solver's run is the demonstration; its states are
saved along the way (`record_states`) and a `ReverseCurriculum` starts episodes from the
last of them, moving the start back as the agent succeeds; actions are the screen's
elements (`A11yActions`: a click, double-click or right-click per element slot, DONE and
FAIL, the demo's keys and typed strings, the instruction's quoted strings) and the
observation is their feature vector (`ElementFeatures`), the action mask included, which
the policy here applies to its logits (plain Stable-Baselines3 PPO, MlpPolicy). The demo
also warm-starts the policy by behaviour cloning (``--bc`` updates, then ``--bc-every``
after each PPO round, which keeps PPO from unlearning it); ``--bc 0`` is pure RL from
the curriculum alone. Every
evaluation runs the deterministic policy from the task's initial state on a second
desktop and prints a line; the last line is the success rate over the last evaluation
episodes. The curve is written as JSON, CSV and (with matplotlib, the ``[learn]`` extra)
PNG under ``--out``.

Needs the ``[sb3]`` extra (stable-baselines3, torch).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from drums_gym.client import Client, connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.solvers import get_solver
from drums_gym.wrappers import (
    KINDS,
    A11yActions,
    ElementFeatures,
    ElementSlots,
    ReverseCurriculum,
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


def warm_start(model: Any, pairs: list[tuple[np.ndarray, int]], updates: int) -> float:
    """Behaviour cloning of the demo's (observation, action) pairs into the policy: a few
    gradient steps of the log-likelihood (PPO fine-tunes from there). Answers the loss."""
    import torch

    obs = torch.as_tensor(np.stack([o for o, _ in pairs]))
    actions = torch.as_tensor([a for _, a in pairs])
    loss = torch.zeros(())
    for _ in range(updates):
        loss = -model.policy.get_distribution(obs).log_prob(actions).mean()
        model.policy.optimizer.zero_grad()
        loss.backward()
        model.policy.optimizer.step()
    return float(loss.detach())


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


def main(argv: list[str] | None = None) -> int:
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
                        help="behaviour-cloning updates after each PPO round (with --bc)")
    parser.add_argument("--show", action="store_true",
                        help="print the actions of each evaluation's episodes")
    parser.add_argument("--bc", type=int, default=200, metavar="UPDATES",
                        help="warm-start the policy by cloning the demo (0: pure RL)")
    args = parser.parse_args(argv)
    if args.minutes <= 0:
        parser.error(f"--minutes must be > 0, got {args.minutes}")

    from stable_baselines3 import PPO

    start = time.monotonic()
    out = args.out or Path(f"learn-{args.task}")
    client = connect()
    envs: list[Any] = []
    try:
        demo = demonstration(client, args.task, args.route)
        kinds = sorted({k for k in map(click_kind, demo) if k}, key=list(KINDS).index)
        codes = list(dict.fromkeys(c for c in demo if c not in ("DONE", "FAIL", "WAIT")
                                   and click_kind(c) is None))
        max_steps = len(demo) + 3
        slots = ElementSlots(args.slots)  # one numbering for both desktops

        def wrap(env: DrumsDesktopEnv) -> A11yActions:
            texts = [t for t in quoted_strings(env.instruction)
                     if f"pyautogui.write({t!r})" not in codes]
            return A11yActions(env, slots, kinds=kinds or ("click",), words=("DONE", "FAIL"),
                               keys=("enter", "escape"), texts=texts, codes=codes)

        train = wrap(make_env(client, args.task, max_steps))
        envs.append(train)
        solver = get_solver(args.task, args.route)

        seen = ElementFeatures(train, with_mask=True)  # the demo's observations, for --bc
        pairs: list[tuple[np.ndarray, int]] = []

        def demo_index(obs: Any, info: dict[str, Any]) -> int:
            index = train.index_of(solver(obs, "", info))
            if index is None:
                raise SystemExit(f"a demo action of {args.task} is not in the action space")
            pairs.append((seen.observation(obs), index))
            return index

        steps_to_save = len(demo) - 1
        at = None
        if steps_to_save > SAVED_STATES:  # the last ones, where the curriculum spends most
            at = set(np.linspace(1, steps_to_save, SAVED_STATES).round().astype(int).tolist())
        states = record_states(train, demo_index, at=at)
        curriculum = ReverseCurriculum(train, states, threshold=0.8, window=8, replay=0.2)
        curriculum.reset(seed=args.seed)
        env = ElementFeatures(curriculum, with_mask=True)
        evaluation = ElementFeatures(wrap(make_env(client, args.task, max_steps)),
                                     with_mask=True)
        envs.append(evaluation)
        print(f"task {args.task}: demo of {len(demo)} actions ({solver.route} solver), "
              f"{len(states)} start states, {env.action_space.n} actions, observation "
              f"{env.observation_space.shape[0]} floats, max {max_steps} steps", flush=True)

        model = PPO(masked_policy_class(), env, n_steps=64, batch_size=64, n_epochs=6,
                    learning_rate=1e-3, gamma=0.9, gae_lambda=0.9, ent_coef=0.05,
                    policy_kwargs={"net_arch": [128, 128]}, seed=args.seed, verbose=0,
                    device="cpu")

        if args.bc:
            loss = warm_start(model, pairs, args.bc)
            print(f"behaviour cloning: {args.bc} updates on the demo's {len(pairs)} steps "
                  f"(loss {loss:.3f})", flush=True)

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
            if args.bc and args.bc_every:  # keep the demo in the policy as PPO moves it
                warm_start(model, pairs, args.bc_every)
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
            }
            curve.append(point)
            print(f"steps {point['steps']:5d}  minutes {minutes:5.2f}  episodes "
                  f"{point['episodes']:4d}  curriculum stage {curriculum.stage}/"
                  f"{curriculum.stages}  from the initial state {point['initial_success']:.2f} "
                  f"(last {len(last)}: {point['last_success']:.2f})", flush=True)
            if args.show:
                print("  played: " + "; ".join(map(evaluation.env.action_meaning, played)))
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
