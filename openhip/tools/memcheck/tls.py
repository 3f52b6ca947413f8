"""Racecheck of static ``__shared__`` arrays: where they are in a kernel module's thread-local
storage, read from the module's ELF symbol table.

On the CPU platform a static ``__shared__`` array is a ``static thread_local`` variable of the
module (one instance per worker thread). Its offset in the module's TLS block and its size are
in the symbol table (``STT_TLS`` symbols; a function-local static is ``_ZZ<function>E<name>``);
the module turns offsets into this thread's addresses against a TLS variable of its own
(``tstate``), and marks the arrays tracked in the shadow (include/openhip_memcheck.h
``openhip_racecheck_shared``).
"""

from __future__ import annotations

import struct

__all__ = ["ANCHOR", "shared_arrays", "shared_padding"]

#: the engine's thread state, the TLS variable the offsets are taken against
ANCHOR = "_ZN7openhip6detailL6tstateE"
_STT_TLS = 6


def _tls_size(image: bytes) -> int | None:
    """p_memsz of the image's PT_TLS segment."""
    phoff, = struct.unpack_from("<Q", image, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", image, 0x36)
    for i in range(phnum):
        p_type, _flags, _off, _va, _pa, _filesz, memsz = struct.unpack_from(
            "<IIQQQQQ", image, phoff + i * phentsize)
        if p_type == 7:  # PT_TLS
            return memsz
    return None


def _symbols(image: bytes):
    """(name, value, size, type) of every symbol in the ELF64 little-endian ``image``'s
    ``.symtab`` (none when the image is not one or has no symbol table)."""
    if image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        return
    shoff, = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize)
                for i in range(shnum)]
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sec[6]]
        str_off = strtab[4]
        off, size, entsize = sec[4], sec[5], sec[9] or 24
        for pos in range(off, off + size, entsize):
            name_i, info, _other, _shndx, value, sym_size = struct.unpack_from("<IBBHQQ", image,
                                                                               pos)
            end = image.index(b"\0", str_off + name_i)
            yield image[str_off + name_i:end].decode(errors="replace"), value, sym_size, info & 15


#: the red zone checked mode declares with each static ``__shared__`` array (the header's
#: OPENHIP_MC_GUARD_NAME)
GUARD = "__openhip_mc_guard"


def _is_user_static(name: str) -> bool:
    # a function-local static of a function outside openhip's namespace (the kernel's
    # ``__shared__`` arrays; a guard variable is _ZGVZ..., the engine's are _ZZN7openhip...)
    return name.startswith("_ZZ") and not name.startswith("_ZZN7openhip") and GUARD not in name


def shared_arrays(image: bytes) -> tuple[list[tuple[int, int]], int | None]:
    """The (TLS offset, size) of the module's function-local ``thread_local`` arrays (its
    kernels' static ``__shared__`` memory) and the anchor's offset (None: not found)."""
    arrays: list[tuple[int, int]] = []
    anchor = None
    for name, value, size, kind in _symbols(image):
        if kind != _STT_TLS:
            continue
        if name == ANCHOR:
            anchor = value
        elif size > 0 and _is_user_static(name):
            arrays.append((value, size))
    return sorted(set(arrays)), anchor


def shared_padding(image: bytes) -> tuple[list[tuple[int, int]], int | None]:
    """The padding after each static ``__shared__`` array, up to the next TLS symbol or the end
    of the TLS segment, and each guard checked mode declares with an array (from its start),
    as (TLS offset, bytes): what memcheck poisons (checked mode aligns each array to a page, so
    an array smaller than that, or not a multiple of it, has padding; each is followed by its
    guard)."""
    if image[:4] != b"\x7fELF":
        return [], None
    arrays, anchor = shared_arrays(image)
    tls = [(value, size, name) for name, value, size, kind in _symbols(image)
           if kind == _STT_TLS and size > 0]
    starts = sorted({value for value, _, _ in tls})
    guards = sorted({(value, size) for value, size, name in tls if GUARD in name})
    top = _tls_size(image)
    padding = []
    # a guard is poisoned whole, with the padding after it: (its start, 0) below
    for off, size in [*arrays, *((g, 0) for g, _ in guards)]:
        end = off + size
        following = [s for s in starts if s > end or (s == end and size > 0)]
        limit = following[0] if following else top
        if limit is not None and limit > end:
            padding.append((end, limit - end))
    return sorted(set(padding)), anchor
