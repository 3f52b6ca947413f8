"""The launch rewrite of whole programs (openhip.platforms.cpu.host_launch): no compiler run."""

from __future__ import annotations

import pytest

from openhip.compiler.scan import apply_edits
from openhip.hipify.launch import LaunchSyntaxError
from openhip.platforms.cpu.host_launch import KernelRef, kernel_defaults, launch_edits

KERNELS = {
    "k": KernelRef("k", 0, False, None, False),
    "ns::red": KernelRef("ns::red", 2, False, "ns::red__openhip_split", True),
    "fib": KernelRef("fib", 1, True, None, False),
}


def rewrite(text: str) -> str:
    return apply_edits(text, launch_edits(text, KERNELS))


def test_chevrons_become_entry_point_launches():
    out = rewrite("k<<<g, b>>>(x, n);")
    assert out == '::openhip_host::Launch<&k, &k, 0, false>("k", g, b)(x, n);'


def test_split_kernel_and_template_arguments():
    out = rewrite("ns::red<float, 256><<<dim3(n / 256), 256, 0, s>>>(a, std::min<int>(b, c));")
    assert out == ('::openhip_host::Launch<&ns::red__openhip_split<float, 256>, '
                   '&ns::red<float, 256>, 2, false>("ns::red<float, 256>", dim3(n / 256), 256, '
                   '0, s)(a, std::min<int>(b, c));')


def test_cooperative_entry_and_unknown_kernel():
    assert "Launch<&fib, &fib, 1, true>" in rewrite("fib<<<1, 32>>>();")
    out = rewrite("other<<<1, 32>>>(p);")
    assert out == '::openhip_host::launch_by_address(other, "other", 1, 32)(p);'


def test_lines_are_kept():
    text = "int a;\nk<<<grid,\n   block>>>(x,\n  y);\nint b;\n"
    out = rewrite(text)
    assert out.count("\n") == text.count("\n")
    assert out.splitlines()[-1] == "int b;"


def test_hip_launch_kernel_ggl():
    out = rewrite("hipLaunchKernelGGL(HIP_KERNEL_NAME(ns::red<int, 64>), dim3(4), dim3(64), 0, "
                  "0, p, q);")
    assert out == ('::openhip_host::Launch<&ns::red__openhip_split<int, 64>, &ns::red<int, 64>, '
                   '2, false>("ns::red<int, 64>", dim3(4), dim3(64), 0, 0)( p, q);')
    text = "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0);"
    assert rewrite(text) == '::openhip_host::Launch<&k, &k, 0, false>("k", dim3(1), dim3(2), 0, 0)();'


def test_deduced_template_launch_goes_through_the_helper():
    out = rewrite("ns::red<<<1, 2>>>(p, 3);")
    assert out.startswith("[&](auto&&... __openhip_a) { ::openhip_host::Launch<"
                          "&::ns::__openhip_deduced_red<::std::decay_t<decltype(__openhip_a)>...>")
    assert out.endswith('2, false>("ns::red", 1, 2)(__openhip_a...); }(p, 3);')


def test_malformed_launches_raise():
    with pytest.raises(LaunchSyntaxError):
        launch_edits("k<<<1>>>(p);", KERNELS)


def test_default_arguments_are_filled_in():
    src = ("__global__ void k(int *d, int w, int *p = NULL) {}\n"
           "void f() { k<<<1, 2>>>(a, 32); k<<<1, 2>>>(a, 32, q); }\n")
    assert kernel_defaults(src) == {"k": (None, None, "NULL")}
    refs = {"k": KernelRef("k", 0, False, None, False,
                           (None, None, "static_cast<int *>(NULL)"))}
    out = apply_edits(src, launch_edits(src, refs))
    assert '("k", 1, 2)(a, 32, static_cast<int *>(NULL));' in out
    assert '("k", 1, 2)(a, 32, q);' in out
