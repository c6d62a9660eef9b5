"""Building Flux Kustomizations: the helper client, what builds read, the caches."""
