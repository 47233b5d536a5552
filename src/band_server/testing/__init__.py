"""Test helpers that run the platform itself (``band.testing`` re-exports them lazily)."""
