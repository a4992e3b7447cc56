"""Conflicto (§3.10, §5.1, §5.2): the protagonist's roll (and helpers') against the GM's pain dice, open for
hope and despair until the GM settles it, as a table of steps. Who may take each step comes from the
conflict's state (the rules); ``campaigns.policy`` decides whether a viewer is one of them. The steps'
functions live in ``conflict_rolls`` (opening, opposition, rolls, reveal), ``conflict_window`` (the
adjustment window) and ``conflict_settle`` (choices and settlement)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns import policy
from campaigns.policy import Viewer
from rulesets.dont_rest_your_head.procedures import conflict_rolls as rolling
from rulesets.dont_rest_your_head.procedures import conflict_settle as settling
from rulesets.dont_rest_your_head.procedures import conflict_window as window
from rulesets.dont_rest_your_head.procedures import words
from rulesets.dont_rest_your_head.procedures.conflict_state import (
    ConflictFlowState,
    ConflictSecret,
    actor,
    actors,
    chest,
    conflict_of,
    gm_when,
    leader_actor,
    name,
    pure_table,
)
from rulesets.dont_rest_your_head.sheet import is_opposition
from rulesets.kit.procedures import Choice, NoParams, Opening, Procedure, Step
from rulesets.kit.table import GM, Actor, Reads, Table, in_both
from systems.dont_rest_your_head import conflict as rules
from systems.dont_rest_your_head.conflict import ConflictState
from systems.errors import RulesError
from systems.registry import Names

FORMS = "dont_rest_your_head/steps/"
Choices = Mapping[str, Sequence[Choice]]


def _phase(state: ConflictFlowState, *phases: ConflictState) -> bool:
    return state.conflict.state in phases


def _numbers(low: int, high: int) -> list[Choice]:
    return [Choice(str(n), str(n)) for n in range(low, high + 1)]


# --- who, by the conflict's state ------------------------------------------------------------------------


def _rollers(state: ConflictFlowState) -> set[Actor]:
    c = state.conflict
    if not _phase(state, ConflictState.AWAITING_ROLLS):
        return set()
    if c.unclear_leader:
        rolled = {r.pc for r in c.participant_rolls}
        return actors(state, [pc for pc in c.participants if pc not in rolled])
    return leader_actor(state) if c.leader_roll is None else set()


def _helpers_to_roll(state: ConflictFlowState) -> set[Actor]:
    if not _phase(state, ConflictState.AWAITING_ROLLS):
        return set()
    return actors(state, rolling.dropable(state.conflict))


def _in_window(state: ConflictFlowState) -> bool:
    return _phase(state, ConflictState.ADJUSTING) and state.pending_scar is None and not state.pending_minor


def _leader_in_window(state: ConflictFlowState) -> set[Actor]:
    return leader_actor(state) if _in_window(state) else set()


def _may_scar(state: ConflictFlowState) -> set[Actor]:
    return _leader_in_window(state) if state.leader_scars else set()


def _may_minor(state: ConflictFlowState) -> set[Actor]:
    return _leader_in_window(state) if not state.conflict.minor_use else set()


def _player_pass(state: ConflictFlowState) -> set[Actor]:
    return _leader_in_window(state) if "player" not in state.conflict.passed else set()


def _gm_pass(state: ConflictFlowState) -> set[Actor]:
    return gm_when(_in_window(state) and "gm" not in state.conflict.passed)


def _choosers(state: ConflictFlowState) -> set[Actor]:
    if not _phase(state, ConflictState.SETTLING):
        return set()
    return actors(state, settling.pending_choices(state))


def _settler(state: ConflictFlowState) -> set[Actor]:
    return gm_when(_phase(state, ConflictState.SETTLING) and not settling.pending_choices(state))


# --- waiting lines ----------------------------------------------------------------------------------------


def _names(state: ConflictFlowState, pcs: Sequence[str]) -> str:
    return ", ".join(name(state, pc) for pc in pcs)


def _rolls_waiting(state: ConflictFlowState, table: Table) -> Names:
    c = state.conflict
    rolled = {r.pc for r in c.participant_rolls}
    pcs = [pc for pc in c.participants if pc not in rolled] if c.unclear_leader else [c.leader or ""]
    who = _names(state, pcs)
    return in_both(lambda: _("la tirada de %(names)s") % {"names": who})


def _helpers_waiting(state: ConflictFlowState, table: Table) -> Names:
    who = _names(state, rolling.dropable(state.conflict))
    return in_both(lambda: _("la ayuda de %(names)s") % {"names": who})


def _player_window_waiting(state: ConflictFlowState, table: Table) -> Names:
    who = name(state, state.conflict.leader)
    return in_both(lambda: _("la decisión de %(name)s: iluminar, invocar una cicatriz o pasar") % {"name": who})


def _gm_window_waiting(state: ConflictFlowState, table: Table) -> Names:
    return in_both(lambda: _("la decisión del DJ: ensombrecer o pasar"))


def _choices_waiting(state: ConflictFlowState, table: Table) -> Names:
    who = _names(state, settling.pending_choices(state))
    return in_both(lambda: _("la elección de %(names)s") % {"names": who})


# --- pickers (never ids alone, never internal keys) ---------------------------------------------------------


def _protagonists(table: Table) -> list[Choice]:
    return [
        Choice(str(c.id), c.name)
        for c in table.characters.values()
        if c.approved and not c.is_npc and not is_opposition(c.sheet)
    ]


def _opponents(table: Table) -> list[Choice]:
    """The campaign's opposition (NPCs with a pain score) for "calcular": each sends its pain score."""
    found = []
    for c in table.characters.values():
        if c.approved and is_opposition(c.sheet):
            pain = int(c.sheet.get("pain", 1))
            found.append(Choice(str(pain), _("%(name)s (dolor %(n)s)") % {"name": c.name, "n": pain}))
    return found


