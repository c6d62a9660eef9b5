"""The Flux model: clusters and their roots, sources and artifacts, Kustomization specs."""
