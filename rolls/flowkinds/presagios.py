"""Presagios flows: the challenge (reto) and the conflict (conflicto) of spec §3.9 and §5.

Both run the pure state machines of ``systems.presagios.challenge`` / ``systems.presagios.conflict``;
this module only stores their state as JSON, rebuilds it at each step, makes the rolls with the
server's dice (the pure machine is fed the stored faces) and turns every point that moves into a
ledger operation of ``characters.bindings.presagios``, applied in the same transaction.

Secrets: the difficulty of a challenge and the threat each roll was judged at live in
``secret_state`` (GMs only). Players read the dice, the result and "Éxito" / "Fallo".
In a conflict the first side to post is sealed: its dice are drawn together with the second side's,
when both are in (A-AMB-22), so nobody, not even a GM, sees one roll before the other exists.

Steps (who): ``roll`` (the character's player; the GM for an NPC), ``judge_traits`` (GM), ``retry``
(the challenged character's player, or the GM for an NPC), ``force`` (the GM with threat, or a player
with their main character's overcome), ``declare_danger`` / ``finalize`` / ``cancel`` / ``break_tie`` /
``threat_gain`` (GM), ``damage`` (the player choosing script protection; the GM for a monster).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from django.core.exceptions import PermissionDenied
from django.utils.text import slugify
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, field_validator

from campaigns import policy
from campaigns.models import Voice
from characters.bindings import binding_for
from characters.models import CampaignRulesState, Character, CharacterStatus
from rolls.bindings.presagios import characteristic_label, load_sheet, outcome_word, roll_words, settings_of
from rolls.flows import JSON, FollowUpSpec, LedgerOp, StepContext, StepResult, parse_params
from rolls.models import Flow, Roll
from rolls.services import RollSpec, make_roll
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.presagios import challenge as ch
from systems.presagios import conflict as cf
from systems.presagios.damage import DamageOutcome, challenge_damage, conflict_damage
from systems.presagios.dice import CoreRoll
from systems.presagios.qualities import Force, QualityActivation
from systems.presagios.rejections import reject
from systems.presagios.settings import PresagiosSettings, ProtectionCheckTime
from systems.presagios.sheet import CharKey, Kind, PresagiosSheet, QualityKind
from systems.presagios.table import Table
from systems.presagios.threat import protection_active
from systems.presagios.traits import NamedTrait, chosen_trait

GM = "gm"
Side = Literal["a", "b"]
MAX_AUTO_REROLLS = 50  # ties end with probability 1; this only bounds a broken dice source

STEP_LABELS: dict[str, tuple[str, str]] = {
    "roll": ("Tirada", "Roll"),
    "judge_traits": ("Aceptar o rechazar rasgos", "Accept or reject traits"),
    "retry": ("Volver a intentar", "Retry"),
    "force": ("Activar una cualidad", "Activate a quality"),
    "declare_danger": ("Declarar peligroso", "Declare dangerous"),
    "finalize": ("Cerrar el resultado", "Finalize the outcome"),
    "damage": ("Daño: protección de guión o aceptarlo", "Damage: script protection or accept it"),
    "threat_gain": ("Confirmar +1 amenaza", "Confirm +1 threat"),
    "break_tie": ("Decidir el empate", "Decide the tie"),
    "cancel": ("Cancelar", "Cancel"),
}
QUALITY_WORDS = {
    QualityKind.CONCEPT: ("el concepto", "the concept"),
    QualityKind.HITO: ("un hito", "a milestone"),
    QualityKind.DESCRIPTOR: ("un descriptor", "a descriptor"),
    QualityKind.COMPLICATION: ("la complicación", "the complication"),
    QualityKind.WEAKNESS: ("una debilidad", "a weakness"),
}
DAMAGE_WORDS = {"físico": "physical", "social": "social", "mental": "mental"}


# --- Params ---------------------------------------------------------------------------------------


class _Params(BaseModel):
    model_config = ConfigDict(extra="ignore")

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if value == "" else value


class ChallengeStart(_Params):
    character_id: int
    characteristic: CharKey
    difficulty: int  # sealed: only the flow's secret_state keeps it
    tool_dice: int = 0
    dangerous: bool = False
    challenge: str = Field("", max_length=100)  # the same name for the same challenge: a failure locks it


class ConflictStart(_Params):
    a_character_id: int
    a_characteristic: CharKey
    a_tool_dice: int = 0
    b_character_id: int
    b_characteristic: CharKey
    b_tool_dice: int = 0
    dangerous: bool = False
    conflict: str = Field("", max_length=100)


class RollStep(_Params):
    side: Side | None = None
    trait: str | None = None
    traits: list[str] = Field(default_factory=list, max_length=10)

    def names(self) -> tuple[str, ...]:
        names = [*self.traits, *([self.trait] if self.trait else [])]
        return tuple(dict.fromkeys(n.strip() for n in names if n and n.strip()))


class JudgeStep(_Params):
    side: Side | None = None
    accepted: list[str] = Field(default_factory=list, max_length=10)

    @field_validator("accepted", mode="before")
    @classmethod
    def _one(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else (value or [])


class ForceStep(_Params):
    force: Force
    side: Side | None = None
    quality_owner: int
    quality: QualityKind
    quality_text: str = Field("", max_length=200)
    activator: int | None = None  # the activating main character; None: the GM pays threat


class DamageStep(_Params):
    protect: bool = False


class FinalizeStep(_Params):
    characteristic: CharKey | None = None  # conflicts: the GM may send the damage elsewhere (A-AMB-16)


class ThreatGainStep(_Params):
    confirm: bool = False


class BreakTieStep(_Params):
    winner: Side


# --- JSON of the pure values ----------------------------------------------------------------------


def roll_json(roll: CoreRoll | None) -> JSON | None:
    return None if roll is None else roll.public()


def roll_from(data: JSON | None) -> CoreRoll | None:
    if data is None:
        return None
    return CoreRoll(
        tuple(int(d) for d in data["dice"]),
        int(data["dice_result"]),
        int(data["omens"]),
        int(data["trait_bonus"]),
        int(data["total"]),
    )


def trait_json(trait: NamedTrait) -> JSON:
    return {"name": trait.name, "value": trait.value, "supernatural": trait.supernatural}


def trait_from(data: JSON) -> NamedTrait:
    return NamedTrait(str(data["name"]), int(data["value"]), bool(data.get("supernatural", False)))


def damage_json(outcome: DamageOutcome) -> JSON:
    return {
        "character_id": outcome.character_id,
        "characteristic": outcome.characteristic,
        "amount": outcome.amount,
        "protected": outcome.protected,
        "mandatory": outcome.mandatory,
        "out_of_story": outcome.out_of_story,
        "threat_gain_proposed": outcome.threat_gain_proposed,
    }


def damage_from(data: JSON) -> DamageOutcome:
    return DamageOutcome(**data)


def _force_from(value: str | None) -> Force | None:
    return None if value is None else Force(value)


# --- Shared helpers -------------------------------------------------------------------------------


GM_STEPS = frozenset({"judge_traits", "declare_danger", "finalize", "cancel", "break_tie", "threat_gain"})


def _actors_from_state(flow: Flow, step: str) -> frozenset[str | int]:
    """Who may take ``step``. The GM's steps are always the GM's and a character's own steps always its
    player's, so a step out of order gets the rules' own refusal (``DANGER_AFTER_ROLL``, ``RETRY_NOT_FAILED``,
    ``ALREADY_FORCED``...); the rest is stored with the state at every step (``steps``)."""
    state = flow.state or {}
    if step in GM_STEPS:
        return frozenset({GM})
    rollers = [state["roller"]] if "roller" in state else [s["roller"] for s in state.get("sides", {}).values()]
    if step == "force":
        rollers = [{"gm": True, "users": state.get("players", [])}]
    elif step not in ("roll", "retry"):
        rollers = [(state.get("steps") or {}).get(step) or {}]
    who: set[str | int] = {int(u) for r in rollers for u in r.get("users", [])}
    if any(r.get("gm") for r in rollers):
        who.add(GM)
    return frozenset(who)


def _tie_unbreakable(machine: cf.ConflictFlow, table: Table) -> bool:
    """Neither side has dice: every reroll ties again, so the GM decides (not in the spec)."""
    return all(
        max(table.character(p.character_id).current_of(p.characteristic), 0) + p.tool_dice == 0
        for p in (machine.a, machine.b)
    )


def _actors_json(gm: bool = False, users: Iterable[int] = ()) -> JSON:
    return {"gm": gm, "users": sorted(set(users))}


def _waiting(step: str, actors: JSON) -> JSON:
    if not step:
        return {}
    es, en = STEP_LABELS[step]
    waiting: JSON = {"step": step, "label_es": es, "label_en": en}
    if actors.get("gm"):
        waiting["who"] = GM
    if actors.get("users"):
        waiting["users"] = list(actors["users"])
    return waiting


def _load_table(ctx: StepContext, character_ids: Iterable[int]) -> Table:
    """Threat and the named characters, locked in the ledger's order (rules state, then ids ascending)."""
    campaign = ctx.flow.campaign
    row = CampaignRulesState.objects.select_for_update().filter(campaign=campaign).first()
    state = row.state if row is not None else binding_for(campaign.ruleset).initial_campaign_state(ctx.settings)
    ids = sorted(set(character_ids))
    rows = list(Character.objects.select_for_update().filter(pk__in=ids, campaign=campaign).order_by("pk"))
    if len(rows) != len(ids):
        raise reject("UNKNOWN_CHARACTER")
    return Table(int(state.get("threat", 0)), {str(c.pk): load_sheet(c.sheet, c.name) for c in rows})


