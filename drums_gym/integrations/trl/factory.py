"""`DrumsEnvironments`: the ``environment_factory`` to give ``GRPOTrainer``. Its rollouts of
one prompt's group start from one forked state; it closes every desktop it made when
training ends (it is a ``TrainerCallback``) and at exit."""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Sequence
from typing import Any

from transformers import TrainerCallback

from ...client import Client, DrumsError, connect
from .environment import DrumsToolEnv, EpisodeResult
from .groups import ForkGroups
from .quiet import QUIET_ROWS, TRL_LOG, quiet_unscorable_rows

__all__ = ["DrumsEnvironments"]

log = logging.getLogger("drums_gym.integrations.trl")


class DrumsEnvironments(TrainerCallback):
    """Makes :class:`DrumsToolEnv` instances for TRL and closes them all.

    TRL calls the factory once per concurrent rollout and pools the instances, reusing
    them batch after batch, and never closes them; pass the same object as a callback so
    the desktops are deleted when ``train()`` ends (they are also deleted at interpreter
    exit, and by :meth:`close`). All instances share one client.

    **Groups on forks.** The members of one prompt's group (TRL resets ``num_generations``
    environments with the same row, side by side) start from one saved state: the first
    member makes a parent desktop, applies ``prefix`` once, forks it into the group in one
    branch call (:attr:`branch_calls`), and the parent is deleted; each member plays a
    child. A row whose rewards are all None (invalid episodes) is logged by TRL without its
    prompt and completion while this factory is a callback of the trainer.

    Args:
        task: the default task (a dataset's ``task`` column overrides it per row).
        client: a Drums client to share (default: ``connect(url=url, token=token)``, owned
            and closed here).
        url, token: where to connect when no client is given.
        env_class: the environment class (a :class:`DrumsToolEnv` subclass of yours, say
            with other observations); TRL reads the tools off it.
        group_size: members per group (default: the trainer's ``num_generations``, read
            when training begins; before that, or outside a trainer, each environment
            resets a desktop of its own).
        prefix: actions applied once on each group's parent before forking (a shared
            mid-episode start; the members' step limit counts after it).
        **env_kwargs: for :class:`DrumsToolEnv` (``vision=``, ``max_steps=``, ``screen=``)
            and the desktop (``randomize=`` and the rest of ``gym.make``'s arguments).

    Example:
        >>> from trl import GRPOConfig, GRPOTrainer                       # doctest: +SKIP
        >>> envs = DrumsEnvironments("e0df059f", vision=False, max_steps=10)  # doctest: +SKIP
        >>> trainer = GRPOTrainer(model, train_dataset=dataset, args=GRPOConfig(...),
        ...                       environment_factory=envs, callbacks=[envs])  # doctest: +SKIP
        >>> trainer.train()                                               # doctest: +SKIP
    """

    def __init__(
        self,
        task: str = "e0df059f",
        *,
        client: Client | None = None,
        url: str | None = None,
        token: str | None = None,
        env_class: type[DrumsToolEnv] = DrumsToolEnv,
        group_size: int | None = None,
        prefix: Sequence[str] = (),
        **env_kwargs: Any,
    ) -> None:
        if client is not None and (url is not None or token is not None):
            raise ValueError("pass either client or url/token, not both")
        if not (isinstance(env_class, type) and issubclass(env_class, DrumsToolEnv)):
            raise ValueError(f"env_class must be DrumsToolEnv or a subclass, got {env_class!r}")
        probe = env_class(task, client=client or _NO_CLIENT, **env_kwargs)  # checks them
        self.groups = ForkGroups(group_size, prefix, probe._desktop_kwargs())
        self._group_size_given = group_size is not None
        self.env_class = env_class
        self.task = task
        self.env_kwargs = dict(env_kwargs)
        self._url, self._token = url, token
        self._client = client
        self._lock = threading.Lock()
        self._envs: list[DrumsToolEnv] = []
        self._owned: list[Client] = []  # the client made here, once made
        self._closed = False
        self._finalizer = weakref.finalize(
            self, _close_all, self._envs, self.groups, self._owned, self._lock
        )
        self._at_exit = False

    def __call__(self) -> DrumsToolEnv:
        """A new environment (TRL calls this once per concurrent rollout)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("these Drums environments are closed")
            if self._client is None:
                self._client = connect(url=self._url, token=self._token)
                self._owned.append(self._client)
            if not self._at_exit:
                # registered after connect() started any embedded host, so at exit the
                # desktops go before that host stops (atexit runs last-in, first-out)
                atexit.register(self._finalizer)
                self._at_exit = True
            env = self.env_class(self.task, client=self._client, **self.env_kwargs)
            env._groups = self.groups
            self._envs.append(env)
            return env

    @property
    def environments(self) -> list[DrumsToolEnv]:
        """The environments made so far."""
        return list(self._envs)

    @property
    def results(self) -> list[EpisodeResult]:
        """Every finished rollout of every environment (valid or not), by environment."""
        return [r for env in self._envs for r in env.results]

    def close(self) -> None:
        """Delete every desktop; close the client if it was made here. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._finalizer()

    @property
    def branch_calls(self) -> int:
        """Branch calls made for the groups so far (one per group up to the fork limit)."""
        return self.groups.branch_calls

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """TRL's trainer begins: the group size is its ``num_generations`` (unless given);
        TRL's warning about unscorable rows stops carrying their prompts."""
        generations = getattr(args, "num_generations", None)
        if not self._group_size_given and isinstance(generations, int) and generations > 0:
            self.groups.size = generations
        quiet_unscorable_rows()

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """TRL's trainer ends: delete the desktops."""
        TRL_LOG.removeFilter(QUIET_ROWS)
        self.close()

    def __repr__(self) -> str:
        return f"<DrumsEnvironments task={self.task} made={len(self._envs)}>"


class _NoClient:
    """Stands in for a client while only the arguments are checked (nothing connects)."""


_NO_CLIENT: Any = _NoClient()


def _close_all(
    envs: list[DrumsToolEnv], groups: ForkGroups, owned: list[Client], lock: threading.Lock
) -> None:
    """Delete every environment's desktop and the children no member took, then close the
    client made for them."""
    with lock:
        pending = list(envs)
    try:
        groups.close()
        for env in pending:
            try:
                env._close()
            except DrumsError as exc:  # the host is gone: the desktop's lease bounds it
                log.warning("could not delete a desktop of %r: %s", env, exc)
    finally:
        for client in owned:
            client.close()
