"""Desktop workers: one OS process per desktop, forked from a pre-loaded zygote.

- :mod:`.station`: what runs beside a desktop (its work), in a worker or in-process.
- :mod:`.worker`: the worker's request loop; :mod:`.zygote`: the fork server.
- :mod:`.pool`: the host's side (spawn, fork, deadlines, kill); :mod:`.confine`: the OS
  limits (cgroups, or rlimits); :mod:`.rpc`: the framed messages between them.
"""

from .pool import Pool, Worker, WorkerBug, WorkerLost, WorkerTimeout
from .station import ACTION_GAP_S, Acted, Station, Verdict
from .worker import WorkerLimits

__all__ = [
    "ACTION_GAP_S", "Acted", "Pool", "Station", "Verdict", "Worker", "WorkerBug",
    "WorkerLimits", "WorkerLost", "WorkerTimeout",
]
