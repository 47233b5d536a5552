"""``CleanupRegistry``: ``SimpleAdapter``'s view of its ``AdapterDisposal``."""

from __future__ import annotations

from .disposal import AdapterDisposal, CleanupCallback

__all__ = ["CleanupCallback", "CleanupRegistry"]


class CleanupRegistry(AdapterDisposal):
    """Add before start, accept a host at start, run at stop (failures stay for a retry)."""

    def add(self, callback: CleanupCallback) -> None:
        self.register(callback)

    @property
    def has_callbacks(self) -> bool:
        return self.requires_ownership

    def accept_host(self, host: object) -> None:
        """Seal registrations; an adapter with callbacks belongs to ``host`` from now on."""
        self.check_owner(host, exclusive=bool(self.callbacks))
        self.accept(host, exclusive=bool(self.callbacks))

    async def run(self, host: object | None = None) -> None:
        """Run the callbacks; once all succeed the resources count as disposed."""
        had_callbacks = bool(self.callbacks)
        self.disposing = True
        await self.run_callbacks()
        self.disposing = False
        self.finished = had_callbacks  # the owner stays: a disposed adapter never restarts
        self.sealed = False
