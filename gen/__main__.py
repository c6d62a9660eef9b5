"""Allow `python -m gen` where the console script is not on PATH."""

from gen.cli import main

main()
