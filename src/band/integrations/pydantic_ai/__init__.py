"""Pydantic AI glue: Band's tools as native Pydantic AI tools (``tools``). The adapter is
``band.adapters.PydanticAIAdapter``."""

__all__: list[str] = []