def _character(ctx: StepContext, character_id: int | str | None) -> Character:
    try:
        character = ctx.characters.get(int(character_id)) if character_id is not None else None
    except (TypeError, ValueError):
        character = None
    if character is None:
        raise reject("UNKNOWN_CHARACTER", character_id=character_id)
    if character.status != CharacterStatus.APPROVED:
        raise RulesError(
            "character_not_approved",
            f"{character.name} no está aprobado.",
            f"{character.name} is not approved.",
        )
    return character


def _kind(character: Character) -> Kind:
    return Kind(character.sheet.get("kind", Kind.PRINCIPAL.value))


def _roller_actors(character: Character) -> JSON:
    """A main character's player rolls for it; the GMs for an NPC."""
    if character.is_npc or character.owner_id is None:
        return _actors_json(gm=True)
    return _actors_json(users=[character.owner_id])


def _principal_players(ctx: StepContext) -> list[int]:
    return sorted(
        {
            c.owner_id
            for c in ctx.characters.values()
            if not c.is_npc and c.owner_id and c.status == CharacterStatus.APPROVED
        }
    )


def _traits_of(character: Character) -> list[JSON]:
    """The sheet's traits, for the roll form (a trait's value never changes, A-AMB-07)."""
    return [
        {"name": t["name"], "value": t["value"], "supernatural": bool(t.get("supernatural"))}
        for t in (character.sheet or {}).get("traits", [])
        if isinstance(t, dict) and t.get("name")
    ]


def _cast(ctx: StepContext) -> list[JSON]:
    """The approved characters whose qualities may be activated in this flow."""
    return [
        {"id": c.pk, "name": c.name}
        for c in sorted(ctx.characters.values(), key=lambda c: c.pk)
        if c.status == CharacterStatus.APPROVED
    ]


def _require_gm(ctx: StepContext) -> None:
    if not policy.may_run_gm_procedure(ctx.viewer):
        raise PermissionDenied(_("Solo el director abre retos y conflictos."))


def _make_roll(ctx: StepContext, character: Character, characteristic: str, tool_dice: int, label: str) -> Roll:
    """The server rolls the character's pool (no trait: the GM judges named traits afterwards)."""
    spec = RollSpec(
        kind="roll",
        data={"characteristic": characteristic, "tool_dice": tool_dice},
        character_id=character.pk,
        label=label[:120],
    )
    # A main character's dice are its player's; an NPC's are the GMs' (the one acting, else the opener).
    if character.is_npc or character.owner is None:
        roller = ctx.actor if ctx.viewer.is_gm else ctx.flow.opened_by
    else:
        roller = character.owner
    if roller.pk == ctx.actor.pk and policy.may_post_with_voice(ctx.viewer, Voice.CHARACTER, character):
        return ctx.roll_maker(spec)
    # The other side of a conflict, rolled now together with the side that posts.
    roll = make_roll(actor=roller, scene=ctx.flow.scene, spec=spec, position=len(ctx.rolls), dice=ctx.dice)
    Roll.objects.filter(pk=roll.pk).update(flow=ctx.flow)
    return roll


def _faces(roll: Roll) -> ScriptedDice:
    return ScriptedDice(int(d) for d in roll.result.get("dice", []))


def _threat_public(ctx: StepContext) -> bool:
    return binding_for("presagios").pools_public(ctx.settings)


def _omen_op(omens: int, threat_at_roll: int) -> LedgerOp:
    return LedgerOp("omen_check", {"omens": omens, "threat_at_roll": threat_at_roll}, reason="Presagios", by_rules=True)


def _trait_payment(sheet: PresagiosSheet, character_id: str) -> LedgerOp:
    """(S) a supernatural trait costs its owner 1 overcome point; for an NPC, the GM pays 1 threat."""
    if sheet.kind is Kind.PRINCIPAL:
        params: JSON = {"character_id": character_id, "use": "supernatural_trait"}
        return LedgerOp("spend_overcome", params, int(character_id), "Rasgo sobrenatural", by_rules=True)
    params = {"use": "supernatural_trait", "for_character_id": character_id}
    return LedgerOp("spend_threat", params, int(character_id), "Rasgo sobrenatural", by_rules=True)


def _chooser(
    table: Table, target_id: str, key: CharKey, amount: int, rules: PresagiosSettings, at: int | None
) -> str | None:
    sheet = table.character(target_id)
    threat = table.threat if at is None else at
    if sheet.kind is Kind.PRINCIPAL:
        can = protection_active(threat, rules) and sheet.overcome >= 1
        mandatory = can and sheet.current_of(key) - amount < 0
        return "owner" if can and not mandatory else None
    if sheet.kind is Kind.MONSTRUO:
        can = table.threat >= 1 and (not rules.monster_protection_cutoff or protection_active(threat, rules))
        return GM if can else None
    return None


def _damage_words(outcome: DamageOutcome, name: str, rules: PresagiosSettings, settings: Any) -> tuple[str, str]:
    label_es = characteristic_label(outcome.characteristic, settings, "es")
    label_en = characteristic_label(outcome.characteristic, settings, "en")
    kind = rules.characteristic_damage_kind[("c1", "c2", "c3").index(outcome.characteristic)].value
    if outcome.protected:
        how = "obligatoria" if outcome.mandatory else "elegida"
        how_en = "mandatory" if outcome.mandatory else "chosen"
        return (
            f"Protección de guión ({how}): {name} ignora {outcome.amount} de daño",
            f"Script protection ({how_en}): {name} ignores {outcome.amount} damage",
        )
    es = f"Daño {kind} {outcome.amount} en {label_es}: {name}"
    en = f"{DAMAGE_WORDS.get(kind, kind).capitalize()} damage {outcome.amount} to {label_en}: {name}"
    if outcome.out_of_story:
        es += " queda fuera de la historia"
        en += " is out of the story"
    return es, en


