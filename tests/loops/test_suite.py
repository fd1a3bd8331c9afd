"""Suites (issue 13 item 2): many tasks x episodes on N shared desktops, written as they
go, invalid episodes retried then reported, resumable after a kill at any moment.

Against the real local host over loopback HTTP (the ``make_host`` fixture, or the
embedded host of a ``drums-gym eval`` subprocess), with the scripted policy (which solves
every bundled task, deterministically).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from drums_gym._catalog_ids import TASK_IDS
from drums_gym.cli._suite import SpecPolicyFactory
from drums_gym.client import connect
from drums_gym.evaluation import (
    Journal,
    JournalError,
    SuiteConfig,
    episode_seed,
    read_task_file,
    resolve_tasks,
    run_suite,
)

K = 2  # episodes per task
TOTAL = K * len(TASK_IDS)
#: the in-process suites' tasks: seven, as many as the catalog had when the tests were written
#: (the whole catalog, 25 tasks, runs in the killed-and-resumed suite of the slow set)
SEVEN = TASK_IDS[:7]
#: fields that are timings or clocks: they differ between any two runs
CLOCKS = ("mean_step_latency_s",)
SCRIPTED = SpecPolicyFactory("scripted", 15)


def records(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "episodes.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def finals_once(folder: Path, tasks: tuple[str, ...] = TASK_IDS) -> list[dict[str, Any]]:
    """The final records, after checking each (task, episode) of the plan has exactly one
    and no attempt is recorded twice."""
    rs = records(folder)
    attempts = Counter((r["task"], r["episode"], r["attempt"]) for r in rs)
    assert max(attempts.values()) == 1, [k for k, v in attempts.items() if v > 1]
    finals = Counter((r["task"], r["episode"]) for r in rs if r["final"])
    assert finals == Counter({(t, k): 1 for t in tasks for k in range(K)})
    return [r for r in rs if r["final"]]


def without_clocks(summary: dict[str, Any]) -> dict[str, Any]:
    def strip(stats: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in stats.items() if k not in CLOCKS}

    return {
        **summary,
        "overall": strip(summary["overall"]),
        "tasks": {t: strip(s) for t, s in summary["tasks"].items()},
    }


def eval_command(out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "drums_gym.cli", "eval", "--tasks", "all",
        "--episodes-per-task", str(K), "--num-envs", "4", "--policy", "scripted",
        "--out", str(out), "--no-progress", *extra,
    ]


def own_host_env(**extra: str) -> dict[str, str]:
    """The environment of a subprocess with its own embedded host (it dies with it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRUMS_")}
    env.update(DRUMS_LOCAL_GATE_DELAY="0.05", **extra)
    return env


def wait_for_lines(path: Path, n: int, proc: subprocess.Popen[bytes], timeout: float = 120) -> int:
    """Poll ``path`` until it has ``n`` whole lines (the run is mid-way); answers the count."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            count = path.read_bytes().count(b"\n")
            if count >= n:
                return count
        if proc.poll() is not None:
            pytest.fail(f"the run ended (exit {proc.returncode}) before writing {n} lines")
        time.sleep(0.01)
    pytest.fail(f"no {n} lines in {path} within {timeout}s")


def test_a_suite_killed_mid_run_and_resumed_counts_each_episode_once(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    # latency keeps the run long enough to be killed mid-way; it changes no result
    env = own_host_env(DRUMS_LOCAL_FAULTS="latency_ms=15")
    done = subprocess.run(eval_command(whole, "--json"), env=env, capture_output=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    reference = json.loads(done.stdout)

    proc = subprocess.Popen(eval_command(killed), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        seen = wait_for_lines(killed / "episodes.jsonl", 3, proc)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert seen < TOTAL
    before = records(killed)
    assert 3 <= len(before) < TOTAL  # killed mid-run: some done, not all

    resumed = subprocess.run(eval_command(killed, "--resume", "--json"), env=env,
                             capture_output=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr.decode()
    finals = finals_once(killed)
    # what the killed run finished is kept as it was, not run again
    assert records(killed)[: len(before)] == before
    by_key = {(r["task"], r["episode"]): r for r in finals}
    for (task, k), r in by_key.items():
        assert r["seed"] == episode_seed(0, task, k)
    reference_finals = {(r["task"], r["episode"]): r for r in finals_once(whole)}
    assert {k: r["seed"] for k, r in by_key.items()} == {
        k: r["seed"] for k, r in reference_finals.items()
    }
    summary = json.loads((killed / "summary.json").read_text())
    assert summary == json.loads(resumed.stdout)
    assert without_clocks(summary) == without_clocks(reference)
    assert summary["done"] == summary["total"] == TOTAL
    assert summary["overall"]["success"] == TOTAL  # the scripted policy solves them all
    assert set(summary["tasks"]) == {t[:8] for t in TASK_IDS}


def test_resume_cuts_a_partial_last_line_and_runs_that_attempt_again(tmp_path, local_host):
    out = tmp_path / "suite"
    config = SuiteConfig(tasks=("e0df059f",), episodes_per_task=3, num_envs=2,
                         policy="scripted", max_steps=15)
    run_suite(config, SCRIPTED, out, url=local_host.url)
    lines = (out / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    # as a run killed while writing its third line leaves the file
    (out / "episodes.jsonl").write_bytes(b"".join(lines[:2]) + lines[2][:25])
    result = run_suite(config, SCRIPTED, out, url=local_host.url, resume=True)
    assert result.attempts_run == 1
    rs = records(out)
    assert len(rs) == 3 and sorted(r["episode"] for r in rs) == [0, 1, 2]
    assert result.summary["done"] == 3


def test_a_bad_line_before_the_last_is_an_error_naming_it(tmp_path):
    out = tmp_path / "suite"
    out.mkdir()
    (out / "episodes.jsonl").write_text('{"task": "x"}\nnot json\n{"task": "y"}\n')
    with pytest.raises(JournalError, match="line 1 is not a suite record"):
        Journal.open(out, resume=True)


def test_invalid_episodes_are_retried_then_reported_by_reason(tmp_path, make_host):
    host = make_host(faults="gate_fail=0.3", seed=7)
    out = tmp_path / "suite"
    config = SuiteConfig(tasks=SEVEN, episodes_per_task=K, num_envs=3, policy="scripted",
                         retries_invalid=1)
    result = run_suite(config, SCRIPTED, out, url=host.url)
    rs = records(out)
    finals = finals_once(out, SEVEN)
    invalid = [r for r in rs if not r["valid"]]
    assert invalid, "the seeded faults made no invalid episode"
    for r in invalid:  # never scored
        assert r["score"] is None and r["success"] is None
        assert r["invalid_reason"] == "gate_failed"
    # an invalid attempt that was not the last is followed by the next attempt
    attempts = {(r["task"], r["episode"], r["attempt"]): r for r in rs}
    for r in invalid:
        if r["attempt"] < config.retries_invalid:
            assert not r["final"]
            assert (r["task"], r["episode"], r["attempt"] + 1) in attempts
        else:
            assert r["final"]
    final_invalid = [r for r in finals if not r["valid"]]
    overall = result.summary["overall"]
    assert overall["invalid"] == dict(Counter(r["invalid_reason"] for r in final_invalid))
    assert overall["episodes"] == K * len(SEVEN)
    assert overall["valid"] == K * len(SEVEN) - len(final_invalid)
    # success is over valid episodes only: an invalid one is no failure
    assert overall["success_rate"] == overall["success"] / overall["valid"]
    assert overall["invalid_rate"] == len(final_invalid) / (K * len(SEVEN))
    assert any(r["attempt"] > 0 and r["valid"] for r in rs), "no retry came back valid"


def test_desktops_are_shared_across_tasks_n_at_a_time(tmp_path, local_host):
    out = tmp_path / "suite"
    seen: list[tuple[int, int, int, int]] = []
    config = SuiteConfig(tasks=SEVEN, episodes_per_task=1, num_envs=2, policy="scripted")
    result = run_suite(config, SCRIPTED, out, url=local_host.url,
                       on_progress=lambda *p: seen.append(p))
    assert result.summary["done"] == len(SEVEN)
    # at most N episodes at once, over seven tasks (no group of desktops per task)
    spans = [(r["started_at"], r["finished_at"]) for r in records(out)]
    for start, _ in spans:
        assert sum(1 for s, f in spans if s <= start < f) <= 2
    # progress: done of total, success and invalid so far, up to the end
    assert seen[0] == (0, len(SEVEN), 0, 0)
    assert seen[-1] == (len(SEVEN), len(SEVEN), len(SEVEN), 0)
    assert [p[0] for p in seen] == sorted(p[0] for p in seen)


def test_tasks_by_list_and_by_osworld_file(tmp_path, local_host):
    task_file = tmp_path / "test_all.json"
    task_file.write_text(json.dumps({"os": [TASK_IDS[1], TASK_IDS[0]], "more": [TASK_IDS[1]]}))
    assert read_task_file(task_file) == [TASK_IDS[1], TASK_IDS[0]]
    with connect(url=local_host.url) as client:
        assert resolve_tasks(client, str(task_file)) == [TASK_IDS[1], TASK_IDS[0]]
        assert resolve_tasks(client, f"{TASK_IDS[2][:8]}, {TASK_IDS[0]}") == [
            TASK_IDS[2], TASK_IDS[0]
        ]
        assert resolve_tasks(client, "all") == list(TASK_IDS)
        with pytest.raises(ValueError, match="'deadbeef' is not known to the Drums host"):
            resolve_tasks(client, "e0df059f,deadbeef")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"os": "e0df059f"}))
    with pytest.raises(ValueError, match="domain 'os' must be a list of task ids"):
        read_task_file(bad)


def test_a_folder_holding_a_run_needs_resume_and_the_same_arguments(tmp_path, local_host):
    out = tmp_path / "suite"
    config = SuiteConfig(tasks=("e0df059f",), episodes_per_task=1, num_envs=1,
                         policy="scripted")
    run_suite(config, SCRIPTED, out, url=local_host.url)
    with pytest.raises(JournalError, match="already holds a suite run"):
        run_suite(config, SCRIPTED, out, url=local_host.url)
    other = SuiteConfig(tasks=("e0df059f",), episodes_per_task=2, num_envs=1,
                        policy="scripted")
    with pytest.raises(JournalError, match="episodes_per_task=1, not 2"):
        run_suite(other, SCRIPTED, out, url=local_host.url, resume=True)
    # resuming a finished run runs nothing and answers the same summary
    again = run_suite(config, SCRIPTED, out, url=local_host.url, resume=True)
    assert again.attempts_run == 0 and again.summary["done"] == 1


def test_ctrl_c_stops_with_what_is_done_written_and_no_desktop_left(tmp_path, local_host):
    out = tmp_path / "suite"
    proc = subprocess.Popen(
        [*eval_command(out), "--url", local_host.url, "--episodes-per-task", "6"],
        env={k: v for k, v in os.environ.items() if not k.startswith("DRUMS_")},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        wait_for_lines(out / "episodes.jsonl", 2, proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err.decode()
    assert "--resume" in err.decode()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["done"] == sum(r["final"] for r in records(out)) >= 2
    assert summary["done"] < summary["total"]
    # the local_host fixture checks at teardown that no desktop or saved state is left


def test_the_cli_says_what_is_wrong(tmp_path):
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "drums_gym.cli", "eval", *args],
                              capture_output=True, text=True, env=own_host_env(), timeout=120)

    assert "--tasks needs --out DIR" in run("--tasks", "all").stderr
    assert "--resume is for suites: give --tasks" in run("--resume").stderr
    assert "use --episodes-per-task" in run("--tasks", "all", "--episodes", "3",
                                            "--out", str(tmp_path)).stderr
    bad = run("--tasks", "nosuchtask", "--out", str(tmp_path / "x"))
    assert bad.returncode == 1 and "'nosuchtask' is not known to the Drums host" in bad.stderr


def test_record_keeps_one_folder_per_counted_episode(tmp_path, make_host):
    host = make_host(faults="gate_fail=0.4", seed=3)
    out = tmp_path / "suite"
    config = SuiteConfig(tasks=(TASK_IDS[0], TASK_IDS[6]), episodes_per_task=3, num_envs=2,
                         policy="scripted", retries_invalid=1)
    run_suite(config, SCRIPTED, out, url=host.url, record=True)
    rs = records(out)
    assert any(not r["final"] for r in rs), "no attempt was retried"
    kept = sorted(p.relative_to(out).as_posix() for p in (out / "record").glob("*/*"))
    assert kept == sorted(r["record"] for r in rs if r["final"])  # no staging folder left
    assert all(r["record"] is None for r in rs if not r["final"])
    for r in rs:
        if r["final"] and r["valid"]:
            folder = out / r["record"]
            lines = (folder / "steps.jsonl").read_text().splitlines()
            assert len(lines) == r["steps"] + 1  # the reset and each step
            assert (folder / "episode.gif").is_file()
            assert (folder / f"step-{r['steps']:04d}.png").is_file()


def test_the_progress_bar_shows_done_of_total_success_and_invalid(tmp_path, local_host):
    out = tmp_path / "suite"
    done = subprocess.run(
        [sys.executable, "-m", "drums_gym.cli", "eval", "--tasks", "e0df059f,5ced85fc",
         "--episodes-per-task", "2", "--num-envs", "1", "--policy", "scripted",
         "--out", str(out), "--progress", "--url", local_host.url],
        capture_output=True, text=True, timeout=120,
        env={k: v for k, v in os.environ.items() if not k.startswith("DRUMS_")},
    )
    assert done.returncode == 0, done.stderr
    assert "episodes success " in done.stderr and " invalid 0" in done.stderr
    assert "/4" in done.stderr  # done of total
    assert "episodes: 4/4 in " in done.stderr  # the closing line
    firsts = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    rows = [w for w in firsts if w in ("e0df059f", "5ced85fc", "total")]
    assert rows == ["e0df059f", "5ced85fc", "total"]  # one row per task, and a total row


class CountingPolicy:
    """Says DONE at once, and reports model figures as a model policy does."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, observation: Any, instruction: str) -> str:
        return "DONE"

    def episode_stats(self) -> dict[str, Any]:
        return {"model_latency_s": 0.25, "prompt_tokens": 100 + self.seed % 7,
                "completion_tokens": 5, "policy_errors": 0, "secret": "not copied"}


def test_records_carry_the_seed_and_the_policys_own_figures(tmp_path, local_host):
    seeds: list[tuple[str, int]] = []

    def factory(task: str, seed: int) -> CountingPolicy:
        seeds.append((task, seed))
        return CountingPolicy(seed)

    out = tmp_path / "suite"
    config = SuiteConfig(tasks=(TASK_IDS[0], TASK_IDS[1]), episodes_per_task=2, num_envs=2,
                         seed=11, policy="counting")
    run_suite(config, factory, out, url=local_host.url)
    for r in records(out):
        assert r["seed"] == episode_seed(11, r["task"], r["episode"])
        assert (r["task"], r["seed"]) in seeds  # the policy got the episode's seed
        assert r["model_latency_s"] == 0.25 and r["prompt_tokens"] == 100 + r["seed"] % 7
        assert "secret" not in r and r["policy"] == "counting" and r["steps"] == 1
    assert len({r["seed"] for r in records(out)}) == 4


def test_a_policy_that_raises_stops_the_run_with_what_is_done_written(tmp_path, local_host):
    calls = []

    def factory(task: str, seed: int) -> Any:
        calls.append(task)
        if len(calls) > 2:
            return lambda observation, instruction: 1 / 0
        return lambda observation, instruction: "DONE"

    out = tmp_path / "suite"
    config = SuiteConfig(tasks=("e0df059f",), episodes_per_task=4, num_envs=1, policy="flaky")
    with pytest.raises(ValueError, match="policy 'flaky' raised ZeroDivisionError"):
        run_suite(config, factory, out, url=local_host.url)
    assert len(records(out)) == 2
    assert json.loads((out / "summary.json").read_text())["done"] == 2
