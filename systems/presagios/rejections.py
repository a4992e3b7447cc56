"""The rejection codes of spec §2.3 and §3.8, each with a short message in Spanish and English.

Codes are stable (API clients match on them); the Spanish uses the glossary's UI labels.
"""

from __future__ import annotations

from typing import Any

from systems.errors import RulesError

_MESSAGES: dict[str, tuple[str, str]] = {
    # §3.8
    "NOT_IN_STORY": (
        "El personaje está fuera de la historia y no puede tirar.",
        "The character is out of the story and can't roll.",
    ),
    "TOOL_DICE_RANGE": (
        "Las herramientas añaden entre 0 y 3 dados.",
        "Tools add between 0 and 3 dice.",
    ),
    "NO_OVERCOME": (
        "No quedan puntos de superación.",
        "There are no overcome points left.",
    ),
    "NO_THREAT": (
        "No quedan puntos de amenaza.",
        "There are no threat points left.",
    ),
    "DANGER_AFTER_ROLL": (
        "Solo se puede declarar peligroso antes de tirar los dados.",
        "Danger can only be declared before the dice are rolled.",
    ),
    "ALREADY_FORCED": (
        "El resultado de esta tirada ya se forzó con una cualidad.",
        "This roll's outcome has already been forced with a quality.",
    ),
    "PROTECTION_INACTIVE": (
        "La protección de guión está inactiva.",
        "Script protection is inactive.",
    ),
    "NO_PROTECTION_FOR_SECONDARY": (
        "Los personajes secundarios no tienen protección de guión.",
        "Secondary characters have no script protection.",
    ),
    "RETRY_NOT_FAILED": (
        "Solo se puede volver a intentar un reto fallido.",
        "Only a failed challenge can be retried.",
    ),
    # §2.3 creation
    "CONCEPT_REQUIRED": ("Falta el concepto.", "The concept is missing."),
    "CHAR_RANGE": (
        "Cada característica va de 1 a 5.",
        "Each characteristic must be between 1 and 5.",
    ),
    "CHAR_SUM": (
        "Las tres características deben sumar 9.",
        "The three characteristics must add up to 9.",
    ),
    "TRAIT_RANGE": (
        "Cada rasgo vale de +1 a +3.",
        "Each trait is worth +1 to +3.",
    ),
    "TRAIT_SUM": (
        "Los rasgos de cada característica deben sumar su puntuación.",
        "The traits of each characteristic must add up to its rating.",
    ),
    "HITOS_COUNT": (
        "El personaje principal necesita exactamente 2 hitos.",
        "A main character needs exactly 2 milestones.",
    ),
    "COMPLICATION_COUNT": (
        "El personaje principal necesita exactamente 1 complicación.",
        "A main character needs exactly 1 complication.",
    ),
    "START_OVERCOME": (
        "Un personaje principal empieza con 5 puntos de superación.",
        "A main character starts with 5 overcome points.",
    ),
    # Our own, for the state machines and the table
    "WRONG_STEP": (
        "Ese paso no corresponde ahora.",
        "That step is not allowed now.",
    ),
    "UNKNOWN_CHARACTER": (
        "Ese personaje no está en la partida.",
        "That character is not in this campaign.",
    ),
    "DIFFICULTY_RANGE": (
        "La dificultad es un número de 1 a 20.",
        "The difficulty is a number from 1 to 20.",
    ),
    "ALREADY_DANGEROUS": (
        "Ya se declaró peligroso.",
        "It has already been declared dangerous.",
    ),
    "DAMAGE_NOT_SETTLED": (
        "Primero hay que resolver el daño de la tirada fallida.",
        "The failed roll's damage must be settled first.",
    ),
    "NOT_A_PRINCIPAL": (
        "Solo los personajes principales tienen puntos de superación.",
        "Only main characters have overcome points.",
    ),
    "NO_TRAIT": (
        "Ese rasgo no se propuso para esta tirada.",
        "That trait was not named for this roll.",
    ),
    "NEGATIVE_THREAT": (
        "La amenaza no puede ser negativa.",
        "Threat can't be negative.",
    ),
    "UNBREAKABLE_TIE": (
        "Ningún bando tiene dados: el empate no se rompe tirando; decide el director.",
        "Neither side has dice: rerolling can't break the tie; the GM decides.",
    ),
    "TOO_MANY_TIES": (
        "Demasiados empates seguidos; tirad de nuevo.",
        "Too many ties in a row; roll again.",
    ),
}


def reject(code: str, **details: Any) -> RulesError:
    """The RulesError for ``code`` (raise it: ``raise reject("NO_THREAT")``)."""
    message_es, message_en = _MESSAGES[code]
    return RulesError(code, message_es, message_en, **details)
