"""band_server: the open, self-hostable Band platform."""

__version__ = "0.1.0"
