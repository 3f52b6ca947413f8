"""A kernel launch inside another launch's configuration or arguments (issue #14 item 11d) used to
come out half translated: the outer launch became hipLaunchKernelGGL and the inner one kept
CUDA's form, silently. Now an inner launch that is a statement (in a lambda's body) is translated
inside the outer one; one inside an expression, where hipLaunchKernelGGL (a statement in HIP)
cannot stand, keeps the '<<<...>>>' form HIP also accepts and is reported with file:line."""

from __future__ import annotations

from openhip.hipify import hipify
from openhip.hipify.launch import Launch, translation_order

LAMBDA = """void f(float* a, float* c, hipStream_t s) {
  k1<<<g, b>>>(a, [&]() { k2<<<1, 32, 0, s>>>(c); if (a) k3<T><<<1, 1>>>(c); return 0; }());
}
"""

EXPR = """void f(float* a, float* c) {
  k1<<<g, b>>>(a, (k2<<<g, b>>>(c), 0));
  k1<<<(k2<<<1, 1>>>(c), n), 256>>>(a, 1);
}
"""


def _hip(text: str):
    return hipify(text, filename="n.cu", hip_kernel_execution_syntax=True)


def test_a_launch_in_a_lambda_argument_is_translated_inside_the_outer_one():
    r = _hip(LAMBDA)
    assert not r.warnings, [str(w) for w in r.warnings]
    assert "<<<" not in r.text
    assert ("hipLaunchKernelGGL(k1, dim3(g), dim3(b), 0, 0, a, [&]() { hipLaunchKernelGGL(k2, "
            "dim3(1), dim3(32), 0, s, c); if (a) hipLaunchKernelGGL(HIP_KERNEL_NAME(k3<T>), "
            "dim3(1), dim3(1), 0, 0, c); return 0; }());") in r.text
    assert r.stats.converted.by_type["CONV_KERNEL_LAUNCH"] == 3


def test_a_launch_inside_an_expression_is_kept_and_reported():
    r = _hip(EXPR)
    assert "hipLaunchKernelGGL(k1, dim3(g), dim3(b), 0, 0, a, (k2<<<g, b>>>(c), 0));" in r.text
    assert "hipLaunchKernelGGL(k1, dim3((k2<<<1, 1>>>(c), n)), dim3(256), 0, 0, a, 1);" in r.text
    where = [(w.file, w.line, w.column) for w in r.warnings]
    assert where == [("n.cu", 2, 20), ("n.cu", 3, 9)]
    assert all("kept in '<<<...>>>' syntax" in w.message for w in r.warnings)
    assert r.stats.converted.by_type["CONV_KERNEL_LAUNCH"] == 2


def test_without_the_hip_syntax_option_nothing_is_rewritten_or_reported():
    for text in (LAMBDA, EXPR):
        r = hipify(text, filename="n.cu")
        assert not r.warnings
        assert r.text.count("<<<") == text.count("<<<")


def _launch(start: int, end: int) -> Launch:
    return Launch((start, start + 1), [(start + 2, start + 3), (start + 4, start + 5)],
                  (start + 6, end), end)


def test_order_inner_first_and_overlaps_apart():
    outer, inner, deeper, later = _launch(0, 40), _launch(10, 30), _launch(12, 20), _launch(50, 60)
    order, bad = translation_order([outer, inner, later, deeper])
    assert order == [(deeper, True), (inner, True), (outer, False), (later, False)]
    assert bad == []
    straddling = _launch(35, 45)  # begins inside `outer`, ends after it
    order, bad = translation_order([outer, straddling])
    assert order == [(outer, False)] and bad == [straddling]
