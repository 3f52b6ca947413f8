"""The self-contained HTML timeline: the trace embedded as JSON in ``timeline.html`` (a page
with its own script, no network access), which draws one lane per process, host thread and
device stream as SVG, with zoom (wheel, buttons), pan (drag) and details on hover."""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

TEMPLATE = Path(__file__).with_name("timeline.html")


def render_html(trace: dict[str, Any], title: str = "openhip timeline") -> str:
    """The page for ``trace`` (a trace-event dict) as a string."""
    page = TEMPLATE.read_text(encoding="utf-8")
    data = json.dumps({"traceEvents": trace.get("traceEvents", []),
                       "otherData": trace.get("otherData", {})},
                      separators=(",", ":"), default=str)
    # inside <script>: "</" would end the element, and U+2028/9 are JS line breaks
    data = data.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return page.replace("__TITLE__", html.escape(title)).replace("__TRACE_DATA__", data)


def write_html(trace: dict[str, Any], path: str | os.PathLike,
               title: str | None = None) -> None:
    """Write the timeline page of ``trace`` to ``path``."""
    text = render_html(trace, title or f"openhip timeline: {Path(path).name}")
    tmp = f"{os.fspath(path)}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
