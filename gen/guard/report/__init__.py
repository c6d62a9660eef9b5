"""How a verdict leaves the process: markdown, result files and shards, progress."""
