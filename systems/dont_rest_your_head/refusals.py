"""The refusals of No te Duermas: the spec's stable codes (§3.9) with short messages in both languages."""

from __future__ import annotations

from typing import Any, NoReturn

from systems.errors import RulesError

# code -> (Spanish, English). Game terms follow the glossary (§1.2).
MESSAGES: dict[str, tuple[str, str]] = {
    "CANNOT_ROLL": (
        "Este protagonista no puede tirar: está dormido, es una Pesadilla o ha salido de la partida.",
        "This protagonist can't roll: asleep, a Nightmare or removed.",
    ),
    "TALENTS_UNAVAILABLE": (
        "Los talentos no están disponibles mientras duerme o se recupera de un colapso.",
        "Talents are unavailable while asleep or recovering from a crash.",
    ),
    "EXHAUSTION_CAP": (
        "El agotamiento no puede subir voluntariamente por encima de 6.",
        "Exhaustion can't be raised voluntarily above 6.",
    ),
    "ONCE_PER_ROLL": (
        "Solo se puede aumentar el agotamiento voluntariamente una vez por tirada.",
        "Exhaustion can be raised voluntarily only once per roll.",
    ),
    "MADNESS_RANGE": (
        "La locura temporal debe estar entre 0 y 6 dados.",
        "Temporary madness must be 0 to 6 dice.",
    ),
    "MADNESS_PRICE": (
        "El talento de locura exige más dados de locura temporal (los permanentes no cuentan).",
        "The madness talent needs more temporary madness dice (permanent dice don't count).",
    ),
    "MINOR_NEEDS_EXHAUSTION": (
        "El uso menor necesita al menos 1 de agotamiento al tirar.",
        "A minor use needs exhaustion of at least 1 when rolling.",
    ),
    "TALENT_USE_EXCLUSIVE": (
        "Uso menor y uso mayor no se pueden combinar en la misma tirada.",
        "A minor and a major use can't be combined in one roll.",
    ),
    "HELPER_NO_TALENTS": (
        "Quien ayuda solo tira dados de disciplina y no puede usar talentos.",
        "A helper rolls only discipline dice and can't use talents.",
    ),
    "NOT_LEADER": (
        "Solo el jugador del protagonista principal puede hacer esto.",
        "Only the leader's player can do this.",
    ),
    "NO_HOPE": (
        "No hay suficientes monedas en el cofre de esperanza (las pendientes no cuentan).",
        "Not enough coins in the hope chest (pending coins don't count).",
    ),
    "NO_DESPAIR": (
        "El cofre de desesperación está vacío.",
        "The despair chest is empty.",
    ),
    "POOL_NOT_IN_PLAY": (
        "Esa reserva no tiene dados en juego en este conflicto.",
        "That pool has no dice in play in this conflict.",
    ),
    "NO_SIX_IN_POOL": (
        "Esa reserva no muestra ningún 6 que eliminar.",
        "That pool shows no 6 to remove.",
    ),
    "WINDOW_CLOSED": (
        "La ventana de ajustes de este conflicto está cerrada.",
        "This conflict's adjustment window is closed.",
    ),
    "IN_CONFLICT": (
        "No se puede mientras el protagonista esté en un conflicto sin resolver.",
        "Not while the protagonist is in an unsettled conflict.",
    ),
    "GM_NOT_ALLOWED": (
        "El DJ no ha permitido tomarse un respiro en este momento.",
        "The GM has not allowed a breather at this moment.",
    ),
    "GM_NOT_CONFIRMED": (
        "Hace falta la confirmación del DJ.",
        "The GM's confirmation is needed.",
    ),
    "NOTHING_TO_RECOVER": (
        "No hay disciplina que recuperar (sin locura permanente o con la disciplina completa).",
        "Nothing to recover (no permanent madness, or discipline is full).",
    ),
    "SCAR_ALREADY_INVOKED": (
        "Esa cicatriz ya se invocó en esta sesión.",
        "That scar was already invoked this session.",
    ),
    "SCAR_CROSSED_OUT": (
        "Esa cicatriz está tachada y no se puede volver a usar.",
        "That scar is crossed out and can't be used again.",
    ),
    "SCAR_AFTER_SHADING": (
        "No se puede invocar una cicatriz después de que el DJ haya ensombrecido este conflicto.",
        "A scar can't be invoked after the GM has shaded this conflict.",
    ),
    "SCAR_LIMIT": (
        "Solo se puede crear una cicatriz nueva por sesión.",
        "Only one new scar per session.",
    ),
    "SCAR_NOT_FOUND": (
        "Esa cicatriz no existe.",
        "There is no such scar.",
    ),
    "DUPLICATE_ROLL": (
        "Esa tirada ya está hecha en este conflicto.",
        "That roll was already made in this conflict.",
    ),
    "PAIN_RANGE": (
        "El dolor debe ser de al menos 1 dado.",
        "Pain must be at least 1 die.",
    ),
    "WRONG_STATE": (
        "Ese paso no corresponde al estado actual del conflicto.",
        "That step doesn't fit the conflict's current state.",
    ),
    "ALREADY_SETTLED": (
        "Este conflicto ya está resuelto.",
        "This conflict is already settled.",
    ),
    "NOT_INVOLVED": (
        "Ese protagonista no participa en este conflicto.",
        "That protagonist is not involved in this conflict.",
    ),
    "CHOICE_REQUIRED": (
        "Falta una elección para resolver el conflicto.",
        "A choice is missing to settle the conflict.",
    ),
    "CHOICE_NOT_ALLOWED": (
        "Esa elección no está permitida aquí.",
        "That choice is not allowed here.",
    ),
    "CONSEQUENCE_NOT_ALLOWED": (
        "Esa consecuencia repetiría el efecto de la reserva dominante, o el conflicto no fue un fracaso.",
        "That consequence would repeat the dominating effect, or the conflict was not a failure.",
    ),
    "BOX_FULL": (
        "Todas las casillas de ese tipo ya están marcadas.",
        "Every box of that kind is already checked.",
    ),
    "NOTHING_TO_CLEAR": (
        "No hay nada que reducir o desmarcar.",
        "There is nothing to reduce or clear.",
    ),
    "WRONG_STATUS": (
        "El estado del protagonista no permite este paso.",
        "The protagonist's status doesn't allow this step.",
    ),
    "RESOLVE_TOO_SOON": (
        "El jugador aún debe poder responder al último ensombrecimiento.",
        "The player must first get a chance to answer the last shading.",
    ),
    "CONFLICTS_OPEN": (
        "Hay que resolver o anular todos los conflictos antes de cerrar la sesión.",
        "Settle or void every conflict before closing the session.",
    ),
    "SESSION_CLOSED": (
        "No hay ninguna sesión abierta.",
        "No session is open.",
    ),
    "CREATION_RULES": (
        "La hoja no cumple las reglas de creación.",
        "The sheet breaks the creation rules.",
    ),
    "BAD_GRANT": (
        "La transformación concede de 1 a 5 monedas, y cada uso gasta las suyas.",
        "A transform grants 1 to 5 coins, and each use spends its own.",
    ),
}


def refuse(code: str, **details: Any) -> NoReturn:
    """Raise the RulesError for ``code``; ``details`` travel with it for API clients."""
    es, en = MESSAGES[code]
    raise RulesError(code, es, en, **details)
