"""`coredns-gen import`: the values file that renders what a repository or cluster already holds.

read.py finds the cluster DNS objects in the files given; mapping.py says each part of them as
values (or names the difference); prove.py renders those values in memory and compares what
CoreDNS would load, through CoreDNS's own parser, with what it loads today; run.py ties them.
"""

from gen.adopt.run import ImportResult, import_dns

__all__ = ["ImportResult", "import_dns"]
