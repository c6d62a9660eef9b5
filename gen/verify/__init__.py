"""`coredns-gen verify`: load a cluster's Corefile in the real CoreDNS on loopback and fail its upstreams.

Layers: `upstreams` (fake DNS servers), `sandbox` (Corefile adapted for loopback), `runner`
(the CoreDNS process and the dnspython client), `scenarios` (what to stage, from the
Corefile's shape), `engine` (runs them). The values/render glue is `run.run_verify`. This file
stays empty: Python runs a package's __init__ before any of its modules, and `lint --load`
needs only the sandbox.
"""
