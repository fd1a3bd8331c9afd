"""``drums-gym serve``: run the local Drums-compatible host in the foreground."""

from __future__ import annotations

import argparse
import os
import signal
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
    p.add_argument(
        "--tasks",
        action="append",
        default=[],
        metavar="PATH",
        help="add the OSWorld task files of PATH (a file or folder; repeatable) to the catalog,"
        " after those of DRUMS_LOCAL_TASKS",
    )
    from ..local.config import KNOBS, HostConfig

    defaults = HostConfig()
    for knob in KNOBS:
        value = getattr(defaults, knob.field)
        p.add_argument(
            knob.flag,
            dest=knob.field,
            type=type(value),
            default=None,
            metavar="N",
            help=f"{knob.help} (default {value}; env {knob.env})",
        )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..local.config import KNOBS, HostConfig
    from ..local.faults import FaultSpec
    from ..local.server import LocalHost
    from ..local.tasks import ENV_TASKS, build_catalog, default_catalog, split_paths

    try:  # a flag beats its DRUMS_LOCAL_* variable, which beats the default
        flags = {k.field: getattr(args, k.field) for k in KNOBS}
        config = HostConfig.from_env(**{k: v for k, v in flags.items() if v is not None})
        faults = FaultSpec.parse(args.faults)
        catalog = default_catalog()  # the bundled tasks and those of DRUMS_LOCAL_TASKS
        if args.tasks:
            catalog = build_catalog([*split_paths(os.environ.get(ENV_TASKS)), *args.tasks])
        server = LocalHost(
            config,
            host=args.host,
            port=args.port,
            tokens=args.token,
            faults=faults,
            seed=args.seed,
            catalog=catalog,
        )
    except ValueError as exc:  # a TaskFileError too: it names the file and the problem
        print(f"drums-gym serve: {exc}", file=sys.stderr)
        return 2
    try:  # LocalHost warns (logging) when it binds beyond loopback
        server.start()
    except OSError as exc:
        print(f"drums-gym serve: cannot bind {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    auth = f"{len(args.token)} token(s)" if args.token else "no auth"
    stopping = threading.Event()
    # SIGTERM (kill, `docker stop`, a supervisor) stops as Ctrl+C does: the desktops are
    # ended and their workers' files and cgroups released, not left to the zygote
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stopping.set()) \
        if main_thread else None
    try:  # a Ctrl+C right after the line below is printed still stops cleanly
        line = f"drums-gym local host serving at {server.url} ({auth}; faults: {faults})"
        print(f"{line}; live view: {server.url}/v1/slots/<slot-id>/view", flush=True)
        stopping.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    return 0