def _pain_pickers(table: Table) -> dict[str, list[Choice]]:
    return {"pain": _numbers(1, 30), "opponents": _opponents(table), "madness_price": _numbers(1, 6)}


def opening_choices(table: Table, viewer: Viewer) -> Choices:
    everyone = _protagonists(table)
    mine = [c for c in everyone if policy.may_open_character_procedure(viewer, table.characters[int(c.value)])]
    offered: dict[str, list[Choice]] = {"leader": mine, "helpers": everyone, "participants": everyone}
    if policy.may_run_gm_procedure(viewer):  # the pain dice are the GM's (§3.10 step 2)
        offered |= _pain_pickers(table)
    return offered


def _oppose_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    return _pain_pickers(table)


def _viewer_pcs(state: ConflictFlowState, pcs: Sequence[str], viewer: Viewer) -> list[Choice]:
    return [Choice(pc, name(state, pc)) for pc in pcs if actor(state, pc) == viewer.user_id]


def _leader_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    c = state.conflict
    offered: dict[str, list[Choice]] = {"temp_madness": _numbers(0, 6)}
    if c.unclear_leader:
        rolled = {r.pc for r in c.participant_rolls}
        offered["pc"] = _viewer_pcs(state, [pc for pc in c.participants if pc not in rolled], viewer)
    return offered


def _helper_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    return {"pc": _viewer_pcs(state, rolling.dropable(state.conflict), viewer)}


def _drop_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    return {"pc": [Choice(pc, name(state, pc)) for pc in rolling.dropable(state.conflict)]}


def _tied_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    return {"pc": [Choice(pc, name(state, pc)) for pc in rolling.tied(state.conflict)]}


def _hope_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    return {"coins": _numbers(1, min(chest(table).hope, 20))}


def _scar_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    pools = [p for p in window.pools_in_play(state) if p != "pain"]
    return {
        "scar": [Choice(str(s.index), s.text) for s in state.leader_scars],
        "pool": [Choice(p, words.pool_label(p)) for p in pools],
    }


def _shade_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    return {
        "kind": [Choice("add6", _("añadir un 6")), Choice("remove6", _("quitar un 6"))],
        "pool": [Choice(p, words.pool_label(p)) for p in window.pools_in_play(state)],
    }


def _choose_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    mine = [pc for pc in settling.pending_choices(state) if actor(state, pc) == viewer.user_id]
    offered: dict[str, list[Choice]] = {"pc": [Choice(pc, name(state, pc)) for pc in mine]}
    benefits = sorted({b for pc in mine for b in state.asks[pc].benefits})
    boxes = sorted({b for pc in mine for b in state.asks[pc].boxes})
    if benefits:
        offered["benefit"] = [Choice(b, words.benefit_words(b)) for b in benefits]
    if boxes:
        offered["box"] = [Choice(b, words.box_words(b)) for b in boxes]
    return offered


