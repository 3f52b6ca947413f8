"""``openhip info``: every platform (available or not, and why), devices, the compile cache."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .. import __version__, config


def collect() -> dict[str, Any]:
    """Everything ``openhip info`` shows, as a JSON-able dict."""
    from .. import platforms
    from ..compiler.cache import cache_info

    out: dict[str, Any] = {"openhip": __version__, "platforms": {}}
    try:
        out["OPENHIP_PLATFORM"] = config.platform_choice()
    except ValueError as exc:
        out["OPENHIP_PLATFORM"] = f"invalid: {exc}"
    for name, reason in platforms.platform_status().items():
        entry: dict[str, Any] = {"available": reason is None}
        if reason is not None:
            entry["reason"] = reason
        else:
            p = platforms.get_platform(name)
            try:
                entry["compiler"] = p.compiler_identity()
            except Exception as exc:  # noqa: BLE001 - report, don't fail
                entry["compiler"] = f"unavailable: {exc}"
            entry.update(p.describe())
            entry["devices"] = [d.as_dict() for d in p.device_properties()]
        out["platforms"][name] = entry
    info = cache_info()
    out["cache"] = {"path": str(info.path), "entries": info.entries, "bytes": info.bytes,
                    "enabled": info.enabled}
    return out


def _fmt_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024
    return str(n)


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="openhip info", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    data = collect()
    if args.json:
        print(json.dumps(data, indent=2, default=str))
        return 0
    print(f"openhip {data['openhip']}   OPENHIP_PLATFORM={data['OPENHIP_PLATFORM']}")
    for name, entry in data["platforms"].items():
        if not entry["available"]:
            print(f"\n[{name}] unavailable: {entry['reason']}")
            continue
        print(f"\n[{name}] available   compiler: {entry.get('compiler', '?')}")
        for key, value in entry.items():
            if key not in ("available", "compiler", "devices"):
                print(f"  {key}: {value}")
        for i, dev in enumerate(entry["devices"]):
            print(f"  device {i}: {dev['name']} ({dev['arch']})")
            for key, value in dev.items():
                if key in ("name", "extra") or value in (None, "", {}):
                    continue
                if key == "total_memory":
                    value = _fmt_bytes(value)
                print(f"    {key:24} {value}")
    c = data["cache"]
    state = "" if c["enabled"] else "  (disabled by OPENHIP_DISABLE_CACHE)"
    print(f"\ncompile cache: {c['path']}  {c['entries']} entries, {_fmt_bytes(c['bytes'])}{state}")
    return 0
