"""`coredns-gen lint`: version-aware Corefile checks and the coredns-custom wiring contract.

One module per rule in gen/lint/rules/ (its __init__ holds RULES); gen/lint/run.py runs them on
the paths a user gives, gen/lint/objects.py on objects already in memory (the guard's DNS
invariants). This file stays empty: Python runs a package's __init__ before any of its modules,
so whatever it imported the guard would pay for on every run.
"""
