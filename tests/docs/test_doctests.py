"""The docstring examples run (those that need no network are not skipped)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "drums_gym",
    "drums_gym.actions",
    "drums_gym.actions.parser",
    "drums_gym.registration",
    "drums_gym.grpo",
    "drums_gym.local.faults",
    "drums_gym.local.host",
    "drums_gym.local.sandbox.sandbox",
    "drums_gym.local.desktop.terminal_pty",
    "drums_gym.local.tasks.shell",
    "drums_gym.local.within",
    "drums_gym.protocol.codec",
    "drums_gym.cli.policies",
    "drums_gym.wrappers",
    "drums_gym.wrappers.episode_statistics",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"no examples in {name}"
    assert result.failed == 0, f"{result.failed} failing examples in {name}"
