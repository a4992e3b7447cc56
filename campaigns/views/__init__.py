"""The browser surface of the forum core: thin views over selectors (reads) and services (writes)."""
