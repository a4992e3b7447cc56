"""Free invocations on the scene board, as the board changes the runner applies (never a direct write)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from rulesets.fate.aspects import BOOST_PREFIX, is_boost
from rulesets.kit.procedures import AddAspect, BoardChange, RemoveAspect, UpdateAspect
from rulesets.kit.refusals import refuse
from rulesets.kit.table import BoardAspect, Table
from systems.errors import RulesError

MAX_FREE_INVOCATIONS = 20  # what a board aspect may carry (the scene board's own limit)


def _none_left(aspect: BoardAspect) -> RulesError:
    return refuse(
        "no_free_invocation",
        f"«{aspect.text}» no tiene invocaciones gratuitas.",
        f"'{aspect.text}' has no free invocations.",
    )


def spend_from_board(aspect: BoardAspect, count: int = 1) -> BoardChange:
    """Spend ``count`` free invocations of a board aspect now: one less on it, or a used boost gone."""
    left = aspect.free_invocations - count
    if left < 0:
        raise _none_left(aspect)
    if left == 0 and is_boost(aspect):
        return RemoveAspect(aspect.id)
    return UpdateAspect(aspect.id, free_invocations=left)


def give_back_to_board(aspect: BoardAspect, count: int = 1) -> UpdateAspect:
    """A spent free invocation comes back (a vetoed invocation)."""
    return UpdateAspect(aspect.id, free_invocations=min(MAX_FREE_INVOCATIONS, aspect.free_invocations + count))


def add_free_invocations(aspect: BoardAspect, count: int, *, hidden: bool | None = None) -> UpdateAspect:
    """A board aspect gains free invocations (create an advantage on an aspect already there); ``hidden``
    False reveals it."""
    total = min(MAX_FREE_INVOCATIONS, aspect.free_invocations + count)
    return UpdateAspect(aspect.id, free_invocations=total, hidden=hidden)


def add_boost(text: str) -> AddAspect:
    """A boost: a one-use aspect on the board, gone after its free invocation."""
    return AddAspect(BOOST_PREFIX + text.strip(), free_invocations=1)


def add_situation_aspect(text: str, free_invocations: int = 0, *, hidden: bool = False) -> AddAspect:
    return AddAspect(text.strip(), free_invocations=min(MAX_FREE_INVOCATIONS, free_invocations), hidden=hidden)


class BoardFreeUses(BaseModel):
    """Free invocations of board aspects spent while a window is open (kept in the procedure's state and
    written back when it closes, so a vetoed one simply comes off the count)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spent: dict[int, int] = Field(default_factory=dict)  # board aspect id -> free invocations used

    def left(self, aspect: BoardAspect) -> int:
        return max(0, aspect.free_invocations - self.spent.get(aspect.id, 0))

    def spend(self, aspect: BoardAspect) -> BoardFreeUses:
        if self.left(aspect) <= 0:
            raise _none_left(aspect)
        return BoardFreeUses(spent={**self.spent, aspect.id: self.spent.get(aspect.id, 0) + 1})

    def give_back(self, aspect_id: int) -> BoardFreeUses:
        spent = dict(self.spent)
        if spent.get(aspect_id, 0) > 1:
            spent[aspect_id] -= 1
        else:
            spent.pop(aspect_id, None)
        return BoardFreeUses(spent=spent)

    def board_changes(self, table: Table) -> list[BoardChange]:
        """What to write back when the window closes (aspects gone from the board meanwhile are skipped)."""
        return [
            spend_from_board(aspect, min(used, aspect.free_invocations))
            for aspect_id, used in sorted(self.spent.items())
            if used > 0 and (aspect := table.board.get(aspect_id)) is not None
        ]
