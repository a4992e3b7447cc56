"""Fate Accelerated's procedures as step tables: ``action`` (Acción: a roll and its invocation window, the
settlement and the defender's absorption), ``compel`` (Forzado) and ``concession`` (Rendición). What several
share (the sheet aspects as the shared FATE pickers see them, words for the record) is in ``common``."""
