"""Turning platform events into adapter input: ``DefaultPreprocessor``."""

from band.preprocessing.default import DefaultPreprocessor

__all__ = ["DefaultPreprocessor"]
