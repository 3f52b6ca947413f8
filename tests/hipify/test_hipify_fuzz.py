"""Property tests (hypothesis) for the lexer, the launch rewriter and the whole translator."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openhip.hipify import HipifyError, translate
from openhip.hipify.lexer import tokenize

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text made of the characters and words that matter to a C++/CUDA lexer.
PIECES = st.sampled_from(
    [
        " ", "\t", "\n", "\r\n", "\\\n", "/", "*", "//", "/*", "*/", '"', "'", "R\"(", ")\"", "R\"x(", ")x\"",
        "u8", "L", "#", "include", "<", ">", "<<<", ">>>", "(", ")", "[", "]", "{", "}", ",", ";", "::", ".",
        "-", "0", "1.5e-3", "0x1f", "'", "\\", "cudaMalloc", "cudaStream_t", "cub", "k", "x", "T",
        "__global__", "#include <cuda.h>", "#if 0", "#endif", "#define", "cudaMemcpyToSymbol", "dim3",
        "é", "\x0c", "template", "cuda_runtime.h", '"cudaMalloc failed"', "// cudaFree ", "\ufeff",
    ]
)
SOURCE = st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=60).map("".join)


@SETTINGS
@given(st.text(max_size=300))
def test_lexer_keeps_every_character(text):
    tokens = tokenize(text)
    assert "".join(t.text for t in tokens) == text
    pos = 0
    for t in tokens:
        assert t.start == pos and t.end == pos + len(t.text) and t.text
        pos = t.end


@SETTINGS
@given(SOURCE)
def test_lexer_on_cuda_like_text(text):
    assert "".join(t.text for t in tokenize(text)) == text


@SETTINGS
@given(SOURCE, st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_translator_never_crashes_and_is_idempotent(text, ggl, roc, skip, literals):
    options = {
        "hip_kernel_execution_syntax": ggl, "roc": roc, "skip_excluded_preprocessor_blocks": skip,
        "translate_strings": literals, "translate_comments": literals,
    }
    text = text.replace("\x00", "")
    try:
        once = translate(text, **options)
    except HipifyError:
        return
    assert translate(once, **options) == once


# Launch configurations: expressions with nesting, operators and template arguments.
NAMES = st.sampled_from(["n", "grid", "cfg.x", "a[i]", "N", "blocks"])
EXPR = st.recursive(
    st.one_of(NAMES, st.integers(0, 4096).map(str)),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%", "<<", "&"]), inner).map(" ".join),
        inner.map(lambda e: f"({e})"),
        st.tuples(inner, inner).map(lambda p: f"std::min<int>({p[0]}, {p[1]})"),
        st.tuples(inner, inner).map(lambda p: f"dim3({p[0]}, {p[1]})"),
        inner.map(lambda e: f"sizeof(float) * {e}"),
        st.tuples(inner, inner, inner).map(lambda p: f"{p[0]} ? {p[1]} : {p[2]}"),
    ),
    max_leaves=6,
)
KERNELS = st.sampled_from(["k", "ns::k", "k<float>", "k<T, 4>", "a::b<Tile<32>>::k", "k<(N > 2)>"])
SPACE = st.sampled_from(["", " ", "\n  "])


@SETTINGS
@given(KERNELS, st.lists(EXPR, min_size=2, max_size=4), st.lists(EXPR, max_size=3), SPACE)
def test_launch_rewriter(kernel, config, args, sp):
    src = f"{kernel}<<<{(',' + sp).join(config)}>>>({', '.join(args)});"
    keep = translate("#include <hip/hip_runtime.h>\n" + src)
    assert keep.endswith(src)
    out = translate("#include <hip/hip_runtime.h>\n" + src, hip_kernel_execution_syntax=True)
    name = f"HIP_KERNEL_NAME({kernel})" if "<" in kernel else kernel
    dims = [c if c.startswith("dim3(") else f"dim3({c})" for c in config[:2]]
    rest = config[2:] + ["0"] * (4 - len(config))
    parts = [name, *dims, *rest, *([", ".join(args)] if args else [])]
    assert out.endswith("hipLaunchKernelGGL(" + ", ".join(parts) + ");")
