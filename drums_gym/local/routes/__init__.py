"""The host's HTTP routes, one router per resource (each module declares its replies as
``response_model``, the shapes of :mod:`drums_gym.protocol`)."""

from fastapi import APIRouter

from ..bodies import BodyModels
from . import episodes, health, screen, slots, states, tasks

__all__ = ["routers"]


def routers(models: BodyModels) -> list[APIRouter]:
    """Every router of the v1 API, for a host whose request bounds are ``models``."""
    return [
        health.router(),
        tasks.router(),
        slots.router(models),
        episodes.router(),
        screen.router(),
        states.router(models),
    ]
