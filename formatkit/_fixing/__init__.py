"""Mechanical repairs of evaluation sets (``formatkit fix``): only what has exactly one right answer.

Each repair reads the format's own tables from :mod:`formatkit._rules` (header names, parameter syntax),
so a repair and the rule that reports the problem can never disagree. A repair returns :class:`Change`
records (what, where, before and after) instead of printing: :mod:`formatkit._api.fix` writes the copy and
validates it, and the CLI prints the changes through the ``fix.`` templates of the message catalogues
(:mod:`formatkit._core.messages`).
"""
