"""Human surface: room tasks and the board."""

from ...http.deps import current_user
from ..room_tasks import task_routes

router = task_routes(current_user)
