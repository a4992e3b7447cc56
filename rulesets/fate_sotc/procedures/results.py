"""A rolled action's result once its window closed, in words in both languages (ladder words; a secret
difficulty never appears, only success or failure)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from rulesets.fate_sotc.procedures.common import ladder, language, settings_of
from rulesets.fate_sotc.procedures.window import Final, WindowState
from rulesets.fate_sotc.rolls import attack_words, opposed_words, simple_words
from rulesets.kit.table import Table, in_both
from systems.fate_sotc.resolution import Track, resolve_attack, resolve_opposed, resolve_simple


def _pick(words: dict[str, str]) -> str:
    return words["en"] if language().startswith("en") else words["es"]


def two_sides(state: WindowState, table: Table, kind: str, track: Track = Track.HEALTH) -> Final:
    """An opposed roll, an attack or a maneuver: both efforts and who wins, in words."""
    settings = settings_of(table)
    a, b = state.sides["a"], state.sides["b"]
    fields: dict[str, object] = {}
    if kind == "attack":
        res = resolve_attack(a.effort, b.effort, track, settings)
        words = attack_words(res.hit, res.track.value, res.defender_spin, res.defense_margin)
        fields = {"hit": res.hit}
    else:
        opp = resolve_opposed(a.effort, b.effort, settings)
        words = opposed_words(opp.winner, opp.shifts, kind == "maneuver")
        fields = {"winner": opp.winner, "shifts": opp.shifts, "critical": opp.critical}
    names = in_both(
        lambda: (
            _("%(a)s %(ea)s contra %(b)s %(eb)s: %(result)s")
            % {
                "a": a.label(settings),
                "ea": ladder(a.effort),
                "b": b.label(settings),
                "eb": ladder(b.effort),
                "result": _pick(words),
            }
        )
    )
    return Final(es=names.es, en=names.en, **fields)  # type: ignore[arg-type]


def one_side(state: WindowState, table: Table, difficulty: int | None, hidden: bool) -> Final:
    """A roll against a difficulty (a secret one named only as secret), or a bare effort."""
    a = state.sides["a"]
    if difficulty is None:
        names = in_both(lambda: _("Esfuerzo final %(effort)s") % {"effort": ladder(a.effort)})
        return Final(es=names.es, en=names.en)
    outcome = resolve_simple(a.effort, difficulty, settings_of(table))
    words = simple_words(outcome, None if hidden else difficulty)
    names = in_both(
        lambda: _("Esfuerzo final %(effort)s, %(result)s") % {"effort": ladder(a.effort), "result": _pick(words)}
    )
    if hidden:
        return Final(es=names.es, en=names.en, success=outcome.success, critical=outcome.critical)
    return Final(
        es=names.es,
        en=names.en,
        success=outcome.success,
        critical=outcome.critical,
        shifts=outcome.shifts,
        failure_margin=outcome.failure_margin,
    )
