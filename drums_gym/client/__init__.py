"""A Drums client over httpx, with the Drums SDK's object model.

Code written against the Drums SDK ports by changing `import drums` to
`from drums_gym import client as drums`:

    >>> from drums_gym import client as drums
    >>> with drums.connect() as client:                            # doctest: +SKIP
    ...     with client.create(task="e0df059f", ttl=900) as parent:
    ...         parent.wait_valid()
    ...         with parent.fork(2, keep_state=False) as group:
    ...             rewards = client.map(lambda k: k.verify(strict=False), group)

`AsyncClient` (``async with drums.aconnect() as client``) is the same object model on
asyncio, with `gather` where the sync client has `map`.

With no URL (`DRUMS_URL` unset) it talks to the embedded local host. This package is the
only code in drums-gym that knows URLs, auth and retries; it never imports gymnasium.
"""

from .async_client import AsyncClient, AsyncForkGroup, AsyncSlot, aconnect
from .client import Client, connect
from .errors import (
    ActionError,
    APIError,
    Conflict,
    ConnectError,
    DrumsError,
    DrumsTimeout,
    ForkError,
    InvalidEpisode,
    InvalidRequest,
    NotFound,
    Overloaded,
    ProtocolError,
    QuotaExceeded,
    ServerError,
    TransportError,
    Unauthorized,
)
from .models import (
    Cut,
    Episode,
    Gate,
    HostInfo,
    HostLimits,
    HostUsage,
    Observation,
    Reward,
    Screen,
    SlotInfo,
    StateInfo,
    StepResult,
    TaskInfo,
)
from .slot import ForkGroup, Slot

__all__ = [
    "APIError",
    "ActionError",
    "AsyncClient",
    "AsyncForkGroup",
    "AsyncSlot",
    "Client",
    "Conflict",
    "ConnectError",
    "Cut",
    "DrumsError",
    "DrumsTimeout",
    "Episode",
    "ForkError",
    "ForkGroup",
    "Gate",
    "HostInfo",
    "HostLimits",
    "HostUsage",
    "InvalidEpisode",
    "InvalidRequest",
    "NotFound",
    "Observation",
    "Overloaded",
    "ProtocolError",
    "QuotaExceeded",
    "Reward",
    "Screen",
    "ServerError",
    "Slot",
    "SlotInfo",
    "StateInfo",
    "StepResult",
    "TaskInfo",
    "TransportError",
    "Unauthorized",
    "aconnect",
    "connect",
]
