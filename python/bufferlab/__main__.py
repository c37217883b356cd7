"""``python -m bufferlab``: the same as the ``bufferlab`` command."""

from .cli import main

main()
