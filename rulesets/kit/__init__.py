"""The contract between Tintero's core apps and each game's plugin.

- ``sheets``: the sheet binding (pure operations <-> stored sheets and campaign state);
- ``rolls``: the roll binding (a post's roll request -> the pure resolver -> stored evidence and dice);
- ``procedures``: multi-step procedures as a typed state plus a table of steps, run by ``rolls.runner``;
- ``refusals``: the one way a rule refuses (a code in one case, words in both languages).
"""
