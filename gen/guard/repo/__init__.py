"""The repository as git holds it: revisions, their files, parsed manifests, the boundary."""
