"""The names an ELF object file defines, read from its symbol table.

A kernel in Numba's on-disk cache is stored as its machine code (an object file) beside its
LLVM bitcode. Loading it, Numba parses the bitcode only to learn which functions and data
the code defines (the bundled decoder's: 0.6 MB, 40-55 ms of every start-up); the object
file's symbol table names the same ones (checked on 3,000 cached kernels of every kind PAD
compiles) and reads in well under a millisecond. Anything but a 64-bit little-endian ELF
file (macOS, Windows) reads as None, and Numba's own way is used.
"""

from __future__ import annotations

import struct

_HEADER = b"\x7fELF\x02\x01"  # 64-bit, little-endian
_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym
_SYMTAB = 2  # sh_type of the symbol table
_UNDEFINED = 0  # st_shndx of a symbol the file uses but does not define
_DATA_OR_CODE = 2  # st_type NOTYPE 0, OBJECT 1, FUNC 2; SECTION 3 and FILE 4 name no symbol


def defined_symbols(obj: bytes) -> set[str] | None:
    """The names of the functions and data ``obj``, an ELF64 object file, defines (local
    ones too, as LLVM's module lists them); None where ``obj`` is not one or does not read
    as one."""
    if not obj.startswith(_HEADER):
        return None
    try:
        (shoff,) = struct.unpack_from("<Q", obj, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
        sections = [_SECTION.unpack_from(obj, shoff + i * shentsize) for i in range(shnum)]
        names: set[str] = set()
        for _, kind, _, _, offset, size, link, _, _, entsize in sections:
            if kind != _SYMTAB:
                continue
            strings = sections[link][4]
            for at in range(offset, offset + size, entsize or _SYMBOL.size):
                name, info, _, index, _, _ = _SYMBOL.unpack_from(obj, at)
                if index == _UNDEFINED or info & 0xF > _DATA_OR_CODE:
                    continue
                start = strings + name
                names.add(obj[start:obj.index(b"\0", start)].decode("utf-8"))
        return names
    except (struct.error, IndexError, ValueError):
        return None
