"""OS limits of one desktop's sandbox: a cgroup (v1: pids, memory, cpu) where the machine
lets the host make one, and rlimits (set by the broker on itself, so every program of the
sandbox inherits them) always.

cgroup v1 is what these machines mount (``/sys/fs/cgroup/{pids,memory,cpu}``, writable by
root). Without it (no cgroup, or v2 only, or an unprivileged host) the fallback is rlimits
alone: RLIMIT_NPROC is then per user id across the machine and RLIMIT_AS per process,
weaker than a cgroup; `Cgroup.create` returns None and `describe` says which is in force.
"""

from __future__ import annotations

import contextlib
import glob
import os
import signal
import time
import uuid
from dataclasses import dataclass

__all__ = ["CGROUP_ROOT", "Cgroup", "SandboxLimits", "cgroup_name", "remove_cgroups_of",
           "remove_orphaned_cgroups"]

CGROUP_ROOT = "/sys/fs/cgroup"
_GROUP = "drums-desktops"


@dataclass(frozen=True)
class SandboxLimits:
    """What one desktop's programs may use together (cgroup) or each (rlimits)."""

    pids: int = 512
    memory_bytes: int = 1 << 30
    cpu_cores: float = 1.0
    file_bytes: int = 256 << 20
    open_files: int = 1024

    def rlimits(self, with_cgroup: bool) -> dict[str, int]:
        """The rlimits the broker sets (names of `resource` constants)."""
        out = {"RLIMIT_FSIZE": self.file_bytes, "RLIMIT_NOFILE": self.open_files,
               "RLIMIT_CORE": 0}
        if not with_cgroup:
            out["RLIMIT_AS"] = self.memory_bytes
            out["RLIMIT_NPROC"] = self.pids
        return out


def _write(path: str, value: str) -> bool:
    try:
        with open(path, "w") as f:
            f.write(value)
    except OSError:
        return False
    return True


def cgroup_name(owner: int) -> str:
    """A new sandbox cgroup's name, beginning with its owner's pid (the desktop's process)."""
    return f"{owner}-{uuid.uuid4().hex[:12]}"


def remove_cgroups_of(owner: int) -> None:
    """Kill what is left in the sandbox cgroups of process ``owner`` and remove them: what
    a desktop worker killed before it could close its sandbox leaves (its host calls this)."""
    groups: dict[str, dict[str, str]] = {}
    for ctl in ("pids", "memory", "cpu"):
        for path in glob.glob(os.path.join(CGROUP_ROOT, ctl, _GROUP, f"{owner}-*")):
            groups.setdefault(os.path.basename(path), {})[ctl] = path
    for dirs in groups.values():
        Cgroup(dirs).remove()


def remove_orphaned_cgroups() -> None:
    """Remove the empty sandbox cgroups whose owner process is gone: what the desktops of a
    host killed before it could release them left (a host calls this as it starts). Only
    empty ones: a cgroup still holding processes is not this host's to end (its owner may
    live in another PID namespace)."""
    for ctl in ("pids", "memory", "cpu"):
        for path in glob.glob(os.path.join(CGROUP_ROOT, ctl, _GROUP, "*-*")):
            owner = os.path.basename(path).split("-", 1)[0]
            if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                with contextlib.suppress(OSError):
                    os.rmdir(path)


class Cgroup:
    """One desktop's cgroups (one directory per controller); `procs` lists the files a
    process writes its pid to so that it and its descendants are counted."""

    def __init__(self, dirs: dict[str, str]) -> None:
        self.dirs = dirs

    @classmethod
    def create(cls, name: str, limits: SandboxLimits) -> Cgroup | None:
        """Make and configure the cgroups, or None where the machine does not allow it."""
        dirs: dict[str, str] = {}
        for ctl in ("pids", "memory", "cpu"):
            top = os.path.join(CGROUP_ROOT, ctl)
            if not os.path.isfile(os.path.join(top, "cgroup.procs")):
                continue
            path = os.path.join(top, _GROUP, name)
            try:
                os.makedirs(path, exist_ok=True)
            except OSError:
                continue
            dirs[ctl] = path
        group = cls(dirs)
        ok = "pids" in dirs and "memory" in dirs
        ok = ok and _write(os.path.join(dirs["pids"], "pids.max"), str(limits.pids))
        ok = ok and _write(os.path.join(dirs["memory"], "memory.limit_in_bytes"),
                           str(limits.memory_bytes))
        if not ok:
            group.remove()
            return None
        _write(os.path.join(dirs["memory"], "memory.memsw.limit_in_bytes"),
               str(limits.memory_bytes))
        _write(os.path.join(dirs["memory"], "memory.swappiness"), "0")
        if "cpu" in dirs:
            period = 100_000
            _write(os.path.join(dirs["cpu"], "cpu.cfs_period_us"), str(period))
            if not _write(os.path.join(dirs["cpu"], "cpu.cfs_quota_us"),
                          str(int(period * limits.cpu_cores))):
                with contextlib.suppress(OSError):
                    os.rmdir(dirs.pop("cpu"))
        return group

    @property
    def procs(self) -> list[str]:
        return [os.path.join(d, "cgroup.procs") for d in self.dirs.values()]

    def pids(self) -> list[int]:
        """Every process in the desktop's pids cgroup."""
        path = self.dirs.get("pids")
        if path is None:
            return []
        try:
            with open(os.path.join(path, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return []

    def memory_peak(self) -> int:
        """The most memory the desktop used (bytes), 0 when unknown."""
        path = self.dirs.get("memory")
        try:
            with open(os.path.join(path or "", "memory.max_usage_in_bytes")) as f:
                return int(f.read())
        except (OSError, ValueError):
            return 0

    def kill_all(self, spare: int | None = None) -> None:
        """SIGKILL every process left in the cgroup but ``spare`` (pids.max stops forks
        from outrunning the loop; a few rounds catch what was being born)."""
        for _ in range(20):
            pids = [p for p in self.pids() if p != spare]
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)

    def remove(self) -> None:
        """Kill what is left and remove the cgroup directories."""
        self.kill_all()
        for path in self.dirs.values():
            for _ in range(50):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.dirs = {}
