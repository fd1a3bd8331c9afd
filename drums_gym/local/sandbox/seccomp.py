"""The seccomp filter of a desktop's sandbox (x86-64): what no program in it may do.

bwrap loads it (``--seccomp FD``) before starting the broker, so every program of the
sandbox inherits it. Refused with EPERM: new namespaces (``unshare``, ``setns``, ``clone``
with a ``CLONE_NEW*`` flag: no user namespaces, so ``unshare -U`` fails), mounts (``mount``,
``umount2``, ``pivot_root`` and the new mount API), ``ptrace``, kernel modules, ``kexec``,
``bpf``, ``perf_event_open``, ``userfaultfd``, ``open_by_handle_at``, keyrings, swap,
``reboot``, port I/O; ``clone3`` answers ENOSYS (its flags are behind a pointer) so libc
falls back to ``clone``; x32 system calls are refused. On another architecture there is no
filter (`program` returns None) and the capability set alone holds.
"""

from __future__ import annotations

import errno
import platform
import struct

__all__ = ["BLOCKED", "program"]

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000
_CLONE = 56
_CLONE3 = 435
_CLONE_NEW = 0x7E020080  # CLONE_NEW{USER,PID,NET,UTS,IPC,CGROUP,NS,TIME}
#: x86-64 system calls refused with EPERM
BLOCKED: dict[str, int] = {
    "ptrace": 101, "pivot_root": 155, "chroot": 161, "mount": 165, "umount2": 166,
    "swapon": 167, "swapoff": 168, "reboot": 169, "iopl": 172, "ioperm": 173,
    "init_module": 175, "delete_module": 176, "kexec_load": 246, "add_key": 248,
    "request_key": 249, "keyctl": 250, "unshare": 272, "perf_event_open": 298,
    "open_by_handle_at": 304, "setns": 308, "finit_module": 313, "kexec_file_load": 320,
    "bpf": 321, "userfaultfd": 323, "open_tree": 428, "move_mount": 429, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
}
_LD_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_RET = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_KILL = 0x80000000  # SECCOMP_RET_KILL_PROCESS


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def program() -> bytes | None:
    """The filter as bwrap reads it (an array of ``struct sock_filter``), or None."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    eperm = _ERRNO | errno.EPERM
    ops = [_op(_LD_ABS, 4), _op(_JEQ, _AUDIT_ARCH_X86_64, 1, 0), _op(_RET, _KILL),
           _op(_LD_ABS, 0), _op(_JGE, _X32_BIT, 0, 1), _op(_RET, eperm)]
    for nr in BLOCKED.values():
        ops += [_op(_JEQ, nr, 0, 1), _op(_RET, eperm)]
    ops += [_op(_JEQ, _CLONE3, 0, 1), _op(_RET, _ERRNO | errno.ENOSYS),
            _op(_JEQ, _CLONE, 0, 3), _op(_LD_ABS, 16), _op(_JSET, _CLONE_NEW, 0, 1),
            _op(_RET, eperm), _op(_RET, _ALLOW)]
    return b"".join(ops)
