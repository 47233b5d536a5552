"""Fan-out gaps a node has not announced yet (read by whoever finds that node dead)."""

from __future__ import annotations

from sqlalchemy import Float, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base


class FanoutGap(Base):
    """One row per node whose publishes were lost and not announced yet: from ``since``
    (epoch seconds, the node's clock) its broadcasts may have reached no other node. The node
    deletes it once it has announced the gap; a node that finds it dead first announces it in
    its stead (docs/decisions.md, "A fan-out gap closes only the sockets opened before it
    ended")."""

    __tablename__ = "fanout_gaps"
    node_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    since: Mapped[float] = mapped_column(Float)
