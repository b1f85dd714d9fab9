"""``formatkit judge-check``: each judge's verdicts set against people's labels, in one place.

``check`` reads the labels and matches them to the scored records (each judge's verdict read with
:func:`scoring._results.judge_verdicts`), ``agreement`` measures how far two raters agree (Cohen's κ with its
bootstrap interval, the confusion, the length bias), ``text`` writes the result for people. The command
itself is ``formatkit/cli/judge_check.py``.
"""
