"""Don't Rest Your Head as a Tintero ruleset plugin: everything Django-side about the game; the pure rules are
``systems.dont_rest_your_head``."""
