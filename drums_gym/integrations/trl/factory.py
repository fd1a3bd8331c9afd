"""`DrumsEnvironments`: the ``environment_factory`` to give ``GRPOTrainer``, which also
closes every desktop it made when training ends (it is a ``TrainerCallback``) and at exit."""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from typing import Any

from transformers import TrainerCallback

from ...client import Client, DrumsError, connect
from .environment import DrumsToolEnv, EpisodeResult

__all__ = ["DrumsEnvironments"]

log = logging.getLogger("drums_gym.integrations.trl")


class DrumsEnvironments(TrainerCallback):
    """Makes :class:`DrumsToolEnv` instances for TRL and closes them all.

    TRL calls the factory once per concurrent rollout and pools the instances, reusing
    them batch after batch, and never closes them; pass the same object as a callback so
    the desktops are deleted when ``train()`` ends (they are also deleted at interpreter
    exit, and by :meth:`close`). All instances share one client.

    Args:
        task: the default task (a dataset's ``task`` column overrides it per row).
        client: a Drums client to share (default: ``connect(url=url, token=token)``, owned
            and closed here).
        url, token: where to connect when no client is given.
        env_class: the environment class (a :class:`DrumsToolEnv` subclass of yours, say
            with other observations); TRL reads the tools off it.
        **env_kwargs: for :class:`DrumsToolEnv` (``vision=``, ``max_steps=``, ``screen=``).

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
        **env_kwargs: Any,
    ) -> None:
        if client is not None and (url is not None or token is not None):
            raise ValueError("pass either client or url/token, not both")
        if not (isinstance(env_class, type) and issubclass(env_class, DrumsToolEnv)):
            raise ValueError(f"env_class must be DrumsToolEnv or a subclass, got {env_class!r}")
        env_class(task, client=client or _NO_CLIENT, **env_kwargs)  # checks the arguments
        self.env_class = env_class
        self.task = task
        self.env_kwargs = dict(env_kwargs)
        self._url, self._token = url, token
        self._client = client
        self._lock = threading.Lock()
        self._envs: list[DrumsToolEnv] = []
        self._owned: list[Client] = []  # the client made here, once made
        self._closed = False
        self._finalizer = weakref.finalize(self, _close_all, self._envs, self._owned, self._lock)
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

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """TRL's trainer ends: delete the desktops."""
        self.close()

    def __repr__(self) -> str:
        return f"<DrumsEnvironments task={self.task} made={len(self._envs)}>"


class _NoClient:
    """Stands in for a client while only the arguments are checked (nothing connects)."""


_NO_CLIENT: Any = _NoClient()


def _close_all(envs: list[DrumsToolEnv], owned: list[Client], lock: threading.Lock) -> None:
    """Delete every environment's desktop, then close the client made for them."""
    with lock:
        pending = list(envs)
    try:
        for env in pending:
            try:
                env._close()
            except DrumsError as exc:  # the host is gone: the desktop's lease bounds it
                log.warning("could not delete a desktop of %r: %s", env, exc)
    finally:
        for client in owned:
            client.close()
