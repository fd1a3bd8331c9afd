"""The suite runner on Ray (issue 13 item 4), on a local Ray of two CPUs: workers that
each start an embedded host, workers sharing one Drums URL, results merged into the same
folder, resume across runners, and ``drums-gym eval --ray ADDRESS``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")

from drums_gym._catalog_ids import TASK_IDS  # noqa: E402
from drums_gym.cli._suite import SpecPolicyFactory  # noqa: E402
from drums_gym.evaluation import SuiteConfig, run_suite  # noqa: E402
from drums_gym.integrations.ray import run_suite_on_ray  # noqa: E402

TASKS = (TASK_IDS[0], TASK_IDS[3], TASK_IDS[6])
K = 2
SCRIPTED = SpecPolicyFactory("scripted", 15)
CONFIG = SuiteConfig(tasks=TASKS, episodes_per_task=K, num_envs=2, policy="scripted")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "episodes.jsonl").read_text().splitlines()]


def assert_each_once(folder: Path) -> None:
    finals = Counter((r["task"], r["episode"]) for r in records(folder) if r["final"])
    assert finals == Counter({(t, k): 1 for t in TASKS for k in range(K)})


def results_of(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary without clocks and without where it ran."""
    def strip(stats: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in stats.items() if k != "mean_step_latency_s"}

    args = {k: v for k, v in summary["args"].items() if k not in ("runner", "record")}
    return {**summary, "args": args, "overall": strip(summary["overall"]),
            "tasks": {t: strip(s) for t, s in summary["tasks"].items()}}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same suite on threads (the embedded host of this process)."""
    out = tmp_path_factory.mktemp("threads")
    run_suite(CONFIG, SCRIPTED, out, url=None)
    return out


def test_workers_with_their_own_hosts_give_the_threads_results(local_ray, reference, tmp_path,
                                                               monkeypatch):
    monkeypatch.delenv("DRUMS_URL", raising=False)
    out = tmp_path / "ray"
    result = run_suite_on_ray(CONFIG, SCRIPTED, out)
    assert_each_once(out)
    assert result.summary["args"]["runner"] == "ray"
    assert json.loads((out / "summary.json").read_text()) == result.summary
    threads = json.loads((reference / "summary.json").read_text())
    assert results_of(result.summary) == results_of(threads)
    assert result.summary["overall"]["success"] == len(TASKS) * K


def test_workers_share_one_drums_url(local_ray, local_host, tmp_path):
    out = tmp_path / "ray"
    result = run_suite_on_ray(CONFIG, SCRIPTED, out, url=local_host.url, worker_cpus=0.5)
    assert_each_once(out)
    assert result.summary["overall"]["valid"] == len(TASKS) * K
    assert {r["policy"] for r in records(out)} == {"scripted"}
    # the local_host fixture checks at teardown that no desktop was left on it


def test_a_run_cut_short_on_threads_is_resumed_on_ray(local_ray, reference, tmp_path,
                                                      monkeypatch):
    monkeypatch.delenv("DRUMS_URL", raising=False)
    out = tmp_path / "resumed"
    out.mkdir()
    lines = (reference / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    # as a run killed while writing its fourth line leaves its folder
    (out / "episodes.jsonl").write_bytes(b"".join(lines[:3]) + lines[3][:40])
    result = run_suite_on_ray(CONFIG, SCRIPTED, out, resume=True)
    assert result.attempts_run == len(TASKS) * K - 3
    assert_each_once(out)
    assert records(out)[:3] == [json.loads(line) for line in lines[:3]]
    threads = json.loads((reference / "summary.json").read_text())
    assert results_of(result.summary) == results_of(threads)


def test_each_worker_host_rolls_its_own_faults_and_invalid_ones_are_retried(
    local_ray, tmp_path, monkeypatch
):
    monkeypatch.delenv("DRUMS_URL", raising=False)
    monkeypatch.setenv("DRUMS_LOCAL_FAULTS", "gate_fail=0.4")
    monkeypatch.setenv("DRUMS_LOCAL_SEED", "5")
    out = tmp_path / "faults"
    config = SuiteConfig(tasks=TASKS, episodes_per_task=K, num_envs=2, policy="scripted",
                         retries_invalid=1)
    result = run_suite_on_ray(config, SCRIPTED, out)
    assert_each_once(out)
    rs = records(out)
    invalid = [r for r in rs if not r["valid"]]
    assert invalid and all(r["invalid_reason"] == "gate_failed" for r in invalid)
    assert all(r["score"] is None for r in invalid)
    assert all(r["final"] == (r["attempt"] == 1) for r in invalid)
    final_invalid = Counter(r["invalid_reason"] for r in rs if r["final"] and not r["valid"])
    assert result.summary["overall"]["invalid"] == dict(final_invalid)


def test_the_cli_runs_on_a_ray_cluster_by_address(local_ray, local_host, tmp_path):
    address = ray.get_runtime_context().gcs_address
    out = tmp_path / "cli"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRUMS_")}
    done = subprocess.run(
        [sys.executable, "-m", "drums_gym.cli", "eval", "--tasks", TASKS[0][:8],
         "--episodes-per-task", "2", "--num-envs", "2", "--policy", "scripted",
         "--out", str(out), "--ray", address, "--url", local_host.url, "--json",
         "--no-progress"],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["done"] == 2 and summary["overall"]["success"] == 2
    assert summary["args"]["runner"] == "ray"