def _settle_choices(state: ConflictFlowState, table: Table, viewer: Viewer) -> Choices:
    if state.consequences == ["none"]:
        return {}  # a success: no consequence to choose
    return {
        "consequence": [Choice(c, words.consequence_words(c)) for c in state.consequences],
        "consequence_box": [Choice("fight", words.box_words("fight")), Choice("flight", words.box_words("flight"))],
    }


# --- what the rules forbid now, with the reason (the button is shown disabled) --------------------------------


def _no_hope(state: ConflictFlowState, table: Table, viewer: Viewer | None = None) -> Names | None:
    if chest(table).hope > 0:
        return None
    return in_both(lambda: _("El cofre de esperanza está vacío."))


def _no_despair(state: ConflictFlowState, table: Table, viewer: Viewer | None = None) -> Names | None:
    if chest(table).despair > 0:
        return None
    return in_both(lambda: _("El cofre de desesperación está vacío."))


def _after_shading(state: ConflictFlowState, table: Table, viewer: Viewer | None = None) -> Names | None:
    if not state.conflict.shading:
        return None
    return in_both(lambda: _("El DJ ya ha ensombrecido en este conflicto: no se invocan cicatrices."))


def _refused_by_rules(check: Callable[[], object]) -> Names | None:
    """The rules' own refusal as the reason a step is shown disabled (None: they allow it now), so what a page
    offers and what the step accepts are decided by one function."""
    try:
        check()
    except RulesError as refused:
        return Names(refused.message_es, refused.message_en)
    return None


def _minor_refused(state: ConflictFlowState, table: Table, viewer: Viewer | None = None) -> Names | None:
    """A minor use needs exhaustion at the roll, talents on and no major use (§3.5, vector 52)."""
    c = conflict_of(state, None)  # the window's pain roll is revealed: the public state is the conflict
    if c.leader is None:
        return None
    return _refused_by_rules(lambda: rules.declare_minor_use(pure_table(table, c), str(c.leader), gm_confirms=True))


def _resolve_refused(state: ConflictFlowState, table: Table, viewer: Viewer | None = None) -> Names | None:
    """After the GM's own shading the player answers first, until the campaign's timeout (§5.2)."""
    c = conflict_of(state, None)
    return _refused_by_rules(lambda: rules.gm_resolve(pure_table(table, c), window.timed_out(state, table)))


