"""Anthropic needs no integration module: use ``band.adapters.AnthropicAdapter`` with
``AnthropicAdapterConfig`` (pip install 'openband[anthropic]')."""

__all__: list[str] = []
