"""Lint's rules, one module each: ID, SEVERITY, a PASS/FAIL docstring, `check(ctx)`.

The registry is gen/lint/run.py's RULES. This file stays empty: Python runs a package's __init__
before any of its modules, and the guard imports only the four rules it asks (gen/lint/objects.py).
"""
