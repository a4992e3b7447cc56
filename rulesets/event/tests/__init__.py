"""Event's own tests: sheet, creation by the table, rolls in posts and procedures."""
