"""A ``__device__`` helper that takes a generic ``thread_group`` and calls ``g.sync()`` (the
style of NVIDIA's simpleCooperativeGroups sample): the source scan must see the barrier through
the group's member call, so the kernel is not split as if the helper had none (that gave wrong
sums in regions mode)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import openhip as hip

ALSO_AS_FIBERS = True
SRC = (Path(__file__).with_name("cg_helper_group.hip")).read_text()


def test_helper_taking_a_thread_group_syncs(device):
    mod = hip.Module(SRC)
    fn = mod.get_function("cgkernel3")
    out = hip.zeros(9, np.int32)
    fn((1,), (64,), (out,), shared_mem=64 * 4)
    assert out.get().tolist() == [2016, 120, 120, 120, 120, 0, 0, 0, 0]
    assert mod.program.metadata["kernels"]["cgkernel3"]["mode"] in ("fibers", "regions")


def test_scan_sees_group_member_calls():
    from openhip.compiler.scan import scan

    assert "sumReduction" in scan(SRC).sync_names
