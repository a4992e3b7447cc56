"""Presagios as a Tintero ruleset plugin: everything Django-side about the game; the pure rules are
``systems.presagios``."""
