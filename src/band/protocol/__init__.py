"""The wire models under the SDK's name: a re-export of ``band_protocol``, kept for users.

The models live in ``band_protocol`` (imported by the SDK and the server alike); this
package and each of its submodules re-export them under band-sdk's paths.
"""

from band_protocol import *  # noqa: F403
from band_protocol import __all__ as __all__

# The submodules, bound as attributes as they were when the models lived here.
from . import (  # noqa: F401
    agents,
    contacts,
    delegation,
    errors,
    files,
    jobs,
    messages,
    pushes,
    requests,
    rooms,
    socket,
    tasks,
)
