"""Event's procedures as typed step tables (``rulesets.kit.procedures``), one module each: the action
(``action``), the reaction (``reaction``); what they share in ``common`` and the narration with its vetoes in
``narration``."""
