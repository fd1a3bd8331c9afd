"""Episodes and gates of the local host.

An episode is pending until its gates resolve (``gate_delay_s`` after it starts), valid
when all pass, invalid once a gate fails or the host flags it. Invalid is final. State is
advanced lazily: every read calls :meth:`Episode.refresh` with the current time, so the
host needs no thread per episode.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from .. import protocol as P
from .faults import EPISODE_FAULTS, Faults

__all__ = ["Episode", "Gate"]


@dataclass
class Gate:
    name: str
    status: str = "pending"  # pending | passed | failed
    detail: str | None = None

    def public(self) -> P.GateReply:
        return P.GateReply(name=self.name, status=self.status, detail=self.detail)


@dataclass
class Episode:
    """One episode of a slot. Times are ``time.monotonic()`` seconds."""

    number: int
    gates: list[Gate]
    resolve_at: float
    id: str = field(default_factory=lambda: "ep_" + secrets.token_hex(6))
    started_at: float = field(default_factory=time.time)
    status: str = "pending"  # pending | valid | invalid
    invalid_reason: str | None = None
    actions: int = 0
    log: list[P.ActionLogEntry] = field(default_factory=list)
    failing_gate: str | None = None  # planned: this gate fails at resolution
    fault_reason: str | None = None  # planned: host flags the episode after the gates pass
    fault_after_actions: int = 0
    last_action: str | None = None  # DONE | FAIL | WAIT | code (protocol's LAST_ACTION_CODE)
    score: float | None = None  # the last verify's score (the live view's verdict)

    @classmethod
    def start(
        cls, number: int, gate_names: tuple[str, ...], gate_delay_s: float, faults: Faults
    ) -> Episode:
        """A new pending episode with its faults planned up front (seeded)."""
        episode = cls(
            number=number,
            gates=[Gate(name) for name in gate_names],
            resolve_at=time.monotonic() + gate_delay_s,
        )
        spec = faults.spec
        if gate_names and faults.roll("gate_fail", spec.gate_fail):
            episode.failing_gate = faults.rng("gate_pick").choice(gate_names)
        for kind, reason in EPISODE_FAULTS.items():
            if faults.roll(kind, getattr(spec, kind)):
                episode.fault_reason = reason
                episode.fault_after_actions = faults.rng(kind + "_at").randint(0, 2)
                break
        return episode

    def invalidate(self, reason: str) -> None:
        """Flag the episode invalid (final); pending gates stay pending in the report."""
        if self.status != "invalid":
            self.status = "invalid"
            self.invalid_reason = reason

    def refresh(self, now: float | None = None) -> None:
        """Advance the episode to ``now``: resolve gates, strike planned faults."""
        if self.status == "pending" and (now if now is not None else time.monotonic()) >= (
            self.resolve_at
        ):
            for gate in self.gates:
                if gate.name == self.failing_gate:
                    gate.status, gate.detail = "failed", f"{gate.name} check did not pass"
                else:
                    gate.status = "passed"
            if self.failing_gate is not None:
                self.invalidate("gate_failed")
            else:
                self.status = "valid"
        if (
            self.status == "valid"
            and self.fault_reason is not None
            and self.actions >= self.fault_after_actions
        ):
            self.invalidate(self.fault_reason)

    def public(self) -> P.EpisodeReply:
        return P.EpisodeReply(
            id=self.id,
            number=self.number,
            status=self.status,
            invalid_reason=self.invalid_reason,
            gates=tuple(g.public() for g in self.gates),
            actions=self.actions,
            started_at=self.started_at,
            last_action=self.last_action,
            score=self.score,
        )
