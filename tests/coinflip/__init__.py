"""Coin flip: a toy game that lives only under tests/, plugged in through the same interface as the real
rulesets (pure rules in ``rules.py``, everything Django-side in ``plugin.py``, templates in ``templates/``).

It is the proof that a sixth game is one folder plus one settings line (``tests/settings.py``)."""
