"""No te Duermas procedures as step tables: the conflict (``conflict``), on the words of ``words``."""
