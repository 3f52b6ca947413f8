"""A minimal ELF64 little-endian symbol-table reader.

Enough to list the kernels and globals of a CUDA cubin or an AMDGPU code object (both ELF64 LE)
without any vendor tool. The amd platform uses it too.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

STT_OBJECT = 1
STT_FUNC = 2
STB_GLOBAL = 1
STB_WEAK = 2


@dataclass(frozen=True)
class Symbol:
    """One ELF symbol: name, type (STT_*), binding (STB_*), st_other, size and section name."""

    name: str
    type: int
    bind: int
    other: int
    size: int
    section: str


def symbols(image: bytes) -> list[Symbol]:
    """Every symbol of the ELF64 LE ``image``; an empty list when it is not one."""
    if len(image) < 64 or image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        return []
    (e_shoff,) = struct.unpack_from("<Q", image, 0x28)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", image, 0x3A)
    if e_shoff == 0 or e_shentsize < 64 or e_shoff + e_shnum * e_shentsize > len(image):
        return []
    sections = []
    for i in range(e_shnum):
        off = e_shoff + i * e_shentsize
        name, stype, _flags, _addr, offset, size, link, _info, _align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", image, off)
        sections.append((name, stype, offset, size, link, entsize))

    def cstr(table: int, index: int) -> str:
        _, _, offset, size, _, _ = sections[table]
        start = offset + index
        end = image.find(b"\0", start, offset + size)
        return image[start:end if end >= 0 else offset + size].decode("utf-8", "replace")

    names = [cstr(e_shstrndx, s[0]) if e_shstrndx < len(sections) else "" for s in sections]
    out: list[Symbol] = []
    for _name, stype, offset, size, link, entsize in sections:
        if stype != 2 or entsize < 24:  # SHT_SYMTAB
            continue
        for k in range(size // entsize):
            st_name, st_info, st_other, st_shndx, _value, st_size = struct.unpack_from(
                "<IBBHQQ", image, offset + k * entsize)
            if st_name == 0:
                continue
            section = names[st_shndx] if 0 < st_shndx < len(names) else ""
            out.append(Symbol(cstr(link, st_name), st_info & 0xF, st_info >> 4, st_other,
                              st_size, section))
    return out
