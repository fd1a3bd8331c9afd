"""``drums-gym serve``: run the local Drums-compatible host in the foreground."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the local Drums-compatible host",
        description="Serve simulated desktops over the Drums v1 HTTP API (docs/http-api.md).",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    p.add_argument("--port", type=int, default=8765, help="port (0: a free one; default 8765)")
    p.add_argument(
        "--token",
        action="append",
        default=[],
        metavar="T",
        help="accept this bearer token (repeatable); none: accept any",
    )
    p.add_argument(
        "--faults",
        default=None,
        metavar="SPEC",
        help="fault spec, e.g. gate_fail=0.1,fork_child_fail=0.2,latency_ms=50",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the fault rolls (default 0)")
    p.add_argument("--live-desktops", type=int, default=16, help="live desktops per workspace")
    p.add_argument("--host-desktops", type=int, default=32, help="desktops on the whole host")
    p.add_argument("--fork-limit", type=int, default=8, help="children per fork")
    p.add_argument("--saved-states", type=int, default=8, help="saved states per workspace")
    p.add_argument("--default-ttl", type=float, default=900.0, help="default lease, seconds")
    p.add_argument("--max-ttl", type=float, default=86400.0, help="longest lease, seconds")
    p.add_argument(
        "--state-idle-ttl", type=float, default=1800.0, help="idle lease of a saved state, seconds"
    )
    p.add_argument(
        "--gate-delay", type=float, default=0.2, help="seconds until a new episode's gates resolve"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..local.faults import FaultSpec
    from ..local.host import HostConfig
    from ..local.server import LocalHost

    try:
        config = HostConfig(
            live_desktops=args.live_desktops,
            host_desktops=args.host_desktops,
            fork_limit=args.fork_limit,
            saved_states=args.saved_states,
            default_ttl_s=args.default_ttl,
            max_ttl_s=args.max_ttl,
            state_idle_ttl_s=args.state_idle_ttl,
            gate_delay_s=args.gate_delay,
        )
        faults = FaultSpec.parse(args.faults)
        server = LocalHost(
            config, host=args.host, port=args.port, tokens=args.token, faults=faults, seed=args.seed
        )
    except ValueError as exc:
        print(f"drums-gym serve: {exc}", file=sys.stderr)
        return 2
    try:  # LocalHost warns (logging) when it binds beyond loopback
        server.start()
    except OSError as exc:
        print(f"drums-gym serve: cannot bind {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    auth = f"{len(args.token)} token(s)" if args.token else "no auth"
    try:  # Ctrl-C may come as soon as the line is out, before print returns
        print(f"drums-gym local host serving at {server.url} ({auth}; faults: {faults})",
              flush=True)
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
