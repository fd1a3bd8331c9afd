"""``GET /v1/tasks`` and ``GET /v1/tasks/{id}``."""

from fastapi import APIRouter

from ... import protocol as P
from .common import HostDep, Workspace

__all__ = ["router"]


def router() -> APIRouter:
    routes = APIRouter(tags=["tasks"])

    @routes.get(P.TASKS, response_model=P.TaskList)
    def list_tasks(host: HostDep, ws: Workspace) -> P.TaskList:
        return P.TaskList(tasks=tuple(t.public() for t in host.catalog.values()))

    @routes.get(P.TASK_ROUTE, response_model=P.TaskReply)
    def get_task(task_id: str, host: HostDep, ws: Workspace) -> P.TaskReply:
        return host.task(task_id).public()

    return routes
