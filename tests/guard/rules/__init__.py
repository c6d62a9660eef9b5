"""Guard rules tested from values built in memory (change_builder.py): no git, no helper."""