CONFLICT: Procedure[ConflictFlowState] = Procedure(
    key="conflict",
    title=gettext_lazy("Conflicto"),
    state=ConflictFlowState,
    secret=ConflictSecret,
    reads=Reads(rules_state=True),
    opening=Opening(params=rolling.OpenParams, run=rolling.open_conflict, choices=opening_choices),
    steps=(
        Step(
            key="oppose",
            label=gettext_lazy("Fijar la oposición y los dados de dolor"),
            params=rolling.OpposeParams,
            who=lambda s: gm_when(_phase(s, ConflictState.DECLARED)),
            run=rolling.oppose,
            form=FORMS + "oppose.html",
            choices=_oppose_choices,
        ),
        Step(
            key="roll_pain",
            label=gettext_lazy("Tirar los dados de dolor"),
            params=NoParams,
            who=lambda s: gm_when(_phase(s, ConflictState.AWAITING_ROLLS) and not s.pain_rolled),
            run=rolling.roll_pain,
        ),
        Step(
            key="roll_leader",
            label=gettext_lazy("Tirar las reservas"),
            params=rolling.LeaderParams,
            who=_rollers,
            run=rolling.roll_leader,
            waiting=_rolls_waiting,
            form=FORMS + "roll_leader.html",
            choices=_leader_choices,
        ),
        Step(
            key="roll_helper",
            label=gettext_lazy("Tirar la ayuda (dados de disciplina)"),
            params=rolling.PcParams,
            who=_helpers_to_roll,
            run=rolling.roll_helper,
            waiting=_helpers_waiting,
            form=FORMS + "fields.html",
            choices=_helper_choices,
        ),
        Step(
            key="drop_helper",
            label=gettext_lazy("Retirar una ayuda"),
            params=rolling.PcParams,
            who=lambda s: gm_when(_phase(s, ConflictState.AWAITING_ROLLS) and bool(rolling.dropable(s.conflict))),
            run=rolling.drop_helper,
            awaited=False,
            form=FORMS + "fields.html",
            choices=_drop_choices,
        ),
        Step(
            key="pick_leader",
            label=gettext_lazy("Elegir al protagonista principal"),
            params=rolling.PcParams,
            who=lambda s: gm_when(_phase(s, ConflictState.REVEALED)),
            run=rolling.pick_leader,
            form=FORMS + "fields.html",
            choices=_tied_choices,
        ),
        Step(
            key="hope",
            label=gettext_lazy("Iluminar: +1 éxito por moneda de esperanza"),
            params=window.HopeParams,
            who=_leader_in_window,
            run=window.hope,
            awaited=False,
            form=FORMS + "fields.html",
            choices=_hope_choices,
            unavailable=_no_hope,
        ),
        Step(
            key="minor_use",
            label=gettext_lazy("Proponer un uso menor del talento de agotamiento"),
            params=NoParams,
            who=_may_minor,
            run=window.minor_use,
            awaited=False,
            unavailable=_minor_refused,
        ),
        Step(
            key="confirm_minor",
            label=gettext_lazy("Aceptar el uso menor"),
            params=NoParams,
            who=lambda s: gm_when(s.pending_minor),
            run=window.confirm_minor,
        ),
        Step(
            key="refuse_minor",
            label=gettext_lazy("El uso menor no se aplica"),
            params=NoParams,
            who=lambda s: gm_when(s.pending_minor),
            run=window.refuse_minor,
            awaited=False,
        ),
        Step(
            key="scar",
            label=gettext_lazy("Invocar una cicatriz para volver a tirar"),
            params=window.ScarParams,
            who=_may_scar,
            run=window.scar,
            awaited=False,
            form=FORMS + "fields.html",
            choices=_scar_choices,
            unavailable=_after_shading,
        ),
        Step(
            key="confirm_scar",
            label=gettext_lazy("Aceptar la cicatriz"),
            params=NoParams,
            who=lambda s: gm_when(s.pending_scar is not None),
            run=window.confirm_scar,
        ),
        Step(
            key="refuse_scar",
            label=gettext_lazy("La cicatriz no viene al caso"),
            params=NoParams,
            who=lambda s: gm_when(s.pending_scar is not None),
            run=window.refuse_scar,
            awaited=False,
        ),
        Step(
            key="shade",
            label=gettext_lazy("Ensombrecer: gastar 1 de desesperación"),
            params=window.ShadeParams,
            who=lambda s: gm_when(_in_window(s)),
            run=window.shade,
            awaited=False,
            form=FORMS + "fields.html",
            choices=_shade_choices,
            unavailable=_no_despair,
        ),
        Step(
            key="pass",
            label=gettext_lazy("Pasar"),
            params=NoParams,
            who=_player_pass,
            run=window.player_pass,
            waiting=_player_window_waiting,
        ),
        Step(
            key="gm_pass",
            label=gettext_lazy("Pasar (DJ)"),
            params=NoParams,
            who=_gm_pass,
            run=window.gm_pass,
            waiting=_gm_window_waiting,
        ),
        Step(
            key="resolve",
            label=gettext_lazy("Cerrar la ventana de ajustes"),
            params=NoParams,
            who=lambda s: gm_when(_in_window(s)),
            run=window.resolve,
            awaited=False,
            unavailable=_resolve_refused,
        ),
        Step(
            key="choose",
            label=gettext_lazy("Elegir el efecto"),
            params=settling.ChooseParams,
            who=_choosers,
            run=settling.choose,
            waiting=_choices_waiting,
            form=FORMS + "fields.html",
            choices=_choose_choices,
        ),
        Step(
            key="settle",
            label=gettext_lazy("Resolver y aplicar los efectos"),
            params=settling.SettleParams,
            who=_settler,
            run=settling.settle_conflict,
            form=FORMS + "fields.html",
            choices=_settle_choices,
        ),
        Step(
            key="void",
            label=gettext_lazy("Anular el conflicto"),
            params=NoParams,
            who=lambda s: gm_when(_phase(s, ConflictState.DECLARED, ConflictState.AWAITING_ROLLS)),
            run=rolling.void,
            awaited=False,
        ),
    ),
)

__all__ = ["CONFLICT", "GM"]
