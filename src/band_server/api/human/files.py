"""Human surface: room files (upload, download)."""

from ...http.deps import current_user
from ..room_files import file_routes

router = file_routes(current_user)
