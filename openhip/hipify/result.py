"""What a translation gives back: :class:`HipifyResult`, :class:`HipifyWarning`, and the
:class:`HipifyError` raised for input that cannot be translated."""

from __future__ import annotations

import dataclasses

from ..errors import OpenHipError
from .stats import Stats


class HipifyError(OpenHipError, ValueError):
    """A file that cannot be translated (binary data, bad encoding, unbalanced ``<<<``)."""

    def __init__(self, message: str, file: str = "<string>", line: int = 0, column: int = 0) -> None:
        where = f"{file}:{line}:{column}" if line else file
        super().__init__(f"{where}: {message}")
        self.message = message
        self.file = file
        self.line = line
        self.column = column

    def __reduce__(self):
        return (HipifyError, (self.message, self.file, self.line, self.column))


@dataclasses.dataclass(frozen=True)
class HipifyWarning:
    """Something the translator could not (or should not silently) translate."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: warning: {self.message}"


@dataclasses.dataclass
class HipifyResult:
    """What :func:`hipify` returns: the HIP ``text``, the ``warnings`` and the ``stats``."""

    text: str
    warnings: list[HipifyWarning]
    stats: Stats
    source: str = dataclasses.field(repr=False, default="")

    @property
    def changed(self) -> bool:
        """True when the translation differs from the input."""
        return self.text != self.source
