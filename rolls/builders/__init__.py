"""Transitional: each module here moves into its game's app under rulesets/."""
