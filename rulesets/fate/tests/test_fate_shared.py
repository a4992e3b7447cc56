"""The part both FATE rulesets share: the aspect reference grammar, the pickers, free-invocation accounting."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from campaigns.policy import Viewer
from rulesets.fate.aspects import (
    AspectPlace,
    AspectRef,
    AspectRefField,
    SheetAspect,
    aspect_text,
    board_aspect,
    sheet_aspect,
)
from rulesets.fate.free_invocations import (
    BoardFreeUses,
    add_boost,
    give_back_to_board,
    spend_from_board,
)
from rulesets.fate.pickers import aspect_choices, board_choices, character_aspect_choices, label_of, picked
from rulesets.kit.procedures import AddAspect, RemoveAspect, UpdateAspect
from rulesets.kit.table import BoardAspect, CharacterFacts, Table
from systems.errors import RulesError

GM = Viewer(user_id=1, campaign_id=1, campaign_public=False, role="gm")
ANA_PLAYER = Viewer(user_id=2, campaign_id=1, campaign_public=False, role="player")
BRUNO_PLAYER = Viewer(user_id=3, campaign_id=1, campaign_public=False, role="player")

ANA = CharacterFacts(id=10, name="Ana", owner_id=2, is_npc=False, approved=True, sheet={})
BRUNO = CharacterFacts(id=11, name="Bruno", owner_id=3, is_npc=False, approved=True, sheet={})
PENDING = CharacterFacts(id=12, name="Nadie", owner_id=3, is_npc=False, approved=False, sheet={})


def aspects_of(character: CharacterFacts, table: Table) -> list[SheetAspect]:
    if character.id == ANA.id:
        return [
            SheetAspect(AspectRef.character(10, "high_concept"), "Espadachina errante"),
            SheetAspect(
                AspectRef.character(10, "aspect:0"), "Deuda con el gremio", hidden=True, known_by=frozenset({11})
            ),
            SheetAspect(
                AspectRef.consequence(10, "mild"),
                "Brazo magullado",
                free_invocations=1,
                severity="leve",
                holders=("Bruno",),
            ),
        ]
    return [SheetAspect(AspectRef.character(character.id, "trouble"), "Lengua suelta", hidden=True)]


def table() -> Table:
    return Table(
        campaign_id=1,
        scene_id=5,
        language="es",
        settings=None,
        characters={c.id: c for c in (ANA, BRUNO, PENDING)},
        rolls=(),
        board={
            1: BoardAspect(1, "Salón abarrotado", hidden=False, free_invocations=2),
            2: BoardAspect(2, "Trampilla secreta", hidden=True, free_invocations=0),
            3: BoardAspect(3, "Impulso: En guardia", hidden=False, free_invocations=1),
        },
    )


# --- The grammar -----------------------------------------------------------------------------------


def test_each_place_serializes_and_parses_back() -> None:
    refs = [
        AspectRef.scene(7),
        AspectRef.boost(8),
        AspectRef.character(3, "aspect:1"),
        AspectRef.consequence(3, "mild"),
    ]
    assert [str(r) for r in refs] == ["scene:7", "boost:8", "character:3:aspect:1", "consequence:3:mild"]
    assert [AspectRef.parse(str(r)) for r in refs] == refs
    assert AspectRef.character(3, "trouble").character_id == 3
    assert AspectRef.scene(7).character_id is None


@given(
    place=st.sampled_from(list(AspectPlace)),
    ident=st.integers(min_value=1, max_value=10**9),
    key=st.from_regex(r"[a-z_]{1,12}(:[0-9]{1,2})?", fullmatch=True),
)
def test_round_trip_for_any_reference(place: AspectPlace, ident: int, key: str) -> None:
    ref = AspectRef(place, ident, "" if place in (AspectPlace.SCENE, AspectPlace.BOOST) else key)
    assert AspectRef.parse(str(ref)) == ref


@pytest.mark.parametrize(
    "text",
    [
        "",
        "scene",
        "scene:",
        "scene:x",
        "scene:0",
        "scene:07",
        "scene:3:trouble",
        "character:3",
        "s:3",
        "12:trouble",
        "c:3:x",
        "k:3:mild",
        "boost:-1",
        "consequence:3:",
    ],
)
def test_a_malformed_reference_is_refused(text: str) -> None:
    with pytest.raises(RulesError) as caught:
        AspectRef.parse(text)
    assert caught.value.code == "aspect_ref_invalid"


class Params(BaseModel):
    aspect: AspectRefField


def test_as_a_pydantic_field() -> None:
    params = Params.model_validate({"aspect": "character:3:trouble"})
    assert params.aspect == AspectRef.character(3, "trouble")
    assert params.model_dump(mode="json") == {"aspect": "character:3:trouble"}
    with pytest.raises(ValidationError):
        Params.model_validate({"aspect": "Atletismo"})


# --- Finding what a reference names ------------------------------------------------------------------


def test_board_aspect_hides_hidden_ones_from_players() -> None:
    t = table()
    assert board_aspect(t, AspectRef.scene(2), GM).text == "Trampilla secreta"
    with pytest.raises(RulesError) as caught:
        board_aspect(t, AspectRef.scene(2), ANA_PLAYER)
    assert caught.value.code == "aspect_unknown"
    assert board_aspect(t, AspectRef.scene(2), None).text == "Trampilla secreta"  # the rules read it


def test_a_boost_is_named_as_a_boost() -> None:
    t = table()
    assert board_aspect(t, AspectRef.boost(3), ANA_PLAYER).free_invocations == 1
    with pytest.raises(RulesError):
        board_aspect(t, AspectRef.scene(3), ANA_PLAYER)
    with pytest.raises(RulesError):
        board_aspect(t, AspectRef.boost(1), ANA_PLAYER)


def test_sheet_aspect_known_by_owner_discoverer_and_gm_only() -> None:
    t = table()
    hidden = AspectRef.character(10, "aspect:0")
    assert sheet_aspect(t, hidden, aspects_of, ANA_PLAYER).text == "Deuda con el gremio"
    assert sheet_aspect(t, hidden, aspects_of, BRUNO_PLAYER).text == "Deuda con el gremio"  # discovered it
    assert sheet_aspect(t, hidden, aspects_of, GM).text == "Deuda con el gremio"
    with pytest.raises(RulesError):
        sheet_aspect(t, AspectRef.character(11, "trouble"), aspects_of, ANA_PLAYER)
    with pytest.raises(RulesError):
        sheet_aspect(t, AspectRef.character(12, "trouble"), aspects_of, GM)  # not approved
    assert aspect_text(t, AspectRef.consequence(10, "mild"), aspects_of) == "Brazo magullado"
    assert aspect_text(t, AspectRef.scene(1), aspects_of) == "Salón abarrotado"


# --- Pickers ---------------------------------------------------------------------------------------


def test_board_choices_by_text_hidden_only_for_gm() -> None:
    t = table()
    player = board_choices(t, ANA_PLAYER)
    assert [c.value for c in player] == ["scene:1", "boost:3"]
    assert player[0].label == "«Salón abarrotado» · 2 invocaciones gratuitas"
    assert player[1].label == "«Impulso: En guardia» · 1 invocación gratuita"
    gm = board_choices(t, GM)
    assert [c.value for c in gm] == ["scene:1", "scene:2", "boost:3"]
    assert gm[1].label == "«Trampilla secreta» (oculto)"


def test_character_choices_by_name_and_text() -> None:
    t = table()
    labels = [c.label for c in character_aspect_choices(t, BRUNO_PLAYER, aspects_of)]
    assert labels == [
        "Ana: «Espadachina errante»",
        "Ana: «Deuda con el gremio» (oculto)",
        "Ana: «Brazo magullado» (leve) · 1 invocación gratuita de Bruno",
        "Bruno: «Lengua suelta» (oculto)",
    ]
    assert [c.value for c in character_aspect_choices(t, ANA_PLAYER, aspects_of, characters=[11])] == []
    everything = aspect_choices(t, GM, aspects_of)
    assert everything[0].value == "scene:1" and everything[-1].value == "character:11:trouble"


def test_picked_refuses_a_value_not_offered() -> None:
    t = table()
    offered = aspect_choices(t, ANA_PLAYER, aspects_of)
    assert picked("scene:1", offered) == AspectRef.scene(1)
    assert label_of("consequence:10:mild", offered).startswith("Ana: «Brazo magullado»")
    for value in ("scene:2", "character:11:trouble", "Salón abarrotado"):
        with pytest.raises(RulesError) as caught:
            picked(value, offered)
        assert caught.value.code == "aspect_not_offered"


# --- Free invocations ----------------------------------------------------------------------------------


def test_spending_from_the_board() -> None:
    t = table()
    assert spend_from_board(t.board[1]) == UpdateAspect(1, free_invocations=1)
    assert spend_from_board(t.board[3]) == RemoveAspect(3)  # a used boost is gone
    with pytest.raises(RulesError) as caught:
        spend_from_board(t.board[2])
    assert caught.value.code == "no_free_invocation"
    assert give_back_to_board(t.board[1]) == UpdateAspect(1, free_invocations=3)
    assert add_boost(" Desequilibrado ") == AddAspect("Impulso: Desequilibrado", free_invocations=1)


def test_window_accounting_spends_gives_back_and_writes_back() -> None:
    t = table()
    uses = BoardFreeUses().spend(t.board[1]).spend(t.board[1]).spend(t.board[3])
    assert uses.left(t.board[1]) == 0
    with pytest.raises(RulesError):
        uses.spend(t.board[1])
    uses = uses.give_back(1)
    assert uses.left(t.board[1]) == 1
    assert uses.board_changes(t) == [UpdateAspect(1, free_invocations=1), RemoveAspect(3)]
    assert BoardFreeUses.model_validate(uses.model_dump(mode="json")) == uses  # lives in a JSON state


def test_picker_labels_in_english() -> None:
    from django.utils import translation

    with translation.override("en"):
        labels = [c.label for c in aspect_choices(table(), GM, aspects_of)]
    assert labels[0] == "“Salón abarrotado” · 2 free invocations"
    assert labels[1] == "“Trampilla secreta” (hidden)"
    assert "Ana: “Brazo magullado” (leve) · 1 free invocation held by Bruno" in labels
