"""Recordings are complete: every folder is a counted episode or marked, summary.json
says which is which, the CLI prints the real path, and images are encoded off the step
path (a background worker, flushed on close)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from drums_gym.cli import main
from drums_gym.wrappers import UNFINISHED, RecordTrajectory, VectorRecordTrajectory
from drums_gym.wrappers._trajectory import EpisodeWriter, FrameWorker

pytestmark = pytest.mark.timeout(120)


def test_eval_record_writes_a_summary_and_marks_unfinished_episodes(
    local_host, monkeypatch, tmp_path, capsys
):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    monkeypatch.setenv("DRUMS_TOKEN", "tok-not-written")
    record = tmp_path / "runs"
    # a random policy ends episodes at different steps: some sub-envs are mid-episode
    # when the 6th episode is counted
    assert main(["eval", "--episodes", "6", "--num-envs", "3", "--steps", "4",
                 "--record", str(record), "--no-progress"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("recorded"))
    assert str(record / "summary.json") in line and "<k>" not in line and "NNNNNN" not in line
    summary = json.loads((record / "summary.json").read_text())
    assert "tok-not-written" not in (record / "summary.json").read_text()
    assert summary["arguments"]["episodes"] == 6 and summary["arguments"]["num_envs"] == 3
    assert len(summary["episodes"]) == summary["statistics"]["episodes"] == 6
    folders = {p.relative_to(record).as_posix() for p in record.glob("env-*/episode-*")}
    counted = {e["folder"] for e in summary["episodes"]}
    others = {o["folder"]: o["finished"] for o in summary["not_counted"]}
    assert counted | set(others) == folders and not counted & set(others)
    for e in summary["episodes"]:
        folder = record / e["folder"]
        assert f"env-{e['env_index']}/" in e["folder"]
        assert not (folder / UNFINISHED).exists()
        steps = (folder / "steps.jsonl").read_text().splitlines()
        assert len(steps) == e["length"] + 1  # the reset line, then each step
        last = json.loads(steps[-1])
        assert last["terminated"] or last["truncated"]
        assert len(list(folder.glob("step-*.png"))) == e["length"] + 1
        assert (folder / "episode.gif").exists()
    for folder, finished in others.items():
        assert (record / folder / UNFINISHED).exists() is (not finished)


def test_images_are_encoded_off_the_step_path(tmp_path):
    """A step returns before its PNG is written (the worker is held up here on purpose);
    close() waits for every image."""
    gate = threading.Event()
    worker = FrameWorker()
    worker.submit(gate.wait)  # the worker is busy until the gate opens
    writer = EpisodeWriter(tmp_path, gif=True, worker=worker)
    folder = writer.start()
    frame = np.full((8, 8, 3), 7, np.uint8)
    writer.record(frame, None, None, False, False, {})
    frame[:] = 0  # the env reusing its buffer must not change what gets written
    writer.record(frame, "DONE", 1.0, True, False, {})
    assert not list(folder.glob("step-*.png"))  # queued, not written on the step path
    writer.finish()
    gate.set()
    worker.close()
    assert sorted(p.name for p in folder.iterdir()) == [
        "episode.gif", "step-0000.png", "step-0001.png", "steps.jsonl"]
    with Image.open(folder / "step-0000.png") as png:
        assert np.asarray(png).max() == 7


def test_worker_errors_surface_on_flush(tmp_path):
    worker = FrameWorker()

    def fail():
        raise OSError("disk full")

    worker.submit(fail)
    with pytest.raises(OSError, match="disk full"):
        worker.flush()
    worker.close()


def test_the_queue_is_bounded(tmp_path):
    gate = threading.Event()
    worker = FrameWorker(maxsize=2)
    worker.submit(gate.wait)
    worker.submit(lambda: None)
    worker.submit(lambda: None)  # the queue is now full (the first task is running)
    blocked = threading.Thread(target=worker.submit, args=(lambda: None,))
    blocked.start()
    blocked.join(timeout=0.5)
    assert blocked.is_alive(), "a full queue makes the step wait"
    gate.set()
    blocked.join()
    worker.close()


def test_single_env_recorder_marks_an_unfinished_episode(local_host, tmp_path):
    import gymnasium as gym

    env = RecordTrajectory(
        gym.make("Drums/e0df059f", screen=(640, 480), max_steps=5, url=local_host.url),
        tmp_path, gif=False,
    )
    env.reset(seed=0)
    env.step("pyautogui.moveTo(5, 5)")
    env.close()
    marker = json.loads((tmp_path / "episode-000001" / UNFINISHED).read_text())
    assert marker == {"episode": 1, "steps": 1, "finished": False}


def test_vector_recorder_finished_episodes_have_no_marker(local_host, tmp_path: Path):
    import gymnasium as gym

    envs = gym.make_vec("Drums/e0df059f", num_envs=2, screen=(640, 480),
                        max_episode_steps=3, url=local_host.url)
    envs = VectorRecordTrajectory(envs, tmp_path)
    envs.reset(seed=0)
    envs.step(["DONE", "pyautogui.moveTo(5, 5)"])
    envs.close()
    assert not (tmp_path / "env-0" / "episode-000001" / UNFINISHED).exists()
    assert (tmp_path / "env-1" / "episode-000001" / UNFINISHED).exists()
