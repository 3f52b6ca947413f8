"""Device headers shared by the GPU toolchains (NVRTC and hiprtc).

``gpu_include/`` holds the headers whose text is the same for NVIDIA and AMD (bit-exact 16-bit
and 8-bit float conversions and arithmetic, the ``hip_bfloat16`` class); each toolchain puts it on
the include path after its own ``include/``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

SHARED_INCLUDE_DIR = Path(__file__).with_name("gpu_include")


def headers_digest(*dirs: Path) -> str:
    """A short digest of every file under ``dirs`` (names and contents), for cache keys."""
    h = hashlib.sha256()
    for root in dirs:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                h.update(f"{root.name}/{path.relative_to(root)}".encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]
