"""Lint's rules, one module each (ID, SEVERITY, a PASS/FAIL docstring, `check(ctx)`), and their registry.

The order of RULES is the order `lint` runs them in. `coredns-gen lint` runs them all
(gen/lint/run.py); the guard asks for single rules by id (gen/lint/objects.py), so no guard
module imports a rule module (tests/test_imports.py holds that layer).
"""

from __future__ import annotations

from gen.lint.rules import (
    custom_key_ignored,
    duplicate_server_address,
    forward_failover_loops,
    forward_failover_noerror,
    forward_failover_unsupported,
    forward_multiple_unsupported,
    forward_next_ignored,
    forward_next_unsupported,
    forward_option_unsupported,
    forward_unreachable,
    forward_upstream_invalid,
    kubernetes_option_unsupported,
    import_not_found,
    import_server_in_block,
    override_context_unknown,
    override_root_forward,
    plugin_once_per_block,
    plugin_setup_refused,
    rewrite_arguments,
    server_block_unclosed,
    unknown_plugin,
    wiring_custom_configmap,
    wiring_import_server,
    wiring_mount_path,
    wiring_mount_readonly,
    wiring_mount_subpath,
    wiring_port_53,
    wiring_reload,
    zone_shadows_kubernetes,
)
from gen.lint.context import Rule

RULES: tuple[Rule, ...] = (
    unknown_plugin,
    forward_next_unsupported,
    forward_failover_unsupported,
    forward_failover_noerror,
    forward_failover_loops,
    forward_multiple_unsupported,
    forward_option_unsupported,
    forward_upstream_invalid,
    kubernetes_option_unsupported,
    forward_next_ignored,
    plugin_once_per_block,
    rewrite_arguments,
    plugin_setup_refused,
    forward_unreachable,
    import_server_in_block,
    import_not_found,
    duplicate_server_address,
    override_root_forward,
    override_context_unknown,
    custom_key_ignored,
    wiring_custom_configmap,
    wiring_import_server,
    wiring_mount_path,
    wiring_mount_readonly,
    wiring_mount_subpath,
    wiring_reload,
    wiring_port_53,
    zone_shadows_kubernetes,
    server_block_unclosed,
)

BY_ID: dict[str, Rule] = {rule.ID: rule for rule in RULES}
