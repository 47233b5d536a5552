"""The Parlant adapter: Band rooms answered by a Parlant agent and its guidelines.

Importing this package does not import Parlant; the server boots (and needs the
``parlant`` extra) when the agent starts.
"""

from .adapter import ParlantAdapter
from .config import ConfigureCallback, ParlantAdapterConfig

__all__ = ["ConfigureCallback", "ParlantAdapter", "ParlantAdapterConfig"]
