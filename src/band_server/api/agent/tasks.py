"""Agent surface: room tasks and the board."""

from ...http.deps import current_agent
from ..room_tasks import task_routes

router = task_routes(current_agent)
