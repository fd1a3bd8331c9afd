"""Evaluation as a library: one task's vector loop, and suites of many tasks.

Two runners share the statistics of :mod:`drums_gym.outcomes` (success over VALID
episodes with a 95% Wilson interval; invalid episodes counted by reason, never scored 0):

- :func:`iter_episodes` / :func:`evaluate` (``drums-gym eval --task``): a policy over
  one task's vector env, an :class:`EpisodeResult` as each episode finishes.
- :func:`run_suite` (``drums-gym eval --tasks``): many tasks x K episodes on N desktops
  shared across tasks, every finished episode appended to ``DIR/episodes.jsonl`` at once,
  ``DIR/summary.json`` rewritten as the run goes, invalid episodes retried within a
  bound, and ``resume=True`` skipping what a killed run finished (see
  :mod:`drums_gym.evaluation.suite`).

>>> results = [EpisodeResult(0, True, 1.0, True, 3), EpisodeResult(1, True, 0.0, False, 5),
...            EpisodeResult(0, False, None, False, 1, reason="gate_failed")]
>>> s = EvalSummary.from_results(results)
>>> s.episodes, s.valid, s.success_rate, s.invalid_reasons, s.mean_length
(3, 2, 0.5, {'gate_failed': 1}, 4.0)
>>> [round(x, 3) for x in s.success_ci95]
[0.095, 0.905]

Example (the embedded local host when ``DRUMS_URL`` is unset)::

    from drums_gym.evaluation import EvalSummary, iter_episodes, make_envs

    def policy(observation, instruction):
        return "DONE"

    envs = make_envs("e0df059f", num_envs=2, max_steps=5)
    try:
        results = []
        for result in iter_episodes(envs, policy, episodes=4, seed=0):
            print(result.to_json())           # as each episode finishes
            results.append(result)
    finally:
        envs.close()
    print(EvalSummary.from_results(results).to_json())
"""

from .journal import Journal, JournalError
from .loop import (
    EpisodeResult,
    EvalSummary,
    Evaluation,
    StepTimings,
    evaluate,
    iter_episodes,
    make_envs,
)
from .plan import SuiteItem, episode_seed, plan_items, read_task_file, resolve_tasks
from .stats import suite_stats, suite_summary
from .suite import (
    SuiteConfig,
    SuiteInterrupted,
    SuiteResult,
    SuiteRun,
    check_suite_capacity,
    run_suite,
)
from .worker import SuiteWorker

__all__ = [
    "EpisodeResult",
    "EvalSummary",
    "Evaluation",
    "Journal",
    "JournalError",
    "StepTimings",
    "SuiteConfig",
    "SuiteInterrupted",
    "SuiteItem",
    "SuiteResult",
    "SuiteRun",
    "SuiteWorker",
    "check_suite_capacity",
    "episode_seed",
    "evaluate",
    "iter_episodes",
    "make_envs",
    "plan_items",
    "read_task_file",
    "resolve_tasks",
    "run_suite",
    "suite_stats",
    "suite_summary",
]
