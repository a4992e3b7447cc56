"""What both FATE rulesets share (``fate-accelerated`` and ``fate-sotc``), living once.

API (stable: both games import it):

``rulesets.fate.aspects`` — how a procedure names an aspect: the ONE reference grammar.
    ``AspectRef(place, id, key="")`` is a typed, immutable value; ``str(ref)`` serializes it and
    ``AspectRef.parse(text)`` reads it back (a malformed one is refused, code ``aspect_ref_invalid``):

    ==================================  ===========================================================
    ``scene:<board aspect id>``         an aspect on the scene board          ``AspectRef.scene(7)``
    ``boost:<board aspect id>``         a boost on the scene board            ``AspectRef.boost(7)``
    ``character:<character id>:<key>``  an aspect on a sheet (the game's key) ``AspectRef.character(3, "trouble")``
    ``consequence:<character id>:<s>``  a consequence (its severity)          ``AspectRef.consequence(3, "mild")``
    ==================================  ===========================================================

    ``AspectRefField`` is the same value as a pydantic field type (params and states store the string).
    ``SheetAspect`` is one aspect of a sheet as a game describes it to the pickers (its ref, text, whether
    it is hidden and who knows it, its free invocations and their holders); each game supplies
    ``SheetAspects``, a function ``(character facts, table) -> [SheetAspect]``.
    ``BOOST_PREFIX`` / ``is_boost`` / ``boost_text``: a boost lives on the board as a one-use aspect whose
    text starts with "Impulso: ".
    ``board_aspect(table, ref, viewer)`` and ``sheet_aspect(table, ref, aspects_of, viewer)`` find what a
    reference names, refusing (``aspect_unknown``) what is not there or what the viewer may not know
    (hidden aspects through ``campaigns.policy.may_see_hidden_aspect``); ``aspect_text`` gives its words.

``rulesets.fate.pickers`` — the aspect pickers, ``Choice(value=str(ref), label=words)`` built from the
    ``Table``, never an id on the page: ``board_choices(table, viewer)`` (hidden ones only where the policy
    allows), ``character_aspect_choices(table, viewer, aspects_of, characters=None)`` (labelled
    "Ana: «Text»"), ``aspect_choices(...)`` (both), and ``picked(value, choices)`` which returns the
    ``AspectRef`` of an offered value or refuses one the picker did not offer (``aspect_not_offered``).

``rulesets.fate.free_invocations`` — free-invocation accounting on the scene board, as board changes the
    runner applies: ``spend_from_board(aspect)`` (an ``UpdateAspect`` with one less, or a
    ``RemoveAspect`` for a used boost), ``give_back_to_board(aspect)``, ``add_boost(text)``,
    ``add_situation_aspect(text, free_invocations, hidden)``, and ``BoardFreeUses``, a pydantic value a
    window keeps in its state to spend now and write back when it closes (``left``, ``spend``,
    ``give_back``, ``board_changes``).
"""
