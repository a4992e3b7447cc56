"""The one order in which a write in a scene takes its row locks, and the one retry of a deadlock.

Two transactions that lock the same two rows in opposite orders deadlock on PostgreSQL: the server aborts one
of them (``DeadlockDetected``). So every write path in a scene (a post, with or without rolls, to everyone,
to the GMs or whispered; a procedure's opening and its record post; a step; an edit; a deletion; a reveal; a
ledger operation) takes its locks in this order, and never one above after one below:

1. **procedures** (``rolls.Flow``): a step locks its procedure together with the other procedures its steps
   read (``Reads.procedures``: an Event action and its reactions), in id order, in one statement
   (``rolls.runner.take_step``). An opening takes the scene and the read mark (2, 3) first, and the other
   procedures it reads after them: no step ever takes a scene's row or a read mark, so a step and an
   opening cannot hold one each of what the other waits for;
2. **the scene** (its thread position counter, ``Scene.last_post_position``): ``campaigns.services.place_post``
   for a post, ``create_record_post`` for a procedure's opening. A post takes it as late as it can (after
   its own rows and its rolls' rows), so it is held only for the end of the transaction;
3. **the author's read mark** in the scene (``_upsert_read_mark``), right after the scene's row: it is the
   same user's (a GM posting while one of her procedures opens writes one mark from both);
4. **the campaign's rules state** (``CampaignRulesState``: pools such as threat or the hope chest), read
   locked by a procedure that reads it, or by the ledger (``characters.services.apply_operation``);
5. **characters**, in id order (the ledger; the runner locks every character of a step's ledger operations
   before the first of them);
6. **rolls already stored** (a procedure adopting a roll, a reveal, a follow-up);
7. **the campaign's roll chain** (``record.chain.append_roll``): always last, just before the commit. Every
   roll of the campaign waits for it, so nothing else is done while holding it.

A post's own row, locked by an edit or a deletion (``FOR NO KEY UPDATE``, which does not hold up the rows
that point at the post: rolls, ledger entries), is taken alone, with its search entry.
The event log's rows are inserted unnumbered and the campaign's sequence is taken after the commit, in a
transaction of its own (``campaigns.events.publish``), so it is in no write's order.

A deadlock that still happens (a lock order this list missed, or one taken by PostgreSQL itself, such as an
index page) is retried once by the service (:func:`retried_once_on_deadlock`): the aborted transaction wrote
nothing, its events were dropped with it, and the second run sees the winner's rows. A second deadlock is
answered as :class:`SceneBusy`, a clear error asking to try again, never a 500. On SQLite a write
transaction takes the database's one write lock at BEGIN, so none of this can deadlock there.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.core.exceptions import ValidationError
from django.db import OperationalError, transaction
from django.utils.translation import gettext_lazy

from campaigns.error_codes import SCENE_BUSY

logger = logging.getLogger(__name__)

# PostgreSQL's SQLSTATE for a transaction aborted to break a deadlock.
DEADLOCK_DETECTED = "40P01"

_P = ParamSpec("_P")
_R = TypeVar("_R")


class SceneBusy(ValidationError):
    """A write deadlocked twice with others in the same place: the client should try again (API: 503).

    A ``ValidationError`` so that every page, form and API view already shows it as a clear error."""

    code = SCENE_BUSY.code
    http_status = SCENE_BUSY.status

    def __init__(self) -> None:
        super().__init__(
            gettext_lazy("Hay mucha actividad en esta escena y tu cambio no se guardó: vuelve a intentarlo."),
            code=self.code,
        )


def is_deadlock(error: BaseException) -> bool:
    """Whether the database aborted this statement's transaction to break a deadlock."""
    cause = error.__cause__
    return isinstance(error, OperationalError) and getattr(cause, "sqlstate", None) == DEADLOCK_DETECTED


def retried_once_on_deadlock(service: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``service`` again once when its transaction is aborted by a deadlock; a second one is
    :class:`SceneBusy`. Only where the service owns the transaction: inside a caller's, the whole of it was
    aborted, so the deadlock goes up to whoever began it (and its own retry)."""

    @functools.wraps(service)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if transaction.get_connection().in_atomic_block:
            return service(*args, **kwargs)
        try:
            return service(*args, **kwargs)
        except OperationalError as error:
            if not is_deadlock(error):
                raise
            logger.warning("%s deadlocked; running it again", service.__qualname__)
        try:
            return service(*args, **kwargs)
        except OperationalError as error:
            if not is_deadlock(error):
                raise
            logger.warning("%s deadlocked twice; answered as busy", service.__qualname__)
            raise SceneBusy() from error

    return run


__all__ = ["DEADLOCK_DETECTED", "SceneBusy", "is_deadlock", "retried_once_on_deadlock"]
