"""The deterministic gemm: a row's result is bit-identical alone or inside any batch, for any
matrix shape's tiling and thread count; ``with hnp.deterministic():`` switches every matmul."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import openhip.numpy as hnp


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.float16])
def test_row_alone_equals_row_in_any_batch(device, dtype):
    rng = np.random.default_rng(3)
    k, n = 77, 45
    w = rng.standard_normal((k, n)).astype(dtype)
    x = rng.standard_normal((64, k)).astype(dtype)
    W = hnp.asarray(w)
    alone = [hnp.matmul(hnp.asarray(x[i:i + 1]), W, deterministic=True).get()[0]
             for i in range(0, 64, 9)]
    for rows in (1, 2, 3, 5, 8, 17, 33, 64):
        batch = hnp.matmul(hnp.asarray(x[:rows]), W, deterministic=True).get()
        for j, i in enumerate(range(0, 64, 9)):
            if i < rows:
                assert batch[i].tobytes() == alone[j].tobytes(), (rows, i)
    # stacked as a 3-d batch too
    stacked = hnp.matmul(hnp.asarray(x.reshape(8, 8, k)), W, deterministic=True).get()
    assert stacked.reshape(64, n)[0].tobytes() == alone[0].tobytes()


def test_context_manager_switches_every_matmul(device):
    from openhip.numpy.linalg import _gemm

    assert not _gemm.deterministic_default()
    with hnp.deterministic():
        assert _gemm.deterministic_default()
        with hnp.linalg.deterministic():
            assert _gemm.deterministic_default()
        assert _gemm.deterministic_default()
    assert not _gemm.deterministic_default()


CODE = """
import hashlib, json, numpy as np, openhip.numpy as hnp
rng = np.random.default_rng(5)
a = hnp.asarray(rng.standard_normal((130, 70)).astype(np.float32))
b = hnp.asarray(rng.standard_normal((70, 90)).astype(np.float32))
print(json.dumps(hashlib.sha256(hnp.matmul(a, b, deterministic=True).get().tobytes()).hexdigest()))
"""


def test_same_bits_for_every_cpu_thread_count():
    digests = set()
    for threads in (1, 2, 3):
        env = dict(os.environ, OPENHIP_CPU_THREADS=str(threads), OPENHIP_PLATFORM="cpu")
        proc = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        digests.add(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert len(digests) == 1
