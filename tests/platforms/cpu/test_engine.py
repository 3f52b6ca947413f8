"""The execution engine: modes, fibers, deadlock detection, the loop-mode safety net, traps."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest
from cpu_helpers import build, pack, ptr

from openhip.errors import HipError

KERNELS = Path(__file__).resolve().parents[2] / "kernels"


def sync_error(cpu) -> HipError:
    with pytest.raises(HipError) as info:
        cpu.stream_synchronize(0, None)
    return info.value


def test_modes_in_metadata(cpu):
    src = """
    __global__ void plain(float* x) { x[threadIdx.x] = 1; }
    __device__ void helper(float* x) { if (x[0] > 1) return; __syncthreads(); }
    __global__ void synced(float* x) { helper(x); x[threadIdx.x] = 2; }
    __global__ void warped(int* x) {
      while (__any_sync(0xffffffffu, x[threadIdx.x] > 0)) --x[threadIdx.x];
    }
    __global__ void split(float* x) { x[threadIdx.x] = 1; __syncthreads(); x[0] = 2; }
    """
    program, _, _ = build(cpu, src)
    kernels = program.metadata["kernels"]
    modes = {k: v["mode"] for k, v in kernels.items()}
    assert modes == {"plain": "loop", "synced": "fibers", "warped": "fibers",
                     "split": "regions"}
    assert kernels["plain"]["param_sizes"] == [8]
    assert "helper" in kernels["synced"]["regions_refused"]
    assert "__any_sync" in kernels["warped"]["regions_refused"]


def test_regions_can_be_switched_off(cpu, fibers_only):
    src = "__global__ void split(float* x) { x[threadIdx.x] = 1; __syncthreads(); x[0] = 2; }"
    program, _, _ = build(cpu, src)
    assert program.metadata["kernels"]["split"]["mode"] == "fibers"


@pytest.mark.parametrize("block", [(1024, 1, 1), (8, 8, 16), (33, 1, 1), (1, 1, 1)])
def test_fiber_block_shapes(cpu, dev, block, sync_mode):
    src = """
    __global__ void rev(const int* in, int* out) {
      __shared__ int s[1024];
      unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
      unsigned n = blockDim.x * blockDim.y * blockDim.z;
      s[t] = in[blockIdx.x * n + t];
      __syncthreads();
      out[blockIdx.x * n + t] = s[n - 1 - t];
    }
    """
    program, _, fn = build(cpu, src)
    assert program.metadata["kernels"]["rev"]["mode"] == sync_mode
    n = int(np.prod(block))
    x = np.arange(3 * n, dtype=np.int32)
    dx, dy = dev.put(x), dev.empty(x.nbytes)
    cpu.launch(0, fn("rev"), (3, 1, 1), block, 0, None, pack(ptr(dx), ptr(dy)))
    np.testing.assert_array_equal(dev.get(dy, 3 * n, np.int32), x.reshape(3, n)[:, ::-1].ravel())


def test_many_barriers_and_exits(cpu, dev):
    # Threads leave a barrier loop at different iterations; exited threads never block it.
    src = """
    __global__ void k(int* out) {
      int acc = 0;
      for (int i = 0; i < (int)threadIdx.x; ++i) { acc += i; __syncthreads(); }
      out[threadIdx.x] = acc;
    }
    """
    _, _, fn = build(cpu, src)
    d = dev.empty(4 * 64)
    cpu.launch(0, fn("k"), (1, 1, 1), (64, 1, 1), 0, None, pack(ptr(d)))
    t = np.arange(64)
    np.testing.assert_array_equal(dev.get(d, 64, np.int32), t * (t - 1) // 2)


@pytest.mark.parametrize("kernel", ["divergent_barrier", "warp_waits_for_barrier"])
def test_deadlock_is_an_error_not_a_hang(cpu, dev, kernel):
    _, _, fn = build(cpu, (KERNELS / "deadlock_divergent_barrier.hip").read_text())
    d = dev.empty(4 * 32)
    cpu.launch(0, fn(kernel), (2, 1, 1), (32, 1, 1), 0, None, pack(ptr(d)))
    err = sync_error(cpu)
    assert err.status == "hipErrorLaunchFailure"
    assert "deadlock" in str(err) and kernel in str(err)
    # reported once; the stream works again
    cpu.launch(0, fn("early_exit_ok"), (1, 1, 1), (32, 1, 1), 0, None, pack(ptr(d)))
    cpu.stream_synchronize(0, None)
    assert list(dev.get(d, 8, np.int32)) == [7] * 8


def test_barrier_reached_in_loop_mode_fails(cpu, dev, tmp_path):
    # The scan cannot see into a header named through a macro (it follows plain
    # `#include "..."` lines), so the kernel is compiled in loop mode.
    (tmp_path / "hidden_sync.h").write_text("inline void hidden() { __syncthreads(); }\n")
    src = ('#define HIDDEN "hidden_sync.h"\n#include HIDDEN\n'
           '__global__ void k(int* o) { hidden(); o[threadIdx.x] = 1; }\n')
    program, _, fn = build(cpu, src, options=(f"-I{tmp_path}",))
    assert program.metadata["kernels"]["k"]["mode"] == "loop"
    d = dev.empty(4 * 32)
    cpu.launch(0, fn("k"), (1, 1, 1), (32, 1, 1), 0, None, pack(ptr(d)))
    err = sync_error(cpu)
    assert err.status == "hipErrorLaunchFailure"
    assert "loop" in str(err) and "__syncthreads" in str(err)


def test_trap_and_assert_fail_the_launch_not_the_process(cpu, dev):
    src = """
    #include <assert.h>
    __global__ void trapper(int* o) { if (threadIdx.x == 3) __trap(); o[threadIdx.x] = 1; }
    __global__ void asserter(int* o) { assert(threadIdx.x < 5); __syncthreads(); o[0] = 1; }
    """
    _, _, fn = build(cpu, src)
    d = dev.empty(4 * 32)
    cpu.launch(0, fn("trapper"), (1, 1, 1), (32, 1, 1), 0, None, pack(ptr(d)))
    err = sync_error(cpu)
    assert err.status == "hipErrorLaunchFailure" and "trapper" in str(err)
    cpu.launch(0, fn("asserter"), (1, 1, 1), (32, 1, 1), 0, None, pack(ptr(d)))
    err = sync_error(cpu)
    assert err.status == "hipErrorAssert" and "threadIdx.x < 5" in str(err)


def test_dynamic_shared_larger_than_the_worker_buffer(cpu, dev):
    src = "__global__ void k(int* o) { extern __shared__ int s[]; s[0] = 1; o[0] = s[0]; }"
    _, _, fn = build(cpu, src)
    d = dev.empty(4)
    cpu.launch(0, fn("k"), (1, 1, 1), (1, 1, 1), 1 << 40, None, pack(ptr(d)))
    assert sync_error(cpu).status == "hipErrorInvalidConfiguration"


def test_warp_exchange_partial_masks(cpu, dev):
    # Two half-warp groups exchange independently: lanes 0-15 three times, 16-31 once.
    src = """
    __global__ void k(unsigned long long* out) {
      unsigned lane = threadIdx.x % 32;
      unsigned long long mask = lane < 16 ? 0xffffull : 0xffff0000ull;
      unsigned long long v = threadIdx.x;
      int rounds = lane < 16 ? 3 : 1;
      for (int r = 0; r < rounds; ++r) {
        const uint64_t* vals = openhip::detail::warp_exchange(v, mask);
        v = vals[(lane + 1) % 16 + (lane < 16 ? 0 : 16)] + 100;
      }
      out[threadIdx.x] = v;
      __syncwarp();
    }
    """
    _, _, fn = build(cpu, src)
    d = dev.empty(8 * 64)
    cpu.launch(0, fn("k"), (1, 1, 1), (64, 1, 1), 0, None, pack(ptr(d)))
    want = np.arange(64, dtype=np.uint64)
    for base, rounds in ((0, 3), (16, 1), (32, 3), (48, 1)):
        for _ in range(rounds):
            want[base:base + 16] = np.roll(want[base:base + 16], -1) + 100
    np.testing.assert_array_equal(dev.get(d, 64, np.uint64), want)


def test_args_are_copied_at_enqueue(cpu, dev):
    src = "__global__ void k(int v, int* o) { o[0] = v; }"
    _, _, fn = build(cpu, src)
    d = dev.empty(4)
    args = pack(ctypes.c_int(5), ptr(d))
    cpu.launch(0, fn("k"), (1, 1, 1), (1, 1, 1), 0, None, args)
    ctypes.memmove(ctypes.addressof(args.buffer), ctypes.byref(ctypes.c_int(9)), 4)
    cpu.stream_synchronize(0, None)
    assert dev.get(d, 1, np.int32)[0] == 5


def test_wrong_argument_sizes_are_refused(cpu, dev):
    _, _, fn = build(cpu, "__global__ void k(int v, int* o) { o[0] = v; }")
    with pytest.raises(HipError) as info:
        cpu.launch(0, fn("k"), (1, 1, 1), (1, 1, 1), 0, None, pack(ctypes.c_int(1)))
    assert info.value.status == "hipErrorInvalidValue"


def test_fiber_kernel_too_big_for_its_stack_is_refused(cpu, dev, fibers_only):
    src = """
    __global__ void big(float* o) {
      float t[40000];
      for (int i = 0; i < 40000; ++i) t[i] = o[i % 64] * i;
      __syncthreads();
      o[threadIdx.x] = t[(threadIdx.x * 7919) % 40000];
    }
    """
    program, _, fn = build(cpu, src)
    assert program.metadata["max_frame_bytes"] >= 160000
    with pytest.raises(HipError) as info:
        cpu.launch(0, fn("big"), (1, 1, 1), (4, 1, 1), 0, None, pack(ptr(dev.empty(256))))
    assert info.value.status == "hipErrorLaunchOutOfResources"
    assert "OPENHIP_CPU_STACK_SIZE" in str(info.value)
