"""Vectorized policy evaluation with ``gym.make_vec`` and validity-aware statistics.

``gym.make_vec("Drums/e0df059f", num_envs=K)`` forks K desktops from one parent and
steps them concurrently, autoresetting each one the step after its episode ends
(NEXT_STEP). ``DrumsVectorEpisodeStatistics`` plays the part of Gymnasium's
``RecordEpisodeStatistics``, with one difference that matters: an invalid episode (a
failed gate, a crash...) is counted by reason and never enters returns or success.

Run it (no DRUMS_URL: the embedded local host)::

    python examples/vector_eval.py --num-envs 2 --episodes 4 --steps 3
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

import drums_gym  # noqa: F401  (registers the Drums/<task> ids)
from drums_gym.wrappers import DrumsVectorEpisodeStatistics


def policy(obs: np.ndarray, instruction: str, rng: np.random.Generator) -> str:
    """Stand-in for your model: a random click, and now and then DONE."""
    if rng.random() < 0.2:
        return "DONE"
    height, width = obs.shape[:2]
    return f"pyautogui.click({int(rng.integers(0, width))}, {int(rng.integers(0, height))})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="e0df059f")
    parser.add_argument("--num-envs", type=int, default=2, help="desktops stepped together")
    parser.add_argument("--episodes", type=int, default=4, help="episodes to evaluate")
    parser.add_argument("--steps", type=int, default=3, help="step budget per episode")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    envs = gym.make_vec(f"Drums/{args.task}", num_envs=args.num_envs,
                        max_episode_steps=args.steps)
    envs = DrumsVectorEpisodeStatistics(envs)
    try:
        obs, infos = envs.reset(seed=args.seed)
        instruction = infos["instruction"][0]
        print(f"task: {instruction}")
        autoreset = np.zeros(envs.num_envs, dtype=bool)
        while envs.episode_count < args.episodes:
            # a sub-env that ended last step is reset by this step: its action is ignored
            actions = ["WAIT" if autoreset[i] else policy(obs[i], instruction, rng)
                       for i in range(envs.num_envs)]
            obs, _, terminated, truncated, infos = envs.step(actions)
            if "episode" in infos:  # statistics of the episodes that ended this step
                ep, ended = infos["episode"], infos["_episode"]
                for i in np.flatnonzero(ended):
                    status = "valid" if ep["valid"][i] else f"invalid ({ep['invalid_reason'][i]})"
                    print(f"env {i}: episode of {ep['l'][i]} steps, return {ep['r'][i]:.1f}, "
                          f"{status}")
            autoreset = terminated | truncated
    finally:
        envs.close()  # deletes every forked child and the parent desktop

    rate = envs.success_rate
    print(f"{envs.episode_count} episodes: {envs.valid_count} valid, "
          f"{envs.invalid_count} invalid {dict(envs.invalid_reasons)}")
    print("success rate over valid episodes:",
          "n/a" if rate is None else f"{rate:.0%} ({envs.success_count}/{envs.valid_count})")
    if envs.return_queue:
        print(f"mean return over valid episodes: {np.mean(envs.return_queue):.2f}")


if __name__ == "__main__":
    main()
