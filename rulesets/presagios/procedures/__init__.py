"""Presagios' procedures as step tables: the challenge (reto) and the conflict (conflicto)."""
