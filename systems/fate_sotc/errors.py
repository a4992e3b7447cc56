"""The error codes of the SotC rules (spec §2.13 plus a few flow codes), in Spanish and English.

One catalogue keeps the messages consistent and uses the spec's glossary terms (PD, aspecto, forzado...).
"""

from __future__ import annotations

from typing import Any

from systems.errors import RulesError

MESSAGES: dict[str, tuple[str, str]] = {
    "invalid_d6": ("Un d6 debe valer de 1 a 6.", "A d6 must show 1 to 6."),
    "invalid_glyph": (
        "Símbolo de dado Fudge no reconocido: usa [+], [-] o [ ].",
        "Unknown Fudge die glyph: use [+], [-] or [ ].",
    ),
    "invalid_ladder_label": (
        "Ese adjetivo no está en la escala.",
        "That adjective is not on the ladder.",
    ),
    "insufficient_fate_points": (
        "No tienes suficientes puntos de Destino (PD).",
        "Not enough fate points.",
    ),
    "gm_approval_required": (
        "El Director de Juego debe aprobarlo antes.",
        "The GM must approve this first.",
    ),
    "aspect_already_invoked_on_roll": (
        "Ese aspecto ya se ha invocado en esta tirada.",
        "That aspect was already invoked on this roll.",
    ),
    "aspect_inactive": ("Ese aspecto ya no está en juego.", "That aspect is no longer in play."),
    "aspect_unknown_to_invoker": (
        "No conoces ese aspecto: tendrás que adivinarlo.",
        "You do not know that aspect: guess it instead.",
    ),
    "free_invocation_unavailable": (
        "No tienes una invocación gratuita disponible de ese aspecto.",
        "You have no free invocation available on that aspect.",
    ),
    "free_invocation_limit": (
        "Ya se ha usado una invocación gratuita en esta tirada.",
        "A free invocation was already used on this roll.",
    ),
    "no_free_invocation_transfer": (
        "El Director de Juego no permite ceder esta invocación gratuita.",
        "The GM does not allow passing this free invocation on.",
    ),
    "consequence_slots_full": (
        "Ya tienes una consecuencia severa: no puedes elegir otra consecuencia.",
        "You already hold a severe consequence: you cannot volunteer another one.",
    ),
    "consequence_required": (
        "Este golpe exige una consecuencia: escribe su texto.",
        "This hit requires a consequence: write its text.",
    ),
    "not_taken_out": (
        "Solo un personaje derrotado puede exigir otra derrota.",
        "Only a taken-out character can demand a different outcome.",
    ),
    "compel_not_refusable": (
        "No puedes rechazar este forzado: debes aceptarlo.",
        "You cannot refuse this compel: you must accept it.",
    ),
    "compel_escalation_limit": (
        "El forzado no puede subir más.",
        "The compel cannot be escalated any further.",
    ),
    "compel_escalation_disabled": (
        "Subir el forzado está desactivado en esta campaña.",
        "Compel escalation is disabled in this campaign.",
    ),
    "fp_advantage_disabled": (
        "Ganar una ventaja (+1) con PD está desactivado en esta campaña.",
        "Gaining a +1 advantage with fate points is disabled in this campaign.",
    ),
    "fp_advantage_limit": (
        "Ya no puedes gastar más PD en ventajas en esta tirada.",
        "No more fate point advantages on this roll.",
    ),
    "skill_pyramid_mismatch": (
        "Las habilidades no siguen la pirámide de la campaña.",
        "The skills do not follow the campaign's skill pyramid.",
    ),
    "aspect_count_mismatch": (
        "El número de aspectos no es el de la campaña.",
        "The number of aspects does not match the campaign.",
    ),
    "stunt_count_mismatch": (
        "El número de virtudes no es el de la campaña.",
        "The number of stunts does not match the campaign.",
    ),
    "skill_above_creation_max": (
        "Una habilidad supera el máximo permitido al crear el personaje.",
        "A skill is above the creation maximum.",
    ),
    "window_closed": (
        "La ventana de invocaciones de esta tirada ya está cerrada.",
        "This roll's invocation window is already closed.",
    ),
    "out_of_order": ("Ese paso no corresponde ahora.", "That step is out of order."),
    "already_settled": ("Esto ya está resuelto.", "This is already settled."),
    "spin_expired": (
        "El éxito crítico solo vale para la acción inmediatamente siguiente.",
        "Spin only applies to the very next action.",
    ),
    "not_in_order": (
        "Ese personaje no está en el orden de iniciativa.",
        "That character is not in the initiative order.",
    ),
    "not_your_turn": ("No es su turno.", "It is not their turn."),
    "invalid_value": ("Valor no válido.", "Invalid value."),
    "unknown_roll_kind": ("Tipo de tirada desconocido.", "Unknown roll kind."),
}


def fate_error(code: str, **details: Any) -> RulesError:
    """Build the RulesError for ``code`` (the caller raises it)."""
    es, en = MESSAGES[code]
    return RulesError(code, es, en, **details)
