"""What a display name may be: a name a person can read, that does not pass for someone else.

A display name is free text, so it is where impersonation happens: a player named "Directora" posting beside
the real GM, or a name that looks like another after right-to-left overrides and invisible characters. The
account's handle (its unique username) is shown on every post; these rules keep the name itself honest.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

# Words a table reads as "the one who runs the game" or as the site speaking, in both languages.
ROLE_WORDS = frozenset(
    {
        "director",
        "directora",
        "máster",
        "master",
        "dj",
        "el dj",
        "gm",
        "game master",
        "narrador",
        "narradora",
        "moderador",
        "moderadora",
        "admin",
        "administrador",
        "administradora",
        "tintero",
        "sistema",
        "system",
    }
)


def comparable_name(name: str) -> str:
    """The form two names are compared in: compatibility-normalized, case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def _hidden_or_steering(char: str) -> bool:
    # Cc: control characters; Cf: format characters (zero-width joiners and spaces, bidi overrides and
    # isolates, the BOM...); Co/Cn: private use and unassigned, which render as nothing or as boxes.
    return unicodedata.category(char) in {"Cc", "Cf", "Co", "Cn"}


def check_display_name_text(name: str) -> None:
    """Refuse invisible, control and direction-changing characters, and the names of roles."""
    if any(_hidden_or_steering(char) for char in name):
        raise ValidationError(
            _("El nombre no puede llevar caracteres invisibles, de control o que cambien la dirección del texto."),
            code="hidden_characters",
        )
    if comparable_name(name) in ROLE_WORDS:
        raise ValidationError(
            _("«%(name)s» es el nombre de un papel de la mesa: elige uno que sea tuyo.") % {"name": name.strip()},
            code="role_word",
        )


def check_display_name_unique(name: str, others: Iterable[str]) -> None:
    """Refuse a name another member of one of the user's campaigns already shows."""
    wanted = comparable_name(name)
    if any(comparable_name(other) == wanted for other in others):
        raise ValidationError(
            _("Alguien de tus partidas ya se llama «%(name)s»: elige otro nombre.") % {"name": name.strip()},
            code="name_taken",
        )
