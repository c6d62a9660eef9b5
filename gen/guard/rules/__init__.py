"""One module per guard rule; the registry is gen.guard.RULES."""
