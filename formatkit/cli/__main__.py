"""``python -m formatkit.cli ARGS``: the ``formatkit`` command."""

from formatkit.cli import main

if __name__ == "__main__":
    main()
