"""The game's words for the thread's record, from the translation catalogue (glossary §1.2): pools, degrees,
the outcome line and each settlement effect. Every function returns text in the active language; callers
wrap them in ``in_both`` so a record line is stored in both product languages."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from systems.dont_rest_your_head.outcome import Outcome


def pool_name(pool: str) -> str:
    """A pool with its article, as the summary says it ("domina la disciplina")."""
    names = {
        "discipline": _("la disciplina"),
        "exhaustion": _("el agotamiento"),
        "madness": _("la locura"),
        "pain": _("el dolor"),
    }
    return names[pool]


def pool_label(pool: str) -> str:
    """A pool's name on a picker ("Disciplina")."""
    labels = {
        "discipline": _("Disciplina"),
        "exhaustion": _("Agotamiento"),
        "madness": _("Locura"),
        "pain": _("Dolor"),
    }
    return labels[pool]


def degree_word(descriptor: str | None) -> str:
    """(S) adecuado, impresionante, extraordinario, irreal; "mínimo" for a win with no success (R)."""
    words = {
        "adecuado": _("adecuado"),
        "impresionante": _("impresionante"),
        "extraordinario": _("extraordinario"),
        "irreal": _("dominio de lo irreal"),
    }
    return words.get(descriptor or "", _("mínimo"))


def dice(faces: Sequence[int]) -> str:
    """Dice as the thread writes them: "1, 6, 4" (a pool with no dice: "ninguno")."""
    return ", ".join(str(f) for f in faces) if faces else _("ninguno")


def outcome_line(outcome: Outcome) -> str:
    """Who wins, by how much, and the dominating pool, in the game's words."""
    pool = pool_name(outcome.dominant_pool or "pain")
    if outcome.success:
        return _("Gana el protagonista: éxito con %(n)s (%(word)s) contra %(gm)s; domina %(pool)s.") % {
            "n": outcome.player_degree,
            "word": degree_word(outcome.descriptor),
            "gm": outcome.gm_degree,
            "pool": pool,
        }
    return _("Gana la oposición: fracaso con %(n)s contra %(gm)s; domina %(pool)s.") % {
        "n": outcome.player_degree,
        "gm": outcome.gm_degree,
        "pool": pool,
    }


def benefit_words(choice: str) -> str:
    words = {
        "nothing": _("nada"),
        "exhaustion-1": _("−1 agotamiento"),
        "clear_fight": _("desmarcar una casilla de lucha"),
        "clear_flight": _("desmarcar una casilla de huida"),
    }
    return words[choice]


def box_words(box: str) -> str:
    return _("lucha") if box == "fight" else _("huida")


def consequence_words(choice: str) -> str:
    words = {
        "none": _("ninguna"),
        "exhaustion+1": _("+1 agotamiento"),
        "check_box": _("marcar una casilla de respuesta"),
    }
    return words[choice]


def effect_words(name: str, code: str) -> str:
    """One settlement effect of one protagonist (``systems.dont_rest_your_head.settlement`` codes)."""
    consequence = code.startswith("consequence:")
    base = code.split(":", 1)[1] if consequence else code
    words = {
        "discipline:nothing": _("%(name)s no toma el beneficio de la disciplina."),
        "discipline:exhaustion-1": _("%(name)s se quita 1 de agotamiento (domina la disciplina)."),
        "discipline:clear_fight": _("%(name)s desmarca una casilla de lucha (domina la disciplina)."),
        "discipline:clear_flight": _("%(name)s desmarca una casilla de huida (domina la disciplina)."),
        "exhaustion+1": _("%(name)s gana 1 de agotamiento."),
        "check_fight": _("%(name)s marca una casilla de lucha."),
        "check_flight": _("%(name)s marca una casilla de huida."),
        "snap": _("%(name)s estalla: −1 disciplina, +1 locura permanente, casillas de respuesta limpias."),
        "nightmare": _("%(name)s estalla y se convierte en Pesadilla."),
    }
    line = words.get(base, _("%(name)s: efecto aplicado.")) % {"name": name}
    return _("Consecuencia del DJ: %(effect)s") % {"effect": line} if consequence else line


def despair_gained(n: int) -> str:
    return ngettext(
        "Domina el dolor: el DJ gana %(n)s moneda de desesperación.",
        "Domina el dolor: el DJ gana %(n)s monedas de desesperación.",
        n,
    ) % {"n": n}


def hope_from_shading(n: int) -> str:
    return ngettext(
        "%(n)s moneda de desesperación gastada pasa al cofre de esperanza.",
        "%(n)s monedas de desesperación gastadas pasan al cofre de esperanza.",
        n,
    ) % {"n": n}
