"""OS limits of desktop workers: a cgroup per worker, or rlimits where cgroups are closed.

With writable cgroup v1 controllers (``/sys/fs/cgroup/{memory,pids,cpu}``, as root), each
worker gets its own memory cgroup (``memory.limit_in_bytes``: past it the kernel kills the
worker, and only it) and pids cgroup (``pids.max``: processes it may own, its future
sandbox's included), and joins its workspace's cpu cgroup (``cpu.shares``: a workspace's
desktops share one workspace's weight of the CPU, however many are busy; all the host's
workspaces together weigh one busy process per core against the rest of the machine). Elsewhere the
worker caps its own address space (``RLIMIT_AS``) and the CPU is shared per process.
Open files are an rlimit in both modes (:func:`.worker.apply_limits`).

:attr:`Confinement.mode` is ``"cgroup"`` or ``"rlimit"``; ``/healthz`` reports it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import threading
import time
from pathlib import Path

__all__ = ["CGROUP_ROOT", "Cell", "Confinement"]

log = logging.getLogger("drums_gym.local")

CGROUP_ROOT = Path("/sys/fs/cgroup")
_CONTROLLERS = ("memory", "pids", "cpu")


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def _remove_stale(controller: Path) -> None:
    """Remove the empty cgroups of hosts that died without closing (their pid is gone)."""
    with contextlib.suppress(OSError):
        for path in controller.glob("drums-gym-*-*"):
            pid = path.name.split("-")[2]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                for child in path.iterdir():
                    if child.is_dir():
                        with contextlib.suppress(OSError):
                            child.rmdir()
                with contextlib.suppress(OSError):
                    path.rmdir()


class Cell:
    """One worker's cgroups (empty in rlimit mode); :meth:`release` ends what is left."""

    def __init__(self, dirs: dict[str, Path]) -> None:
        self.dirs = dirs

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of this worker for memory."""
        path = self.dirs.get("memory")
        if path is None:
            return False
        with contextlib.suppress(OSError):
            for line in (path / "memory.oom_control").read_text().splitlines():
                if line.startswith("oom_kill ") and int(line.split()[1]) > 0:
                    return True
            return int((path / "memory.failcnt").read_text()) > 0
        return False

    def pids(self) -> list[int]:
        path = self.dirs.get("pids")
        if path is None:
            return []
        with contextlib.suppress(OSError):
            return [int(p) for p in (path / "cgroup.procs").read_text().split()]
        return []

    def release(self) -> bool:
        """Kill every process left in the worker's cgroups and remove them; False while
        one is still exiting (call again later)."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        done = True
        for name, path in list(self.dirs.items()):
            if name == "cpu":  # the workspace's group, shared: not this worker's to remove
                del self.dirs[name]
                continue
            try:
                path.rmdir()
                del self.dirs[name]
            except FileNotFoundError:
                del self.dirs[name]
            except OSError:
                done = False
        return done


class Confinement:
    """The cgroups of one host's workers (``drums-gym-<pid>-<rand>`` under each controller)."""

    def __init__(self, memory_bytes: int, processes: int, root: Path = CGROUP_ROOT) -> None:
        self.memory_bytes, self.processes = memory_bytes, processes
        self.base: dict[str, Path] = {}
        name = f"drums-gym-{os.getpid()}-{secrets.token_hex(3)}"
        for controller in _CONTROLLERS:
            _remove_stale(root / controller)
            path = root / controller / name
            try:
                path.mkdir()
            except OSError:
                break
            self.base[controller] = path
        if len(self.base) != len(_CONTROLLERS):
            self._remove_bases()
        else:  # the host's desktops together weigh one busy process per core
            with contextlib.suppress(OSError):
                _write(self.base["cpu"] / "cpu.shares", str(1024 * (os.cpu_count() or 1)))
        self.mode = "cgroup" if self.base else "rlimit"
        self._pending: list[Cell] = []

    def admit(self, pid: int, workspace: str, worker: str) -> Cell:
        """Put the new worker ``pid`` in its own cgroups and its workspace's cpu group."""
        if not self.base:
            return Cell({})
        dirs: dict[str, Path] = {}
        try:
            mem = self.base["memory"] / worker
            mem.mkdir()
            dirs["memory"] = mem
            _write(mem / "memory.limit_in_bytes", str(self.memory_bytes))
            with contextlib.suppress(OSError):
                _write(mem / "memory.move_charge_at_immigrate", "3")
            pids = self.base["pids"] / worker
            pids.mkdir()
            dirs["pids"] = pids
            _write(pids / "pids.max", str(self.processes))
            cpu = self.base["cpu"] / workspace
            cpu.mkdir(exist_ok=True)
            dirs["cpu"] = cpu
            for path in dirs.values():
                _write(path / "cgroup.procs", str(pid))
        except OSError as exc:
            Cell(dirs).release()
            raise OSError(f"could not confine worker {pid} in its cgroups: {exc}") from exc
        return Cell(dirs)

    def retire(self, cell: Cell) -> None:
        """Release ``cell`` now, or later once its processes are gone."""
        if not cell.release():
            self._pending.append(cell)
        self._pending = [c for c in self._pending if not c.release()]

    def close(self, wait_s: float = 2.0) -> None:
        """Release every cell (waiting up to ``wait_s`` for killed processes to finish
        exiting) and remove the host's cgroups (best effort, logged)."""
        deadline = time.monotonic() + wait_s
        tick = threading.Event()
        while True:
            self._pending = [c for c in self._pending if not c.release()]
            if not self._pending or time.monotonic() > deadline:
                break
            tick.wait(0.01)
        self._remove_bases()

    def _remove_bases(self) -> None:
        for controller, path in list(self.base.items()):
            if controller == "cpu":
                for child in path.iterdir() if path.exists() else ():
                    if child.is_dir():
                        with contextlib.suppress(OSError):
                            child.rmdir()
            try:
                path.rmdir()
                del self.base[controller]
            except FileNotFoundError:
                del self.base[controller]
            except OSError as exc:
                log.warning("drums-gym local host: cgroup %s not removed: %s", path, exc)
