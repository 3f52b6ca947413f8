"""The errors of :mod:`openhip.llm` (part of openhip's one exception tree)."""

from __future__ import annotations

from ..errors import OpenHipError

__all__ = ["GGUFError", "UnsupportedModelError"]


class GGUFError(OpenHipError, ValueError):
    """A GGUF file that cannot be read: truncated, corrupt, or missing a tensor or key."""


class UnsupportedModelError(GGUFError):
    """A well-formed GGUF file of an architecture or tensor type openhip.llm does not run."""
