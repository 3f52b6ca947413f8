"""__constant__/__device__ globals, templates through name expressions, extern "C" kernels,
__threadfence (kernels: globals_constant_device.hip, templates_name_expressions.hip,
extern_c.hip, threadfence.hip)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_files import load_kernel as load

import openhip as hip

#: the CPU runs these kernels split at their barriers and, again, as fibers
ALSO_AS_FIBERS = True


def test_constant_and_device_globals(device):
    mod = load("globals_constant_device")
    coeffs = np.array([1.0, -2.0, 0.5, 0.25], np.float32)
    mod.get_global("coeffs").set(coeffs)
    mod.get_global("bias").set(np.array([3], np.int32))
    n = 1000
    x = np.linspace(-2, 2, n, dtype=np.float32)
    y = hip.zeros(n, np.float32)
    mod.get_function("poly")((n + 127) // 128, 128, (hip.asarray(x), y, n))
    want = coeffs[0] + x * (coeffs[1] + x * (coeffs[2] + x * coeffs[3])) + 3
    np.testing.assert_allclose(y.get(), want, rtol=1e-5, atol=1e-5)

    mod.get_function("fill_results")(1, 64, (np.float32(1.5),))
    hip.synchronize()
    np.testing.assert_array_equal(mod.get_global("results").get().view(np.float32),
                                  np.arange(64, dtype=np.float32) * 1.5)


def test_two_modules_have_separate_globals(device):
    a, b = load("globals_constant_device"), load("globals_constant_device")
    a.get_global("bias").set(np.array([11], np.int32))
    b.get_global("bias").set(np.array([22], np.int32))
    assert a.get_global("bias").get().view(np.int32)[0] == 11
    assert b.get_global("bias").get().view(np.int32)[0] == 22


@pytest.mark.parametrize("expr,dtype,factor", [("scale<float>", np.float32, 2.5),
                                               ("scale<int>", np.int32, 3),
                                               ("scale<double>", np.float64, -0.5)])
def test_template_name_expressions(device, expr, dtype, factor):
    mod = load("templates_name_expressions")
    n = 777
    x = (np.arange(n) - 100).astype(dtype)
    d = hip.asarray(x)
    mod.get_function(expr)((n + 255) // 256, 256, (d, factor, n))
    np.testing.assert_array_equal(d.get(), (x * dtype(factor)).astype(dtype))


@pytest.mark.parametrize("expr,dtype,b", [("ns::axpb<float, 3>", np.float32, 3),
                                          ("ns::axpb<int, 5>", np.int32, 5)])
def test_namespaced_template_with_value_argument(device, expr, dtype, b):
    mod = load("templates_name_expressions")
    n = 300
    x = np.arange(n).astype(dtype)
    y = hip.zeros(n, dtype)
    mod.get_function(expr)(2, 256, (hip.asarray(x), y, dtype(2), n))
    np.testing.assert_array_equal(y.get(), (2 * x + b).astype(dtype))


def test_extern_c(device):
    mod = load("extern_c")
    n = 1000
    x = np.arange(n, dtype=np.int32)
    d = hip.asarray(x)
    for name in ("add_one", "times_two", "minus_three"):
        mod.get_function(name)((n + 63) // 64, 64, (d, n))
    np.testing.assert_array_equal(d.get(), (x + 1) * 2 - 3)


@pytest.mark.parametrize("n", [256, 10_000, 300_000])
def test_threadfence_last_block(device, n):
    mod = load("threadfence")
    x = np.random.default_rng(n).random(n, dtype=np.float32)
    nb = (n + 255) // 256
    partial = hip.zeros(nb, np.float32)
    total = hip.zeros(1, np.float32)
    k = mod.get_function("sum_last_block")
    for _ in range(2):  # the kernel resets its ticket counter: runs twice alike
        total.fill(0)
        k(nb, 256, (hip.asarray(x), partial, total, n))
        np.testing.assert_allclose(total.get()[0], x.astype(np.float64).sum(), rtol=1e-4)
