"""TRL over Drums desktops (``drums_gym.integrations.trl``): real GRPO runs of two steps
with TRL's ``GRPOTrainer`` on a tiny offline model (tests/integration_models.py: a 2-layer
Llama from a config that always answers a fixed script), real tool calls on real local
hosts with faults injected. Skipped without the ``[trl]`` extra."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest

pytest.importorskip("trl", reason="needs the [trl] extra: pip install -e '.[trl]'")

from datasets import Dataset
from integration_models import scripted_lm
from PIL import Image
from transformers import TrainerCallback
from trl import GRPOConfig, GRPOTrainer

from drums_gym.client import connect
from drums_gym.integrations.trl import (
    DrumsCodeReward,
    DrumsEnvironments,
    DrumsToolEnv,
    completion_code,
)

TASK = "e0df059f"
SCREEN = (640, 480)
TOOLS = {"click", "double_click", "right_click", "type_text", "press", "hotkey", "scroll",
         "drag", "done", "fail"}
MV = "mv ~/Desktop/todo_list_Jan_1 ~/Desktop/todo_list_Jan_2\n"


def call(name: str, **arguments) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


#: one reply that solves the task: open a terminal, type the command, say DONE
SOLVE = "\n".join([call("hotkey", keys=["ctrl", "alt", "t"]), call("type_text", text=MV),
                   call("done")])
#: the same as single-turn pyautogui code
SOLVE_CODE = f"pyautogui.hotkey('ctrl', 'alt', 't')\npyautogui.write({MV!r})"


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")


class KeepLogs(TrainerCallback):
    def __init__(self) -> None:
        self.logs: list[dict] = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            self.logs.append(dict(logs))


def grpo_args(tmp_path, **overrides) -> GRPOConfig:
    settings = dict(
        output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=4,
        max_steps=2, max_completion_length=4096, max_tool_calling_iterations=1,
        learning_rate=1e-6, report_to="none", logging_steps=1, use_cpu=True,
        save_strategy="no", seed=0, disable_tqdm=True,
    )
    settings.update(overrides)
    return GRPOConfig(**settings)


def chat_prompts(n: int = 2) -> Dataset:
    return Dataset.from_dict({"prompt": [[{"role": "user", "content": "Use the desktop."}]] * n})


class ZeroForInvalid(DrumsToolEnv):
    """What an environment without drums-gym's validity does: the placeholder 0."""

    def get_reward(self):
        reward = super().get_reward()
        return 0.0 if reward is None else reward


def run_multi_turn(host, tmp_path, env_class=DrumsToolEnv):
    model, tokenizer = scripted_lm(SOLVE)
    envs = DrumsEnvironments(TASK, url=host.url, max_steps=5, screen=SCREEN,
                             env_class=env_class)
    keep = KeepLogs()
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=grpo_args(tmp_path),
                          train_dataset=chat_prompts(), environment_factory=envs,
                          callbacks=[envs, keep])
    tools = {tool.__name__ for tool in trainer.tools}
    trainer.train()
    return envs, keep.logs, tools


def test_grpo_multi_turn_with_faults_leaves_invalid_rollouts_out(make_host, tmp_path):
    host = make_host(faults="crash=0.5", seed=0)
    envs, logs, tools = run_multi_turn(host, tmp_path)
    assert tools == TOOLS  # TRL exposes the desktop actions, nothing else
    results = envs.results
    assert len(results) == 8 and len(logs) == 2
    invalid = [r for r in results if not r.valid]
    assert invalid and {r.invalid_reason for r in invalid} == {"app_crash"}
    # the script solves the task through TRL's tool calls on every valid desktop
    assert all(r.score == 1.0 and r.steps == 3 for r in results if r.valid)
    for step in logs:
        assert step["tools/call_frequency"] == 3.0 and step["tools/failure_frequency"] == 0.0
        # TRL's own figure is the valid-only mean: the invalid rollouts are left out
        assert step["rewards/DrumsToolEnv/mean"] == 1.0
    assert host.model.counts()["live_desktops"] == 0  # closed when training ended

    # the same seeded faults, scored as 0 instead of None: TRL's mean drops
    control = make_host(faults="crash=0.5", seed=0)
    envs0, logs0, _ = run_multi_turn(control, tmp_path, ZeroForInvalid)
    shares = [step["rewards/ZeroForInvalid/mean"] for step in logs0]
    assert [r.valid for r in envs0.results] == [r.valid for r in results]
    assert min(shares) < 1.0
    assert sum(shares) / 2 == pytest.approx((8 - len(invalid)) / 8)


