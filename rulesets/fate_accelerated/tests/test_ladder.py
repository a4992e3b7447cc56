"""FAE's ladder words (spec §6.7.3, a proposal from the Spanish Fate Básico: the FAE seed has numbers only)
are one set everywhere: the sheet form and page (catalogue, context "escalera de Fate Acelerado") say what
the record lines say (``systems.fate_accelerated.ladder``), in both languages. They are not SotC's: SotC's
seed glossary has Grande (+4), Bueno (+3), Adecuado (+2), Pobre (-1); FAE's has Enorme (+4), Grande (+3),
Bueno (+2), Malo (-1). A ladder word is always shown with its number."""

from __future__ import annotations

import pytest
from django.utils import translation

from rulesets.fate_accelerated.sheet_form import LADDER, ladder_label
from systems.fate_accelerated.ladder import LADDER as RULES_LADDER
from systems.fate_accelerated.ladder import ladder_label as rules_ladder_label


@pytest.mark.parametrize("language", ["es", "en"])
def test_sheet_words_are_the_records_words(language: str) -> None:
    with translation.override(language):
        for value, names in RULES_LADDER.items():
            assert str(LADDER[value]) == names.get(language)
            assert ladder_label(value) == rules_ladder_label(value, language)


def test_fae_rungs_in_spanish_and_english() -> None:
    with translation.override("es"):
        assert [ladder_label(v) for v in (4, 3, 2, -1)] == ["Enorme (+4)", "Grande (+3)", "Bueno (+2)", "Malo (-1)"]
    with translation.override("en"):
        assert [ladder_label(v) for v in (4, 3, 2, -1)] == ["Great (+4)", "Good (+3)", "Fair (+2)", "Poor (-1)"]
