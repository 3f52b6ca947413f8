"""Tuning and debugging tools (issue #15): :mod:`openhip.tools.profiler` (``openhip prof``,
``openhip.profile``)."""