def test_single_turn_reward_and_the_second_reward_function_caveat(make_host, tmp_path):
    host = make_host(faults="crash=0.5", seed=3)
    reward = DrumsCodeReward(TASK, url=host.url, screen=SCREEN)
    model, tokenizer = scripted_lm(SOLVE_CODE)
    scores: list = []

    def drums(prompts, completions, **kwargs):  # records what TRL is given
        out = reward(prompts, completions, **kwargs)
        scores.extend(out)
        return out

    def length_penalty(prompts, completions, **kwargs):  # a second function: 0 per row
        return [0.0] * len(completions)

    keep = KeepLogs()
    prompts = Dataset.from_dict({"prompt": ["Rename the folder with pyautogui code:"] * 2})
    trainer = GRPOTrainer(model=model, processing_class=tokenizer,
                          reward_funcs=[drums, length_penalty],
                          args=grpo_args(tmp_path, max_completion_length=8),
                          train_dataset=prompts, callbacks=[keep])
    try:
        trainer.train()
    finally:
        reward.close()
    assert len(scores) == 8 and None in scores
    valid = [s for s in scores if s is not None]
    assert valid and all(s == 1.0 for s in valid)
    means = [step["rewards/drums/mean"] for step in keep.logs]
    totals = [step["reward"] for step in keep.logs]
    # TRL's per-function figure leaves the invalid rows out ...
    assert means == [1.0, 1.0]
    # ... but the second function brings them back into the total as 0 (the caveat)
    assert sum(totals) / 2 == pytest.approx(len(valid) / 8)


def test_environment_class_exposes_only_the_tools_with_typed_docstrings():
    from transformers.utils import get_json_schema

    public = {name for name, _ in inspect.getmembers(DrumsToolEnv, inspect.isfunction)
              if not name.startswith("_")}
    assert public == TOOLS | {"reset", "get_reward"}
    for name in TOOLS:
        schema = get_json_schema(getattr(DrumsToolEnv, name))["function"]
        assert schema["name"] == name and schema["description"]
        for prop in schema["parameters"]["properties"].values():
            assert prop["description"] and prop["type"]


def test_vision_observations_are_image_blocks_and_text_ones_the_tree(make_host):
    host = make_host()
    with connect(url=host.url) as client:
        env = DrumsToolEnv(TASK, client=client, vision=True, screen=SCREEN, max_steps=3)
        try:
            first = env.reset(prompt=[])
            assert [block["type"] for block in first] == ["image", "text"]
            assert isinstance(first[0]["image"], Image.Image)
            assert first[0]["image"].size == SCREEN
            after = env.click(100, 80)
            assert after[0]["image"].size == SCREEN and "Step 1 of 3." in after[1]["text"]
            assert env.press(7).startswith("Error: key must be a string")  # data, no raise
            assert env.done() == "Step 2 of 3. The episode is over."
            assert env.click(1, 1) == "The episode is over: no further action is taken."
            assert env.get_reward() == 0.0 and env.get_reward() == 0.0
        finally:
            env._close()
        env = DrumsToolEnv(TASK, client=client, vision=False, screen=SCREEN)
        try:
            text = env.reset(task=TASK)
            assert "icon\ttodo_list_Jan_1" in text and "Task: I have a directory" in text
            # an unknown key is a no-op, as in pyautogui; code past the host's size limit is refused
            assert "The action was not run:" not in env.press("no-such-key")
            assert "The action was not run:" in env.type_text("x" * 100_001)  # the host refused
            bad = env.hotkey([])
            assert bad.startswith("Error: keys must be a non-empty list")
            assert env.get_reward() == 0.0  # an unfinished episode is verified as it stands
        finally:
            env._close()


def test_invalid_episode_reward_is_none_never_zero(make_host):
    host = make_host(faults="crash=1.0", seed=0)
    envs = DrumsEnvironments(TASK, url=host.url, screen=SCREEN, max_steps=4)
    try:
        env = envs()
        env.reset()
        for _ in range(3):
            env.click(10, 10)
        assert env.get_reward() is None
        [result] = envs.results
        assert not result.valid and result.invalid_reason == "app_crash" and result.score is None
        rewards = DrumsCodeReward(TASK, url=host.url, screen=SCREEN)
        assert rewards([""], ["pyautogui.click(5, 5)"]) == [None]
        rewards.close()
    finally:
        envs.close()
        envs.close()  # twice is harmless
    assert host.model.counts()["live_desktops"] == 0
    with pytest.raises(RuntimeError, match="closed"):
        envs()


