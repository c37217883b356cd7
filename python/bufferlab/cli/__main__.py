"""``python -m bufferlab.cli``: the same as the ``bufferlab`` command."""

from . import main

main()
