"""Coin flip's plugin: its sheet and roll bindings, sheet form, roll builder and one two-step procedure (a
wager: the character's player calls and flips, the GM settles; luck moves through the ledger)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from django import forms
from django.utils.translation import gettext_lazy as _
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from characters.models import Character
from rulesets.kit.procedures import (
    Choice,
    LedgerOp,
    NoParams,
    Opening,
    OpeningInput,
    Outcome,
    Procedure,
    RecordLine,
    Step,
    StepInput,
)
from rulesets.kit.refusals import refuse
from rulesets.kit.rolls import JSON, DieFace, Prepared, Resolved, RollSpec
from rulesets.kit.sheets import Outcome as SheetOutcome
from rulesets.kit.sheets import Targets, Who
from rulesets.kit.table import GM, Actor, Table
from rulesets.registry import RulesetPlugin, RulesetTemplates
from systems.dice import DiceSource
from systems.registry import Names, Operation
from tests.coinflip import rules

# --- Sheet binding ---------------------------------------------------------------------------------


class SheetBinding:
    key = "coinflip"

    def initial_campaign_state(self, settings: BaseModel | None) -> JSON:
        return {}

    def new_sheet(self, data: JSON, settings: BaseModel | None, *, is_npc: bool) -> JSON:
        return rules.CoinflipSheet.model_validate(data).model_dump(mode="json")

    def draft_sheet(self, data: JSON, settings: BaseModel | None) -> JSON:
        return self.new_sheet(data, settings, is_npc=False)

    def who_may(self, operation: Operation) -> frozenset[str]:
        return frozenset({Who.GM, Who.OWNER}) if operation.key == "spend_luck" else frozenset({Who.GM})

    def pools_public(self, settings: BaseModel | None) -> bool:
        return True

    def targets(self, operation: Operation, params: BaseModel | None, character_id: int | None) -> Targets:
        if character_id is None:
            raise refuse("character_required", "Elige un personaje.", "Choose a character.")
        return Targets(campaign_state=False, character_ids=(character_id,))

    def apply(
        self,
        operation: Operation,
        params: BaseModel | None,
        settings: BaseModel | None,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
        character_id: int | None,
    ) -> SheetOutcome:
        assert character_id is not None
        sheet = rules.CoinflipSheet.model_validate(sheets[character_id])
        after = operation.apply(sheet, params, settings)
        return SheetOutcome(campaign_state=None, sheets={character_id: after.model_dump(mode="json")})

    def pool_values(self, campaign_state: JSON | None, sheets: Mapping[int, JSON]) -> dict[str, int]:
        return {f"character.{pk}.luck": int(sheet.get("luck", 0)) for pk, sheet in sheets.items()}


class SheetForm(forms.Form):
    luck = forms.IntegerField(label=_("Suerte"), min_value=0, max_value=10, initial=3)

    def __init__(
        self, data: Any = None, *, sheet: dict[str, Any] | None = None, settings: Any = None, is_npc: bool = False
    ) -> None:
        super().__init__(data, initial=dict(sheet or {}))

    def to_sheet(self) -> dict[str, Any]:
        return {"luck": self.cleaned_data["luck"]}


# --- Roll binding and builder ----------------------------------------------------------------------


class RollBinding:
    key = "coinflip"

    def kind_allowed(self, kind: str, *, is_gm: bool) -> bool:
        return kind == "flip"

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        request = rules.FlipRequest.model_validate(data)
        return Prepared(request=request, public=request.model_dump(mode="json"))

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved:
        request = rules.FlipRequest.model_validate(prepared.request.model_dump())
        result = rules.flip(request, dice)
        es = "gana la apuesta" if result["won"] else "pierde la apuesta"
        en = "wins the call" if result["won"] else "loses the call"
        return Resolved(result=result, secret={}, summary_es=es, summary_en=en)

    def faces(self, kind: str, result: JSON) -> list[DieFace]:
        return [DieFace("coin", f, "◉" if f == rules.HEADS else "○") for f in result.get("faces", [])]


class RollBuilderForm(forms.Form):
    call = forms.ChoiceField(
        label=_("Lanzar monedas"), choices=[("", "—"), ("heads", "heads"), ("tails", "tails")], required=False
    )
    character = forms.TypedChoiceField(label=_("Personaje"), coerce=int, required=False, empty_value=None)

    def __init__(
        self,
        data: Any = None,
        *,
        prefix: str = "roll",
        characters: Iterable[Character] = (),
        powers: policy.RollPowers | None = None,
        default_character: int | None = None,
        settings: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data, prefix=prefix, **kwargs)
        character: Any = self.fields["character"]
        character.choices = [(c.pk, c.name) for c in characters]
        character.initial = default_character

    def roll_specs(self) -> list[RollSpec]:
        call = self.cleaned_data.get("call")
        if not call:
            return []
        return [RollSpec(kind="flip", data={"call": call}, character_id=self.cleaned_data.get("character"))]


# --- The wager procedure ---------------------------------------------------------------------------


class WagerState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: Literal["call", "settle", "done"]
    character: int
    character_name: str
    player: Actor
    stake: int
    roll: int | None = None
    won: bool | None = None


class WagerOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character: int
    stake: int = Field(1, ge=1, le=3)


class CallParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    call: rules.Side


def _open(given: OpeningInput[WagerOpen]) -> Outcome[WagerState]:
    character = given.table.character(given.params.character)
    if not policy.may_open_character_procedure(given.viewer, character):
        raise refuse("not_your_character", "Ese personaje no es tuyo.", "That character is not yours.")
    state = WagerState(
        phase="call",
        character=character.id,
        character_name=character.name,
        player=character.actor,
        stake=given.params.stake,
    )
    words = Names(f"{character.name} apuesta {state.stake} de suerte.", f"{character.name} stakes {state.stake} luck.")
    return Outcome(state=state, record=[RecordLine(words)])


def _call(given: StepInput[WagerState, CallParams]) -> Outcome[WagerState]:
    state = given.state
    roll = given.roll(RollSpec(kind="flip", data={"call": given.params.call}, character_id=state.character))
    won = bool(roll.result["won"])
    words = Names(
        f"{state.character_name} canta {given.params.call} y {'acierta' if won else 'falla'}.",
        f"{state.character_name} calls {given.params.call} and {'wins' if won else 'loses'}.",
    )
    next_state = state.model_copy(update={"phase": "settle", "roll": roll.id, "won": won})
    return Outcome(state=next_state, record=[RecordLine(words, rolls=(roll.id,))])


def _settle(given: StepInput[WagerState, NoParams]) -> Outcome[WagerState]:
    state = given.state
    operation = "gain_luck" if state.won else "spend_luck"
    ledger = [LedgerOp(operation, {"amount": state.stake}, state.character, "apuesta", by_rules=True)]
    words = Names(
        f"{state.character_name} {'gana' if state.won else 'pierde'} {state.stake} de suerte.",
        f"{state.character_name} {'gains' if state.won else 'loses'} {state.stake} luck.",
    )
    done = state.model_copy(update={"phase": "done"})
    return Outcome(state=done, closes="settled", ledger=ledger, record=[RecordLine(words)])


def _character_choices(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    mine = [c for c in table.characters.values() if c.approved and (viewer.is_gm or c.owner_id == viewer.user_id)]
    return {"character": [Choice(str(c.id), c.name) for c in mine]}


WAGER: Procedure[WagerState] = Procedure(
    key="wager",
    title="Wager",
    state=WagerState,
    opening=Opening(params=WagerOpen, run=_open, choices=_character_choices),
    steps=(
        Step(
            key="call",
            label="Call and flip",
            params=CallParams,
            who=lambda s: {s.player} if s.phase == "call" else set(),
            run=_call,
            form="coinflip/call_fields.html",
            waiting=lambda s, t: Names(f"la moneda de {s.character_name}", f"{s.character_name}'s coin"),
        ),
        Step(
            key="settle",
            label="Settle",
            params=NoParams,
            who=lambda s: {GM} if s.phase == "settle" else set(),
            run=_settle,
        ),
    ),
)

PLUGIN = RulesetPlugin(
    key="coinflip",
    rules=rules.RULESET,
    sheet=SheetBinding(),
    sheet_form=SheetForm,
    rolls=RollBinding(),
    builder=RollBuilderForm,
    procedures={"wager": WAGER},
    templates=RulesetTemplates(
        sheet="coinflip/sheet.html",
        builder="coinflip/builder.html",
        start="coinflip/start.html",
        procedures={"wager": "coinflip/wager.html"},
    ),
)