def test_desktops_are_deleted_when_the_process_exits_without_close(make_host):
    host = make_host()
    code = (
        "from drums_gym.integrations.trl import DrumsEnvironments\n"
        f"envs = DrumsEnvironments({TASK!r}, url={host.url!r}, screen=(640, 480))\n"
        "for _ in range(2):\n"
        "    env = envs()\n"
        "    env.reset()\n"
        "    env.click(5, 5)\n"
        "print('leaving without close')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and "leaving without close" in out.stdout, out.stderr
    assert "Traceback" not in out.stderr
    assert host.model.counts()["live_desktops"] == 0


def test_completion_code_reads_fences_and_messages():
    assert completion_code("```python\npyautogui.press('f2')\n```") == "pyautogui.press('f2')"
    assert completion_code([{"role": "assistant", "content": " FAIL "}]) == "FAIL"
    assert completion_code(None) == ""


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="max_steps must be a positive int"):
        DrumsToolEnv(TASK, max_steps=0)
    with pytest.raises(ValueError, match="workers must be a positive int"):
        DrumsCodeReward(TASK, workers=0)
    with pytest.raises(ValueError, match="either client or url/token"):
        DrumsEnvironments(TASK, client=object(), url="http://x")
    with pytest.raises(ValueError, match="env_class must be DrumsToolEnv"):
        DrumsEnvironments(TASK, env_class=dict)


def branch_log(host) -> list[tuple[int, list[str]]]:
    """Every branch call the host answers, counted on the host side: (n, the children)."""
    calls: list[tuple[int, list[str]]] = []
    branch = host.model.branch

    def counted(workspace, slot_id, body, idempotency_key=None):
        out = branch(workspace, slot_id, body, idempotency_key)
        calls.append((body.n, [child.id for child in out.children]))
        return out

    host.model.branch = counted
    return calls


def test_grpo_groups_start_from_one_forked_state_per_group(make_host, tmp_path, caplog):
    """Two GRPO steps of one group of 4 each: the host answers exactly one branch call per
    group, of 4 children, and each group's rollouts are those children; ``randomize=``
    reaches the desktops; a prefix is applied once, on the parent; TRL's warning about
    the unscorable (invalid) rows no longer carries their prompt."""
    host = make_host(faults="crash=0.5", seed=0)
    calls = branch_log(host)
    model, tokenizer = scripted_lm(SOLVE)
    envs = DrumsEnvironments(TASK, url=host.url, max_steps=5, screen=SCREEN, randomize=True,
                             prefix=["pyautogui.moveTo(5, 5)"])
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=grpo_args(tmp_path),
                          train_dataset=chat_prompts(), environment_factory=envs,
                          callbacks=[envs])
    with caplog.at_level("WARNING", logger="trl.trainer.grpo_trainer"):
        trainer.train()
    results = envs.results
    assert len(results) == 8 and envs.groups.groups == 2
    assert len(calls) == 2 == envs.branch_calls, "one branch call per group"
    assert [n for n, _ in calls] == [4, 4]
    for number, (_, children) in enumerate(calls, start=1):
        members = [r for r in results if r.group == number]
        assert len(members) == 4
        assert sorted(r.slot_id for r in members) == sorted(children)
    # the prefix did not use the members' steps: the script's 3 actions all ran
    assert all(r.score == 1.0 and r.steps == 3 for r in results if r.valid)
    invalid = [r for r in results if not r.valid]
    assert invalid, "the seeded faults hit some children"
    warned = [rec.getMessage() for rec in caplog.records
              if "All reward functions returned None" in rec.getMessage()]
    assert warned and all("Use the desktop." not in m and "accessibility" not in m
                          for m in warned)
    assert host.model.counts()["live_desktops"] == 0


def test_drums_environments_take_gym_make_arguments(local_host):
    envs = DrumsEnvironments("e0df059f", url=local_host.url, randomize=True, group_size=2)
    try:
        assert envs.groups.env_kwargs["randomize"] is True and envs.groups.size == 2
    finally:
        envs.close()
    with pytest.raises(ValueError, match="group_size"):
        DrumsEnvironments("e0df059f", url=local_host.url, group_size=0)


def test_trls_unscorable_row_warning_loses_the_row(caplog):
    from drums_gym.integrations.trl import quiet_unscorable_rows

    quiet_unscorable_rows()
    log = __import__("logging").getLogger("trl.trainer.grpo_trainer")
    with caplog.at_level("WARNING", logger=log.name):
        log.warning("[RANK 0] All reward functions returned None for the following kwargs:\n"
                    "{'prompt': 'SECRET TREE'}\nPlease ensure ...")
    [message] = [r.getMessage() for r in caplog.records]
    assert message.startswith("[RANK 0] All reward functions returned None for a row")
    assert "SECRET TREE" not in message
