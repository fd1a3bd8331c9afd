"""The local Drums-compatible host: HTTP app, host model, desktop simulator, tasks.

It is a server, as separable as a real Drums host: it imports nothing of drums_gym but
the action language and the wire vocabulary (:mod:`drums_gym.protocol`). Its server
stack (FastAPI, uvicorn) is the ``drums-gym[local]`` extra, imported only when a host is
built, so the task catalog imports without it.

>>> from drums_gym.local import LocalHost, HostConfig
>>> config = HostConfig(gate_delay_s=0.05)
>>> with LocalHost(config, faults="gate_fail=0.1") as server:  # doctest: +SKIP
...     print(server.url)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .faults import FaultSpec
    from .host import Host, HostConfig
    from .server import LocalHost

__all__ = ["SERVER_STACK", "FaultSpec", "Host", "HostConfig", "LocalHost"]

#: the modules of the ``[local]`` extra (pyproject.toml) a host needs (uvloop, also in it,
#: is used where it is installed): one missing is said in one line with the install command
SERVER_STACK = ("fastapi", "uvicorn", "httptools", "starlette", "pydantic", "re2")

_LAZY = {
    "FaultSpec": "faults",
    "Host": "host",
    "HostConfig": "host",
    "LocalHost": "server",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'drums_gym.local' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{module}", __name__), name)