def _quality_check(sheet: PresagiosSheet, quality: QualityKind, text: str) -> None:
    texts = {
        QualityKind.CONCEPT: (sheet.concept,) if sheet.concept.strip() else (),
        QualityKind.HITO: sheet.hitos,
        QualityKind.DESCRIPTOR: sheet.descriptors,
        QualityKind.COMPLICATION: sheet.complications,
        QualityKind.WEAKNESS: sheet.weaknesses,
    }[quality]
    if not texts or (text.strip() and text.strip() not in texts):
        raise RulesError(
            "NO_QUALITY",
            "Ese personaje no tiene esa cualidad.",
            "That character has no such quality.",
            quality=str(quality),
        )


def _activator(ctx: StepContext, wanted: int | None) -> Character | None:
    """Who pays for a quality: the GM (threat) or the actor's own main character (overcome)."""
    if wanted is None:
        if ctx.viewer.is_gm:
            return None
        mine = [
            c
            for c in ctx.characters.values()
            if not c.is_npc and c.owner_id == ctx.actor.pk and c.status == CharacterStatus.APPROVED
        ]
        if len(mine) != 1:
            raise RulesError(
                "activator_required",
                "Elige con qué personaje pagas el punto.",
                "Choose which character pays the point.",
            )
        return mine[0]
    character = _character(ctx, wanted)
    if character.is_npc or not policy.controls_character(ctx.viewer, character):
        raise PermissionDenied(_("Solo pagas con los puntos de tu propio personaje."))
    return character


def _payer_words(activator: Character | None) -> tuple[str, str]:
    if activator is None:
        return "El director (1 punto de amenaza)", "The GM (1 threat point)"
    return f"{activator.name} (1 punto de superación)", f"{activator.name} (1 overcome point)"


# --- The challenge --------------------------------------------------------------------------------


def _threat_gain_ledger(meta: JSON, params: JSON, stage: str) -> list[LedgerOp]:
    """The GM confirms (or declines) +1 threat when a character left the story; challenges and conflicts
    ask the same question. Clears the pending question in ``meta``."""
    if not meta.get("threat_gain"):
        raise reject("WRONG_STEP", stage=stage)
    p: ThreatGainStep = parse_params(ThreatGainStep, params)
    ledger = []
    if p.confirm:
        ledger.append(
            LedgerOp(
                "confirm_threat_gain", {"reason": "character_out"}, reason=meta["threat_gain"]["name"], by_rules=True
            )
        )
    meta["threat_gain"] = None
    meta["threat_gain_confirmed"] = p.confirm
    return ledger


def challenge_to_json(flow: ch.ChallengeFlow) -> tuple[JSON, JSON]:
    """(public, secret): the difficulty and the threat each roll was judged at are the GMs'."""
    attempts = [
        {
            "roll": roll_json(a.roll),
            "automatic": a.roll is None,
            "natural_success": a.natural_success,
            "forced": None if a.forced is None else str(a.forced),
            "success": a.success,
            "outcome": None if a.success is None else ("success" if a.success else "failure"),
            "damage_settled": a.damage_settled,
        }
        for a in flow.attempts
    ]
    public = {
        "challenge_id": flow.challenge_id,
        "character_id": flow.character_id,
        "characteristic": flow.characteristic,
        "tool_dice": flow.tool_dice,
        "stage": str(flow.stage),
        "dangerous": flow.dangerous,
        "danger_paid": flow.danger_paid,
        "retry_paid": flow.retry_paid,
        "attempts": attempts,
        "proposed_traits": [trait_json(t) for t in flow.proposed_traits],
        "damage": [damage_json(d) for d in flow.damage],
    }
    secret = {
        "difficulty": flow.difficulty,
        "threat_at_roll": [a.threat_at_roll for a in flow.attempts],
        "omen_hit": [a.omen_hit for a in flow.attempts],
    }
    return public, secret


def challenge_from_json(public: JSON, secret: JSON) -> ch.ChallengeFlow:
    threats = list(secret.get("threat_at_roll", []))
    hits = list(secret.get("omen_hit", []))
    attempts = tuple(
        ch.Attempt(
            roll=roll_from(a["roll"]),
            threat_at_roll=int(threats[i]),
            natural_success=a["natural_success"],
            omen_hit=bool(hits[i]),
            forced=_force_from(a["forced"]),
            damage_settled=bool(a["damage_settled"]),
        )
        for i, a in enumerate(public.get("attempts", []))
    )
    return ch.ChallengeFlow(
        challenge_id=public["challenge_id"],
        character_id=public["character_id"],
        characteristic=public["characteristic"],
        difficulty=int(secret["difficulty"]),
        tool_dice=int(public["tool_dice"]),
        stage=ch.ChallengeStage(public["stage"]),
        dangerous=bool(public["dangerous"]),
        danger_paid=bool(public["danger_paid"]),
        retry_paid=bool(public["retry_paid"]),
        attempts=attempts,
        proposed_traits=tuple(trait_from(t) for t in public.get("proposed_traits", [])),
        damage=tuple(damage_from(d) for d in public.get("damage", [])),
    )


