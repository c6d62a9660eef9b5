"""coredns-gen: CoreDNS overlays, Flux delivery and a prune gate for GitOps repositories."""

__version__ = "0.1.0"
