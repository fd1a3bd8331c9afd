"""The request bodies of the host's HTTP API: all request validation is here.

The shapes are :mod:`drums_gym.protocol`'s (``CreateSlotBody``, ...); these pydantic models
add the bounds and the OpenAPI descriptions, and `wire` turns a validated body into its
protocol shape (``tests/local/test_host_api.py`` checks both spell the same fields).

:func:`body_models` builds the pydantic models for one host's limits (a ``ttl_s`` beyond
its ``max_ttl_s`` or an ``n`` beyond its fork limit is a 422 naming the field, and the
OpenAPI document shows the bounds). Strings refuse lone surrogates: text that cannot be
UTF-8 is a 422, never a 500.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
)

from .. import protocol as P
from ..actions.limits import MAX_CODE_CHARS
from .config import HostConfig

__all__ = ["MAX_VERIFY_WAIT_S", "BodyModels", "Randomize", "ResetBody", "Text", "body_models"]

T = TypeVar("T")

#: the longest a verify waits for a pending episode's gates
MAX_VERIFY_WAIT_S = P.MAX_VERIFY_WAIT_S


def _unicode(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (it holds a lone surrogate)") from None
    return value


Text = Annotated[str, AfterValidator(_unicode)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")

    def wire(self, shape: type[T]) -> T:
        """The validated body as the protocol's ``shape`` (:mod:`drums_gym.protocol`)."""
        return P.decode(shape, self.model_dump(), "body")


class ScreenSize(_Body):
    width: StrictInt = Field(1920, ge=640, le=3840, description="Screen width in pixels")
    height: StrictInt = Field(1080, ge=480, le=2160, description="Screen height in pixels")


class Randomize(_Body):
    seed: StrictInt = Field(
        ...,
        ge=0,
        le=P.MAX_SEED,
        description="Vary what no checker reads (icon placement, window offset, wallpaper, "
        "clock, dates of files the setup did not make) by this seed; the same seed gives "
        "the same desktop",
        examples=[7],
    )


class ResetBody(_Body):
    randomize: Randomize | None = Field(
        None, description="Randomize the fresh desktop (default: the task's original desktop)"
    )
    state: StrictStr | None = Field(
        None,
        min_length=1,
        max_length=64,
        description="Start the episode from this saved state of the workspace (of the same "
        "task and screen) instead of the task's initial desktop; its setup does not run again",
        examples=["st_0b6f3e2d1c4a"],
    )


class ActionBody(_Body):
    code: Text = Field(
        ...,
        max_length=MAX_CODE_CHARS,
        description="pyautogui code, or a control word: DONE, FAIL or WAIT",
        examples=["pyautogui.click(960, 540)", "DONE"],
    )


class VerifyBody(_Body):
    strict: StrictBool = Field(True, description="Answer 409 unless the episode is valid")
    timeout_s: float = Field(
        30.0,
        ge=0,
        strict=True,
        le=MAX_VERIFY_WAIT_S,
        description="How long to wait for a pending episode's gates before judging",
    )


@dataclass(frozen=True)
class BodyModels:
    """The models whose bounds depend on the host's config."""

    create: type[_Body]
    branch: type[_Body]
    lease: type[_Body]


def body_models(config: HostConfig) -> BodyModels:
    """Pydantic models for a host with ``config``'s limits."""
    max_ttl = config.max_ttl_s

    class CreateSlot(_Body):
        task: Text = Field(
            ..., description="Task id, full or its first 8 characters", examples=["e0df059f"]
        )
        ttl_s: float | None = Field(
            None,
            gt=0,
            le=max_ttl,
            strict=True,
            description="Lease in seconds (default: the host's)",
        )
        screen: ScreenSize | None = None
        randomize: Randomize | None = Field(
            None, description="Randomize the desktop (default: the task's original desktop)"
        )

    class Branch(_Body):
        n: StrictInt = Field(
            ...,
            ge=0,
            le=config.fork_limit,
            description="How many children (0 to the fork limit; 0 only saves the state)",
        )
        delete_state_with_children: StrictBool = Field(
            False, description="Delete the saved state when its last child is deleted"
        )
        ttl_s: float | None = Field(
            None, gt=0, le=max_ttl, strict=True, description="The children's lease in seconds"
        )

    class LeaseBody(_Body):
        ttl_s: float = Field(
            ...,
            gt=0,
            le=max_ttl,
            strict=True,
            description="The lease now ends ttl_s seconds from now",
        )

    return BodyModels(CreateSlot, Branch, LeaseBody)