class ChallengeKind:
    """Reto: the GM opens it with a sealed difficulty; the player rolls; Éxito or Fallo; retries, forced
    outcomes, the GM's finalize, damage with script protection, the +1 threat of a character out."""

    key = "challenge"

    # -- reading the stored state --

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        return _actors_from_state(flow, step)

    def _machine(self, flow: Flow) -> ch.ChallengeFlow:
        return challenge_from_json(flow.state["machine"], flow.secret_state)

    # -- opening --

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        _require_gm(ctx)
        p: ChallengeStart = parse_params(ChallengeStart, params)
        character = _character(ctx, p.character_id)
        name = p.challenge.strip()
        challenge_id = f"reto:{slugify(name)[:100]}" if name and slugify(name) else f"flow:{ctx.flow.pk}"
        table = _load_table(ctx, [character.pk])
        machine = ch.open_challenge(challenge_id, str(character.pk), p.characteristic, p.difficulty, p.tool_dice)
        ledger: list[LedgerOp] = []
        if p.dangerous:
            machine, table = ch.declare_dangerous(machine, table, settings_of(ctx.settings))
            ledger.append(LedgerOp("declare_danger", {"against_monster": False}, reason=name, by_rules=True))
        machine = ch.confirm_setup(machine)
        meta = {
            "kind": self.key,
            "name": name,
            "character_name": character.name,
            "character_kind": str(_kind(character)),
            "roller": _roller_actors(character),
            "characteristic_label": characteristic_label(p.characteristic, ctx.settings, "es"),
            "tool_dice": p.tool_dice,
            "traits": _traits_of(character),
            "cast": _cast(ctx),
            "roll_ids": [],
            "threat_gain": None,
        }
        return self._result(ctx, meta, machine, table, ledger=ledger)

    # -- steps --

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        meta = {k: v for k, v in ctx.flow.state.items() if k not in ("machine", "steps", "players")}
        machine = self._machine(ctx.flow)
        rules = settings_of(ctx.settings)
        character = _character(ctx, machine.character_id)
        if step == "threat_gain":
            return self._threat_gain(ctx, meta, machine, params)
        if meta.get("threat_gain"):
            raise reject("WRONG_STEP", stage="threat_gain")
        handler = {
            "roll": self._roll,
            "judge_traits": self._judge,
            "retry": self._retry,
            "force": self._force,
            "declare_danger": self._declare,
            "finalize": self._finalize,
            "damage": self._damage,
            "cancel": self._cancel,
        }.get(step)
        if handler is None:
            raise reject("WRONG_STEP", stage=str(machine.stage))
        return handler(ctx, meta, machine, character, rules, params)

    def _roll(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        character: Character,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        p: RollStep = parse_params(RollStep, params)
        table = _load_table(ctx, [character.pk])
        sheet = table.character(machine.character_id)
        traits = tuple(NamedTrait.from_sheet(sheet, n) for n in p.names())
        if machine.stage is not ch.ChallengeStage.AWAITING_ROLL:
            raise reject("WRONG_STEP", stage=str(machine.stage))
        locked = machine.challenge_id in sheet.challenge_locks and not machine.retry_paid
        roll = None
        if locked:
            dice = ScriptedDice([])  # (S) an automatic failure: no dice, no omen check
        else:
            label = meta.get("name") or "Reto"
            roll = _make_roll(ctx, character, machine.characteristic, machine.tool_dice, label)
            dice = _faces(roll)
        before = machine
        machine, table = ch.roll_challenge(machine, table, dice, rules, traits)
        meta["roll_ids"] = [*meta["roll_ids"], roll.pk if roll else None]
        ledger: list[LedgerOp] = []
        follow_ups: list[FollowUpSpec] = []
        if locked:
            follow_ups = []
            ledger.extend(self._closing_ops(before, machine, table, rules))
        elif machine.stage is ch.ChallengeStage.RESPONSE:
            ledger_more, fu = self._published(ctx, meta, machine, character, None)
            ledger.extend(ledger_more)
            follow_ups.extend(fu)
        return self._after(ctx, meta, machine, table, rules, ledger, follow_ups)

    def _published(
        self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, character: Character, trait: NamedTrait | None
    ) -> tuple[list[LedgerOp], list[FollowUpSpec]]:
        """The outcome is out: the omen check through the ledger, the outcome in words under the roll."""
        attempt = machine.last
        ledger = [_omen_op(attempt.omens, attempt.threat_at_roll)] if attempt.omen_hit else []
        roll_id = meta["roll_ids"][-1]
        if roll_id is None or attempt.roll is None:
            return ledger, []
        outcome = "success" if attempt.natural_success else "failure"
        public_roll = attempt.roll.public()
        name = trait.name if trait else ""
        es = f"{outcome_word(outcome, 'es')} · {roll_words(public_roll, 'es', name)}"
        en = f"{outcome_word(outcome, 'en')} · {roll_words(public_roll, 'en', name)}"
        if attempt.omens:
            es += " · algo inquietante ocurre"
            en += " · something unsettling happens"
        if attempt.omen_hit and _threat_public(ctx):
            es += " · la amenaza sube 1"
            en += " · threat rises by 1"
        data = {"outcome": outcome, "trait": name}
        result = {**public_roll, "outcome": outcome, "success": attempt.natural_success}
        return ledger, [FollowUpSpec(roll_id, "outcome", es, en, data, result, character.pk)]

    def _judge(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        character: Character,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        p: JudgeStep = parse_params(JudgeStep, params)
        table = _load_table(ctx, [character.pk])
        chosen = (
            chosen_trait(machine.proposed_traits, p.accepted) if machine.stage is ch.ChallengeStage.ROLLED else None
        )
        machine, table = ch.judge_traits(machine, table, p.accepted, rules)
        ledger = (
            [_trait_payment(table.character(machine.character_id), machine.character_id)]
            if chosen and chosen.supernatural
            else []
        )
        more, follow_ups = self._published(ctx, meta, machine, character, chosen)
        return self._after(ctx, meta, machine, table, rules, [*ledger, *more], follow_ups)

    def _retry(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        character: Character,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        table = _load_table(ctx, [character.pk])
        machine, table = ch.pay_retry(machine, table, rules)
        op = LedgerOp(
            "pay_retry",
            {"character_id": machine.character_id, "challenge_id": machine.challenge_id},
            character.pk,
            "Volver a intentar",
            by_rules=True,
        )
        follow_ups = []
        last = meta["roll_ids"][-1] if meta["roll_ids"] else None
        if last is not None:
            payer = (
                (f"{character.name} paga 1 punto de superación", f"{character.name} pays 1 overcome point")
                if _kind(character) is Kind.PRINCIPAL
                else ("El director paga 1 punto de amenaza", "The GM pays 1 threat point")
            )
            follow_ups.append(
                FollowUpSpec(
                    last, "retry", f"{payer[0]} para volver a intentarlo", f"{payer[1]} to retry", {}, {}, character.pk
                )
            )
        return self._after(ctx, meta, machine, table, rules, [op], follow_ups)

    def _force(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        character: Character,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        p: ForceStep = parse_params(ForceStep, params)
        activator = _activator(ctx, p.activator)
        owner = _character(ctx, p.quality_owner)
        ids = [character.pk, owner.pk, *([activator.pk] if activator else [])]
        table = _load_table(ctx, ids)
        _quality_check(table.character(str(owner.pk)), p.quality, p.quality_text)
        # Against its owner when it makes the owner's own roll fail (then a main character gets the point).
        against = str(owner.pk) == machine.character_id and p.force is Force.FAILURE
        activation = QualityActivation(str(owner.pk), p.quality, against, str(activator.pk) if activator else None)
        machine, table = ch.force_outcome(machine, table, p.force, activation)
        op = LedgerOp(
            "force_outcome",
            {
                "activator_id": str(activator.pk) if activator else None,
                "owner_id": str(owner.pk),
                "quality": str(p.quality),
                "force": str(p.force),
                "against_owner": against,
            },
            activator.pk if activator else None,
            "Cualidad",
            by_rules=True,
        )
        follow_ups = []
        roll_id = meta["roll_ids"][-1] if meta["roll_ids"] else None
        if roll_id is not None:
            payer_es, payer_en = _payer_words(activator)
            q_es, q_en = QUALITY_WORDS[p.quality]
            outcome = "success" if p.force is Force.SUCCESS else "failure"
            follow_ups.append(
                FollowUpSpec(
                    roll_id,
                    "force",
                    f"{payer_es} activa {q_es} de {owner.name}: {outcome_word(outcome, 'es')} forzado",
                    f"{payer_en} activates {q_en} of {owner.name}: forced {outcome_word(outcome, 'en').lower()}",
                    {"force": str(p.force), "quality": str(p.quality), "owner_id": owner.pk, "against_owner": against},
                    {"outcome": outcome, "forced": True},
                    owner.pk,
                )
            )
        return self._after(ctx, meta, machine, table, rules, [op], follow_ups)

    def _declare(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        character: Character,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        table = _load_table(ctx, [character.pk])
        machine, table = ch.declare_dangerous(machine, table, rules)
        op = LedgerOp("declare_danger", {"against_monster": False}, reason=meta.get("name", ""), by_rules=True)
        return self._after(ctx, meta, machine, table, rules, [op], [])

    def _closing_ops(
        self, before: ch.ChallengeFlow, machine: ch.ChallengeFlow, table: Table, rules: PresagiosSettings
    ) -> list[LedgerOp]:
        """A final failure locks the challenge for this character (S)."""
        if (
            machine.stage in (ch.ChallengeStage.CLOSED, ch.ChallengeStage.DAMAGE_PENDING)
            and machine.last.success is False
        ):
            params = {"character_id": machine.character_id, "challenge_id": machine.challenge_id}
            return [LedgerOp("lock_challenge", params, int(machine.character_id), "Reto fallido", by_rules=True)]
        return []

    def _finalize(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        character: Character,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        table = _load_table(ctx, [character.pk])
        before = machine
        machine, table = ch.finalize(machine, table)
        ledger = self._closing_ops(before, machine, table, rules)
        follow_ups = []
        roll_id = meta["roll_ids"][-1] if meta["roll_ids"] else None
        if roll_id is not None:
            outcome = "success" if machine.last.success else "failure"
            follow_ups.append(
                FollowUpSpec(
                    roll_id,
                    "settle",
                    f"Resultado final: {outcome_word(outcome, 'es')}",
                    f"Final outcome: {outcome_word(outcome, 'en')}",
                    {"outcome": outcome},
                    {"outcome": outcome, "final": True},
                    character.pk,
                )
            )
        return self._after(ctx, meta, machine, table, rules, ledger, follow_ups)

    def _damage(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        character: Character,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        p: DamageStep = parse_params(DamageStep, params)
        table = _load_table(ctx, [character.pk])
        ledger, follow_ups, machine, table = self._settle(ctx, meta, machine, table, rules, character, p.protect)
        return self._after(ctx, meta, machine, table, rules, ledger, follow_ups)

    def _settle(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        table: Table,
        rules: PresagiosSettings,
        character: Character,
        protect: bool,
    ) -> tuple[list[LedgerOp], list[FollowUpSpec], ch.ChallengeFlow, Table]:
        attempt = machine.last
        at_roll = rules.protection_check_time is ProtectionCheckTime.AT_ROLL
        machine, table = ch.settle_damage(machine, table, rules, protect=protect)
        outcome = machine.damage[-1]
        params = {
            "character_id": machine.character_id,
            "characteristic": machine.characteristic,
            "amount": challenge_damage(attempt.omens),
            "protect": protect,
            "protection_threat": attempt.threat_at_roll if at_roll else None,
        }
        ledger = [LedgerOp("apply_damage", params, character.pk, "Reto peligroso", by_rules=True)]
        if outcome.threat_gain_proposed:
            meta["threat_gain"] = {"character_id": character.pk, "name": character.name}
        follow_ups = []
        roll_id = meta["roll_ids"][-1] if meta["roll_ids"] else None
        if roll_id is not None:
            es, en = _damage_words(outcome, character.name, rules, ctx.settings)
            follow_ups.append(FollowUpSpec(roll_id, "damage", es, en, damage_json(outcome), {}, character.pk))
        return ledger, follow_ups, machine, table

    def _cancel(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        character: Character,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        table = _load_table(ctx, [character.pk])
        refund = machine.danger_paid and not machine.attempts
        machine, table = ch.cancel(machine, table)
        ledger = (
            [LedgerOp("refund_danger", {"flow_id": ctx.flow.pk}, reason="Reto cancelado", by_rules=True)]
            if refund
            else []
        )
        return self._result(ctx, meta, machine, table, ledger=ledger, cancelled=True)

    def _threat_gain(self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, params: JSON) -> StepResult:
        ledger = _threat_gain_ledger(meta, params, str(machine.stage))
        table = _load_table(ctx, [])
        return self._result(ctx, meta, machine, table, ledger=ledger)

    # -- after every step: automatic damage, who acts next --

    def _after(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        table: Table,
        rules: PresagiosSettings,
        ledger: list[LedgerOp],
        follow_ups: list[FollowUpSpec],
    ) -> StepResult:
        if machine.stage is ch.ChallengeStage.DAMAGE_PENDING:
            character = _character(ctx, machine.character_id)
            at = machine.last.threat_at_roll if rules.protection_check_time is ProtectionCheckTime.AT_ROLL else None
            amount = challenge_damage(machine.last.omens)
            if _chooser(table, machine.character_id, machine.characteristic, amount, rules, at) is None:
                more, fu, machine, table = self._settle(ctx, meta, machine, table, rules, character, False)
                ledger = [*ledger, *more]
                follow_ups = [*follow_ups, *fu]
        return self._result(ctx, meta, machine, table, ledger=ledger, follow_ups=follow_ups)

    def _steps(self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, table: Table) -> tuple[str, JSON]:
        """(the step it waits for, who may take each step now)."""
        rules = settings_of(ctx.settings)
        roller = meta["roller"]
        gm = _actors_json(gm=True)
        steps: JSON = {}
        main = ""
        if meta.get("threat_gain"):
            return "threat_gain", {"threat_gain": gm}
        stage = machine.stage
        if stage is ch.ChallengeStage.AWAITING_ROLL:
            main = "roll"
            steps["roll"] = roller
            sheet = table.characters.get(machine.character_id)
            if sheet is not None and machine.challenge_id in sheet.challenge_locks and not machine.retry_paid:
                steps["retry"] = roller
            if not machine.dangerous and not machine.attempts:
                steps["declare_danger"] = gm
            steps["cancel"] = gm
        elif stage is ch.ChallengeStage.ROLLED:
            main = "judge_traits"
            steps["judge_traits"] = gm
        elif stage is ch.ChallengeStage.RESPONSE:
            main = "finalize"
            steps["finalize"] = gm
            attempt = machine.last
            if attempt.forced is None:
                steps["force"] = _actors_json(gm=True, users=_principal_players(ctx))
            early = machine.dangerous and not rules.retry_discards_pending_damage and not attempt.damage_settled
            if attempt.success is False and attempt.forced is None:
                # the alternative rule (A-AMB-14): a failed roll's damage is settled before any retry
                steps["damage" if early else "retry"] = (
                    self._damage_actors(meta, machine, table, rules) if early else roller
                )
        elif stage is ch.ChallengeStage.DAMAGE_PENDING:
            main = "damage"
            steps["damage"] = self._damage_actors(meta, machine, table, rules)
        return main, steps

    def _damage_actors(self, meta: JSON, machine: ch.ChallengeFlow, table: Table, rules: PresagiosSettings) -> JSON:
        at = machine.last.threat_at_roll if rules.protection_check_time is ProtectionCheckTime.AT_ROLL else None
        amount = challenge_damage(machine.last.omens)
        chooser = _chooser(table, machine.character_id, machine.characteristic, amount, rules, at)
        return meta["roller"] if chooser == "owner" else _actors_json(gm=True)

    def _result(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: ch.ChallengeFlow,
        table: Table,
        *,
        ledger: Sequence[LedgerOp] = (),
        follow_ups: Sequence[FollowUpSpec] = (),
        cancelled: bool = False,
    ) -> StepResult:
        public, secret = challenge_to_json(machine)
        done = machine.stage in (ch.ChallengeStage.CLOSED, ch.ChallengeStage.CANCELLED) and not meta.get("threat_gain")
        main, steps = ("", {}) if done else self._steps(ctx, meta, machine, table)
        last = machine.attempts[-1] if machine.attempts else None
        state = {
            **meta,
            "players": _principal_players(ctx),
            "machine": public,
            "stage": str(machine.stage),
            "outcome": None if last is None or last.success is None else ("success" if last.success else "failure"),
            "final": machine.success is not None,
            "steps": steps,
        }
        return StepResult(
            state=state,
            waiting_for=_waiting(main, steps.get(main, {})) if main else {},
            secret_state=secret,
            settled=done and not cancelled,
            cancelled=cancelled,
            follow_ups=list(follow_ups),
            ledger=list(ledger),
        )


# --- The conflict ---------------------------------------------------------------------------------


def _participant_json(p: cf.Participant) -> JSON:
    return {
        "character_id": p.character_id,
        "kind": str(p.kind),
        "characteristic": p.characteristic,
        "tool_dice": p.tool_dice,
    }


def _participant_from(data: JSON) -> cf.Participant:
    return cf.Participant(data["character_id"], Kind(data["kind"]), data["characteristic"], int(data["tool_dice"]))


def conflict_to_json(flow: cf.ConflictFlow) -> tuple[JSON, JSON]:
    public = {
        "conflict_id": flow.conflict_id,
        "a": _participant_json(flow.a),
        "b": _participant_json(flow.b),
        "stage": str(flow.stage),
        "dangerous": flow.dangerous,
        "danger_paid": flow.danger_paid,
        # between steps the pending pair exists only once both are in (traits awaiting the GM): public
        "pending": [roll_json(r) for r in flow.pending],
        "proposed": [[trait_json(t) for t in side] for side in flow.proposed],
        "bonus": list(flow.bonus),
        "pairs": [{"a": roll_json(a), "b": roll_json(b)} for a, b in flow.pairs],
        "natural_winner": flow.natural_winner,
        "forced_winner": flow.forced_winner,
        "winner": flow.winner,
        "damage": [damage_json(d) for d in flow.damage],
    }
    secret = {"threat_at_roll": flow.threat_at_roll, "omen_hit": flow.omen_hit}
    return public, secret


def conflict_from_json(public: JSON, secret: JSON) -> cf.ConflictFlow:
    pending = tuple(roll_from(r) for r in public["pending"])
    bonus = tuple(None if b is None else int(b) for b in public["bonus"])
    proposed = tuple(tuple(trait_from(t) for t in side) for side in public["proposed"])
    pairs = tuple((roll_from(p["a"]), roll_from(p["b"])) for p in public["pairs"])
    threat = secret.get("threat_at_roll")
    return cf.ConflictFlow(
        conflict_id=public["conflict_id"],
        a=_participant_from(public["a"]),
        b=_participant_from(public["b"]),
        stage=cf.ConflictStage(public["stage"]),
        dangerous=bool(public["dangerous"]),
        danger_paid=bool(public["danger_paid"]),
        pending=(pending[0], pending[1]),
        proposed=(proposed[0], proposed[1]),
        bonus=(bonus[0], bonus[1]),
        pairs=pairs,  # type: ignore[arg-type]
        threat_at_roll=None if threat is None else int(threat),
        natural_winner=public["natural_winner"],
        forced_winner=public["forced_winner"],
        omen_hit=bool(secret.get("omen_hit", False)),
        damage=tuple(damage_from(d) for d in public["damage"]),
    )


class ConflictKind:
    """Conflicto: the GM opens it between two characters; each side posts (the first stays sealed until the
    second is in, then the server rolls both); ties by kind or rerolled; one omen check; forced outcomes;
    the GM's finalize; damage to the loser (1 + the winner's omens) with protection by kind."""

    key = "conflict"

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        return _actors_from_state(flow, step)

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        _require_gm(ctx)
        p: ConflictStart = parse_params(ConflictStart, params)
        a, b = _character(ctx, p.a_character_id), _character(ctx, p.b_character_id)
        if a.pk == b.pk:
            raise RulesError(
                "same_character",
                "Un conflicto enfrenta a dos personajes distintos.",
                "A conflict opposes two different characters.",
            )
        table = _load_table(ctx, [a.pk, b.pk])
        machine = cf.open_conflict(
            f"conflict:{ctx.flow.pk}",
            cf.Participant.of(table, str(a.pk), p.a_characteristic, p.a_tool_dice),
            cf.Participant.of(table, str(b.pk), p.b_characteristic, p.b_tool_dice),
        )
        rules = settings_of(ctx.settings)
        ledger: list[LedgerOp] = []
        if p.dangerous:
            machine, table = cf.declare_dangerous(machine, table, rules)
            ledger.append(self._danger_op(machine, p.conflict.strip()))
        machine = cf.confirm_setup(machine)
        meta = {
            "kind": self.key,
            "name": p.conflict.strip(),
            "sides": {
                side: {
                    "character_id": c.pk,
                    "name": c.name,
                    "kind": str(_kind(c)),
                    "roller": _roller_actors(c),
                    "characteristic_label": characteristic_label(key, ctx.settings, "es"),
                    "traits": _traits_of(c),
                }
                for side, c, key in (("a", a, p.a_characteristic), ("b", b, p.b_characteristic))
            },
            "cast": _cast(ctx),
            "ready": [],
            "pair_roll_ids": [],
            "damage_characteristic": None,
            "threat_gain": None,
        }
        return self._result(ctx, meta, machine, table, {}, ledger=ledger)

    @staticmethod
    def _danger_op(machine: cf.ConflictFlow, name: str) -> LedgerOp:
        against = Kind.MONSTRUO in (machine.a.kind, machine.b.kind)
        return LedgerOp("declare_danger", {"against_monster": against}, reason=name, by_rules=True)

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        meta = {k: v for k, v in ctx.flow.state.items() if k not in ("machine", "steps", "players")}
        secret = dict(ctx.flow.secret_state or {})
        machine = conflict_from_json(ctx.flow.state["machine"], secret)
        sealed = dict(secret.get("sealed", {}))
        rules = settings_of(ctx.settings)
        ids = [int(machine.a.character_id), int(machine.b.character_id)]
        if step == "threat_gain":
            ledger = _threat_gain_ledger(meta, params, str(machine.stage))
            return self._result(ctx, meta, machine, _load_table(ctx, ids), sealed, ledger=ledger)
        if meta.get("threat_gain"):
            raise reject("WRONG_STEP", stage="threat_gain")
        if step == "roll":
            return self._roll(ctx, meta, machine, sealed, rules, params)
        if step == "force":
            return self._force(ctx, meta, machine, sealed, rules, params)
        table = _load_table(ctx, ids)
        ledger: list[LedgerOp] = []
        follow_ups: list[FollowUpSpec] = []
        if step == "judge_traits":
            j: JudgeStep = parse_params(JudgeStep, params)
            side = j.side or self._single_unjudged(machine)
            index = 0 if side == "a" else 1
            chosen = None
            if machine.pending[index] is not None and machine.bonus[index] is None:
                chosen = chosen_trait(machine.proposed[index], j.accepted)
            was_decided = machine.natural_winner is not None
            machine, table = cf.judge_traits(machine, table, side, j.accepted, rules)
            if chosen is not None and chosen.supernatural:
                pid = machine.participant(side).character_id
                ledger.append(_trait_payment(table.character(pid), pid))
            more, fu, machine, table = self._settle_rolls(ctx, meta, machine, table, rules, was_decided)
            ledger += more
            follow_ups += fu
        elif step == "declare_danger":
            if meta["ready"]:
                raise reject("DANGER_AFTER_ROLL")  # a side already posted its (sealed) roll
            machine, table = cf.declare_dangerous(machine, table, rules)
            ledger.append(self._danger_op(machine, meta.get("name", "")))
        elif step == "break_tie":
            b: BreakTieStep = parse_params(BreakTieStep, params)
            machine, table = cf.break_tie(machine, table, b.winner, rules)
            more, fu = self._decided(ctx, meta, machine)
            ledger += more
            follow_ups += fu
        elif step == "finalize":
            f: FinalizeStep = parse_params(FinalizeStep, params)
            machine, table = cf.finalize(machine, table)
            meta["damage_characteristic"] = f.characteristic
            fu_id = self._final_roll_id(meta, machine.winner)
            if fu_id is not None and machine.winner is not None:
                winner = meta["sides"][machine.winner]["name"]
                follow_ups.append(
                    FollowUpSpec(
                        fu_id,
                        "settle",
                        f"Resultado final: gana {winner}",
                        f"Final outcome: {winner} wins",
                        {"winner": machine.winner},
                        {"winner": machine.winner, "final": True},
                    )
                )
        elif step == "damage":
            d: DamageStep = parse_params(DamageStep, params)
            more, fu, machine, table = self._settle(ctx, meta, machine, table, rules, d.protect)
            ledger += more
            follow_ups += fu
        elif step == "cancel":
            if machine.stage is not cf.ConflictStage.AWAITING_ROLLS:
                raise reject("WRONG_STEP", stage=str(machine.stage))
            refund = machine.danger_paid and not machine.pairs
            machine, table = cf.cancel(machine, table)
            if refund:
                ledger.append(
                    LedgerOp("refund_danger", {"flow_id": ctx.flow.pk}, reason="Conflicto cancelado", by_rules=True)
                )
            return self._result(ctx, meta, machine, table, {}, ledger=ledger, cancelled=True)
        else:
            raise reject("WRONG_STEP", stage=str(machine.stage))
        return self._after(ctx, meta, machine, table, sealed, rules, ledger, follow_ups)

    @staticmethod
    def _single_unjudged(machine: cf.ConflictFlow) -> Side:
        open_sides = [s for s, i in (("a", 0), ("b", 1)) if machine.pending[i] is not None and machine.bonus[i] is None]
        if len(open_sides) != 1:
            raise RulesError(
                "side_required", "Indica de qué bando son los rasgos.", "Say which side's traits these are."
            )
        return open_sides[0]  # type: ignore[return-value]

    def _roll(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: cf.ConflictFlow,
        sealed: JSON,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        p: RollStep = parse_params(RollStep, params)
        if machine.stage is not cf.ConflictStage.AWAITING_ROLLS:
            raise reject("WRONG_STEP", stage=str(machine.stage))
        side = self._side_for(ctx, meta, p.side)
        ids = [int(machine.a.character_id), int(machine.b.character_id)]
        table = _load_table(ctx, ids)
        participant = machine.participant(side)
        sheet = table.character(participant.character_id)
        if not sheet.in_story:
            raise reject("NOT_IN_STORY", character_id=participant.character_id)
        traits = [trait_json(NamedTrait.from_sheet(sheet, n)) for n in p.names()]
        sealed = {**sealed, side: traits}
        meta["ready"] = sorted({*meta["ready"], side})
        ledger: list[LedgerOp] = []
        follow_ups: list[FollowUpSpec] = []
        if len(meta["ready"]) == 2:
            # Both sides are in: the server rolls both now and shows them together (A-AMB-22).
            rolls = {s: self._roll_side(ctx, meta, machine, s) for s in ("a", "b")}
            for s in ("a", "b"):
                named = tuple(trait_from(t) for t in sealed.get(s, []))
                machine, table = cf.post_roll(machine, table, s, _faces(rolls[s]), rules, named)  # type: ignore[arg-type]
            meta["pair_roll_ids"] = [*meta["pair_roll_ids"], [rolls["a"].pk, rolls["b"].pk]]
            sealed = {}
            more, fu, machine, table = self._settle_rolls(ctx, meta, machine, table, rules, False)
            ledger += more
            follow_ups += fu
        return self._after(ctx, meta, machine, table, sealed, rules, ledger, follow_ups)

    def _side_for(self, ctx: StepContext, meta: JSON, wanted: Side | None) -> Side:
        """The side the actor posts for: their own character's, or an NPC's for a GM (``side`` if both)."""
        options: list[Side] = []
        for side in ("a", "b"):
            if side in meta["ready"]:
                continue
            roller = meta["sides"][side]["roller"]
            if (roller.get("gm") and ctx.viewer.is_gm) or ctx.actor.pk in roller.get("users", []):
                options.append(side)  # type: ignore[arg-type]
        if wanted is not None:
            if wanted in meta["ready"]:
                raise RulesError("already_rolled", "Ese bando ya ha tirado.", "That side has already rolled.")
            if wanted not in options:
                raise PermissionDenied(_("Ese bando no te corresponde."))
            return wanted
        if len(options) == 1:
            return options[0]
        if not options:
            raise RulesError("already_rolled", "Tu bando ya ha tirado.", "Your side has already rolled.")
        raise RulesError("side_required", "Indica por qué bando tiras.", "Say which side you roll for.")

    def _roll_side(self, ctx: StepContext, meta: JSON, machine: cf.ConflictFlow, side: str) -> Roll:
        participant = machine.participant(side)  # type: ignore[arg-type]
        character = _character(ctx, participant.character_id)
        label = meta.get("name") or "Conflicto"
        return _make_roll(ctx, character, participant.characteristic, participant.tool_dice, label)

    def _settle_rolls(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: cf.ConflictFlow,
        table: Table,
        rules: PresagiosSettings,
        was_decided: bool,
    ) -> tuple[list[LedgerOp], list[FollowUpSpec], cf.ConflictFlow, Table]:
        """After a comparison: reroll ties with the server's dice until someone wins (or no dice can break
        it), then the omen check through the ledger and the outcome in words."""
        for _attempt in range(MAX_AUTO_REROLLS):
            if machine.stage is not cf.ConflictStage.TIE_REROLL or _tie_unbreakable(machine, table):
                break
            rolls = {s: self._roll_side(ctx, meta, machine, s) for s in ("a", "b")}
            faces = [*rolls["a"].result.get("dice", []), *rolls["b"].result.get("dice", [])]
            machine, table = cf.reroll(machine, table, ScriptedDice(int(f) for f in faces), rules)
            meta["pair_roll_ids"] = [*meta["pair_roll_ids"], [rolls["a"].pk, rolls["b"].pk]]
        if machine.stage is cf.ConflictStage.RESPONSE and not was_decided:
            more, fu = self._decided(ctx, meta, machine)
            return more, fu, machine, table
        return [], [], machine, table

    def _decided(
        self, ctx: StepContext, meta: JSON, machine: cf.ConflictFlow
    ) -> tuple[list[LedgerOp], list[FollowUpSpec]]:
        rules = settings_of(ctx.settings)
        omens_a, omens_b = machine.counted_omens(rules)
        ledger = [_omen_op(omens_a + omens_b, int(machine.threat_at_roll or 0))] if machine.omen_hit else []
        winner = machine.natural_winner
        roll_id = self._final_roll_id(meta, "a")
        if roll_id is None or winner is None:
            return ledger, []
        pa, pb = machine.pairs[-1]
        name_a, name_b = meta["sides"]["a"]["name"], meta["sides"]["b"]["name"]
        wname = meta["sides"][winner]["name"]
        tie = pa.total == pb.total
        es = f"{name_a} {pa.total} contra {name_b} {pb.total}: gana {wname}" + (
            " (empate: gana el principal)" if tie else ""
        )
        en = f"{name_a} {pa.total} vs {name_b} {pb.total}: {wname} wins" + (
            " (tie: the main character wins)" if tie else ""
        )
        if len(machine.pairs) > 1:
            es += f" · {len(machine.pairs) - 1} empate(s) repetido(s)"
            en += f" · {len(machine.pairs) - 1} tie(s) rerolled"
        if omens_a + omens_b:
            es += f" · {omens_a + omens_b} presagio(s): algo inquietante ocurre"
            en += f" · {omens_a + omens_b} omen(s): something unsettling happens"
        if machine.omen_hit and _threat_public(ctx):
            es += " · la amenaza sube 1"
            en += " · threat rises by 1"
        data = {"winner": winner, "totals": [pa.total, pb.total], "omens": [omens_a, omens_b]}
        return ledger, [FollowUpSpec(roll_id, "outcome", es, en, data, {"winner": winner})]

    @staticmethod
    def _final_roll_id(meta: JSON, side: str | None) -> int | None:
        if not meta["pair_roll_ids"]:
            return None
        return int(meta["pair_roll_ids"][-1][0 if side != "b" else 1])

    def _force(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: cf.ConflictFlow,
        sealed: JSON,
        rules: PresagiosSettings,
        params: JSON,
    ) -> StepResult:
        p: ForceStep = parse_params(ForceStep, params)
        if p.side is None:
            raise RulesError("side_required", "Indica qué bando gana o pierde.", "Say which side wins or loses.")
        activator = _activator(ctx, p.activator)
        owner = _character(ctx, p.quality_owner)
        ids = [
            int(machine.a.character_id),
            int(machine.b.character_id),
            owner.pk,
            *([activator.pk] if activator else []),
        ]
        table = _load_table(ctx, ids)
        _quality_check(table.character(str(owner.pk)), p.quality, p.quality_text)
        forced_loser = cf.other(p.side) if p.force is Force.SUCCESS else p.side
        against = str(owner.pk) == machine.participant(forced_loser).character_id
        activation = QualityActivation(str(owner.pk), p.quality, against, str(activator.pk) if activator else None)
        machine, table = cf.force_outcome(machine, table, p.side, p.force, activation)
        op = LedgerOp(
            "force_outcome",
            {
                "activator_id": str(activator.pk) if activator else None,
                "owner_id": str(owner.pk),
                "quality": str(p.quality),
                "force": str(p.force),
                "against_owner": against,
            },
            activator.pk if activator else None,
            "Cualidad",
            by_rules=True,
        )
        follow_ups = []
        roll_id = self._final_roll_id(meta, p.side)
        if roll_id is not None and machine.winner is not None:
            payer_es, payer_en = _payer_words(activator)
            q_es, q_en = QUALITY_WORDS[p.quality]
            wname = meta["sides"][machine.winner]["name"]
            follow_ups.append(
                FollowUpSpec(
                    roll_id,
                    "force",
                    f"{payer_es} activa {q_es} de {owner.name}: gana {wname}",
                    f"{payer_en} activates {q_en} of {owner.name}: {wname} wins",
                    {
                        "force": str(p.force),
                        "side": p.side,
                        "quality": str(p.quality),
                        "owner_id": owner.pk,
                        "against_owner": against,
                    },
                    {"winner": machine.winner, "forced": True},
                    owner.pk,
                )
            )
        return self._after(ctx, meta, machine, table, sealed, rules, [op], follow_ups)

    def _target(self, meta: JSON, machine: cf.ConflictFlow) -> tuple[str, CharKey]:
        loser = machine.loser
        assert loser is not None
        participant = machine.participant(loser)
        return participant.character_id, meta.get("damage_characteristic") or participant.characteristic

    def _settle(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: cf.ConflictFlow,
        table: Table,
        rules: PresagiosSettings,
        protect: bool,
    ) -> tuple[list[LedgerOp], list[FollowUpSpec], cf.ConflictFlow, Table]:
        target, key = self._target(meta, machine)
        winner = machine.winner
        omens_a, omens_b = machine.counted_omens(rules)
        amount = conflict_damage(omens_a if winner == "a" else omens_b)
        at_roll = rules.protection_check_time is ProtectionCheckTime.AT_ROLL
        machine, table = cf.settle_damage(machine, table, rules, protect=protect, characteristic=key)
        outcome = machine.damage[-1]
        params = {
            "character_id": target,
            "characteristic": key,
            "amount": amount,
            "protect": protect,
            "protection_threat": machine.threat_at_roll if at_roll else None,
        }
        ledger = [LedgerOp("apply_damage", params, int(target), "Conflicto peligroso", by_rules=True)]
        character = _character(ctx, target)
        if outcome.threat_gain_proposed:
            meta["threat_gain"] = {"character_id": character.pk, "name": character.name}
        follow_ups = []
        loser = machine.loser
        roll_id = self._final_roll_id(meta, loser)
        if roll_id is not None:
            es, en = _damage_words(outcome, character.name, rules, ctx.settings)
            follow_ups.append(FollowUpSpec(roll_id, "damage", es, en, damage_json(outcome), {}, character.pk))
        return ledger, follow_ups, machine, table

    def _after(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: cf.ConflictFlow,
        table: Table,
        sealed: JSON,
        rules: PresagiosSettings,
        ledger: list[LedgerOp],
        follow_ups: list[FollowUpSpec],
    ) -> StepResult:
        if (
            machine.stage is cf.ConflictStage.DAMAGE_PENDING
            and self._damage_chooser(meta, machine, table, rules) is None
        ):
            more, fu, machine, table = self._settle(ctx, meta, machine, table, rules, False)
            ledger = [*ledger, *more]
            follow_ups = [*follow_ups, *fu]
        return self._result(ctx, meta, machine, table, sealed, ledger=ledger, follow_ups=follow_ups)

    def _damage_chooser(
        self, meta: JSON, machine: cf.ConflictFlow, table: Table, rules: PresagiosSettings
    ) -> str | None:
        target, key = self._target(meta, machine)
        omens_a, omens_b = machine.counted_omens(rules)
        amount = conflict_damage(omens_a if machine.winner == "a" else omens_b)
        at = machine.threat_at_roll if rules.protection_check_time is ProtectionCheckTime.AT_ROLL else None
        return _chooser(table, target, key, amount, rules, at)

    def _steps(self, ctx: StepContext, meta: JSON, machine: cf.ConflictFlow, table: Table) -> tuple[str, JSON]:
        rules = settings_of(ctx.settings)
        gm = _actors_json(gm=True)
        if meta.get("threat_gain"):
            return "threat_gain", {"threat_gain": gm}
        stage = machine.stage
        steps: JSON = {}
        main = ""
        if stage is cf.ConflictStage.AWAITING_ROLLS:
            main = "roll"
            pending = [meta["sides"][s]["roller"] for s in ("a", "b") if s not in meta["ready"]]
            steps["roll"] = _actors_json(
                gm=any(r.get("gm") for r in pending), users=[u for r in pending for u in r.get("users", [])]
            )
            if not machine.dangerous and not meta["ready"]:
                steps["declare_danger"] = gm
            steps["cancel"] = gm
        elif stage is cf.ConflictStage.REVEALED:
            main = "judge_traits"
            steps["judge_traits"] = gm
        elif stage is cf.ConflictStage.TIE_REROLL:
            main = "break_tie"
            steps["break_tie"] = gm
        elif stage is cf.ConflictStage.RESPONSE:
            main = "finalize"
            steps["finalize"] = gm
            if machine.forced_winner is None:
                steps["force"] = _actors_json(gm=True, users=_principal_players(ctx))
        elif stage is cf.ConflictStage.DAMAGE_PENDING:
            main = "damage"
            chooser = self._damage_chooser(meta, machine, table, rules)
            loser = machine.loser or "a"
            steps["damage"] = meta["sides"][loser]["roller"] if chooser == "owner" else gm
        return main, steps

    def _result(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: cf.ConflictFlow,
        table: Table,
        sealed: JSON,
        *,
        ledger: Sequence[LedgerOp] = (),
        follow_ups: Sequence[FollowUpSpec] = (),
        cancelled: bool = False,
    ) -> StepResult:
        public, secret = conflict_to_json(machine)
        if sealed:
            secret["sealed"] = sealed  # the traits a side named with its sealed roll
        done = machine.stage in (cf.ConflictStage.CLOSED, cf.ConflictStage.CANCELLED) and not meta.get("threat_gain")
        main, steps = ("", {}) if done else self._steps(ctx, meta, machine, table)
        state = {
            **meta,
            "players": _principal_players(ctx),
            "machine": public,
            "stage": str(machine.stage),
            "winner": machine.winner,
            "final": machine.stage in (cf.ConflictStage.DAMAGE_PENDING, cf.ConflictStage.CLOSED),
            "steps": steps,
        }
        return StepResult(
            state=state,
            waiting_for=_waiting(main, steps.get(main, {})) if main else {},
            secret_state=secret,
            settled=done and not cancelled,
            cancelled=cancelled,
            follow_ups=list(follow_ups),
            ledger=list(ledger),
        )


FLOW_KINDS: dict[str, Any] = {ChallengeKind.key: ChallengeKind(), ConflictKind.key: ConflictKind()}
