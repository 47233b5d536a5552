"""Earlier name of the single-instance guard (``band.runtime.single_instance``)."""

from band.runtime.single_instance import SingleInstanceGuard, lock_path

InstanceLock = SingleInstanceGuard

__all__ = ["InstanceLock", "lock_path"]
