"""Presagios flows: the challenge (reto) and the conflict (conflicto) of spec §3.9 and §5.

Both run the pure state machines of ``systems.presagios.challenge`` / ``systems.presagios.conflict``;
this module only stores their state as JSON, rebuilds it at each step, makes the rolls with the
server's dice (the pure machine is fed the stored faces) and turns every point that moves into a
ledger operation of ``rulesets.presagios.sheet``, applied in the same transaction.

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
from dataclasses import dataclass
from typing import Any, Literal

from django.core.exceptions import PermissionDenied
from django.utils.text import slugify
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, field_validator

from campaigns import policy
from campaigns.models import Voice
from characters.models import CampaignRulesState, Character, CharacterStatus
from rolls.flows import JSON, FollowUpSpec, LedgerOp, StepContext, StepResult, parse_params
from rolls.models import Flow, Roll
from rolls.services import RollSpec, make_roll
from rulesets import registry
from rulesets.presagios.rolls import characteristic_label, load_sheet, outcome_word, roll_words, settings_of
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


def _actor_set(actors: JSON) -> frozenset[str | int]:
    """Stored actors (``{"gm": bool, "users": [...]}``) as the flow runner's set (``"gm"`` and user ids)."""
    who: set[str | int] = {int(u) for u in actors.get("users", [])}
    if actors.get("gm"):
        who.add(GM)
    return frozenset(who)


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
    who: frozenset[str | int] = frozenset()
    for roller in rollers:
        who |= _actor_set(roller)
    return who


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
    state = (
        row.state if row is not None else registry.plugin(campaign.ruleset).sheet.initial_campaign_state(ctx.settings)
    )
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
        roller = ctx.actor if policy.may_roll_for_npc(ctx.viewer) else ctx.flow.opened_by
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
    return registry.plugin("presagios").sheet.pools_public(ctx.settings)


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
        if policy.may_pay_with_threat(ctx.viewer):
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


# --- Shared game procedures: the same rule in a challenge and in a conflict -------------------------


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


def _danger_op(name: str, *, against_monster: bool = False) -> LedgerOp:
    """Declaring a roll dangerous costs the GM threat (more against a monster): the ledger applies it."""
    return LedgerOp("declare_danger", {"against_monster": against_monster}, reason=name, by_rules=True)


def _danger_refund(ctx: StepContext, refund: bool, reason: str) -> list[LedgerOp]:
    """A cancelled flow gives back the threat paid to declare it dangerous, only while no dice exist."""
    return [LedgerOp("refund_danger", {"flow_id": ctx.flow.pk}, reason=reason, by_rules=True)] if refund else []


def _threat_rise_words(ctx: StepContext, omen_hit: bool) -> tuple[str, str]:
    """The omen check raised the threat: said under the roll only when the table sees the threat pool."""
    if omen_hit and _threat_public(ctx):
        return " · la amenaza sube 1", " · threat rises by 1"
    return "", ""


def _final_outcome(
    roll_id: int, word_es: str, word_en: str, data: JSON, result: JSON, character_id: int | None = None
) -> FollowUpSpec:
    """The GM's finalize, under the last roll: nothing may change the outcome any more."""
    return FollowUpSpec(
        roll_id, "settle", f"Resultado final: {word_es}", f"Final outcome: {word_en}", data, result, character_id
    )


def _before_rolls(steps: JSON, may_declare_danger: bool) -> None:
    """Until dice exist the GM may still declare the roll dangerous (its cost refunded on cancel) or cancel."""
    if may_declare_danger:
        steps["declare_danger"] = _actors_json(gm=True)
    steps["cancel"] = _actors_json(gm=True)


def _response_steps(ctx: StepContext, steps: JSON, may_force: bool) -> str:
    """The outcome is out: the GM finalizes it; until an outcome is forced, the GM (threat) or any player
    (their main character's overcome) may activate a quality to force it (§3.9)."""
    steps["finalize"] = _actors_json(gm=True)
    if may_force:
        steps["force"] = _actors_json(gm=True, users=_principal_players(ctx))
    return "finalize"


@dataclass(frozen=True)
class PendingDamage:
    """The damage a lost dangerous roll is about to deal (§5): to whom, where, how much, and the threat the
    roll was made at (script protection may be checked against it, A-AMB-15)."""

    target: str
    characteristic: CharKey
    amount: int
    threat_at_roll: int | None
    reason: str  # the ledger's reason: which kind of roll dealt it


def _protection_threat(rules: PresagiosSettings, threat_at_roll: int | None) -> int | None:
    """The threat script protection is judged at: the roll's, or None for the threat now."""
    return threat_at_roll if rules.protection_check_time is ProtectionCheckTime.AT_ROLL else None


def damage_chooser(table: Table, damage: PendingDamage, rules: PresagiosSettings) -> str | None:
    """Who chooses between script protection and taking the damage ("owner", the GM), or None: no choice."""
    at = _protection_threat(rules, damage.threat_at_roll)
    return _chooser(table, damage.target, damage.characteristic, damage.amount, rules, at)


def apply_damage(
    ctx: StepContext, meta: JSON, damage: PendingDamage, outcome: DamageOutcome, protect: bool, roll_id: int | None
) -> tuple[list[LedgerOp], list[FollowUpSpec]]:
    """The settled damage (already decided by the pure machine as ``outcome``) through the ledger, in words
    under the roll; a character out of the story leaves the GM the +1 threat question."""
    rules = settings_of(ctx.settings)
    params = {
        "character_id": damage.target,
        "characteristic": damage.characteristic,
        "amount": damage.amount,
        "protect": protect,
        "protection_threat": _protection_threat(rules, damage.threat_at_roll),
    }
    ledger = [LedgerOp("apply_damage", params, int(damage.target), damage.reason, by_rules=True)]
    character = _character(ctx, damage.target)
    if outcome.threat_gain_proposed:
        meta["threat_gain"] = {"character_id": character.pk, "name": character.name}
    follow_ups = []
    if roll_id is not None:
        es, en = _damage_words(outcome, character.name, rules, ctx.settings)
        follow_ups.append(FollowUpSpec(roll_id, "damage", es, en, damage_json(outcome), {}, character.pk))
    return ledger, follow_ups


@dataclass(frozen=True)
class QualityUse:
    """A quality activated to force an outcome (§3.9): who pays (None: the GM, with threat) and whose
    quality it is."""

    params: ForceStep
    activator: Character | None
    owner: Character

    def activation(self, against_owner: bool) -> QualityActivation:
        activator_id = str(self.activator.pk) if self.activator else None
        return QualityActivation(str(self.owner.pk), self.params.quality, against_owner, activator_id)

    def ledger_op(self, against_owner: bool) -> LedgerOp:
        """The payment (overcome or threat) and, against its owner, a main character's point."""
        p = self.params
        params = {
            "activator_id": str(self.activator.pk) if self.activator else None,
            "owner_id": str(self.owner.pk),
            "quality": str(p.quality),
            "force": str(p.force),
            "against_owner": against_owner,
        }
        return LedgerOp(
            "force_outcome", params, self.activator.pk if self.activator else None, "Cualidad", by_rules=True
        )

    def follow_up(
        self, roll_id: int, outcome: tuple[str, str], against_owner: bool, side: JSON, result: JSON
    ) -> FollowUpSpec:
        """Under the roll: who paid, which quality of whom, and the forced ``outcome`` (es, en)."""
        p = self.params
        payer_es, payer_en = _payer_words(self.activator)
        q_es, q_en = QUALITY_WORDS[p.quality]
        data = {
            "force": str(p.force),
            **side,
            "quality": str(p.quality),
            "owner_id": self.owner.pk,
            "against_owner": against_owner,
        }
        return FollowUpSpec(
            roll_id,
            "force",
            f"{payer_es} activa {q_es} de {self.owner.name}: {outcome[0]}",
            f"{payer_en} activates {q_en} of {self.owner.name}: {outcome[1]}",
            data,
            result,
            self.owner.pk,
        )


def force_outcome_with_quality(
    ctx: StepContext, p: ForceStep, character_ids: Iterable[int]
) -> tuple[QualityUse, Table]:
    """Who pays and whose quality, checked against the sheet, with the table locked for the roll's
    ``character_ids`` and both of them."""
    activator = _activator(ctx, p.activator)
    owner = _character(ctx, p.quality_owner)
    table = _load_table(ctx, [*character_ids, owner.pk, *([activator.pk] if activator else [])])
    _quality_check(table.character(str(owner.pk)), p.quality, p.quality_text)
    return QualityUse(p, activator, owner), table


class _PresagiosKind:
    """What a challenge and a conflict do alike around their pure machines: damage with script protection
    (automatic when nobody has a choice), the +1 threat question, cancelling, and the stored state of each
    step. A kind says only where it differs, in the hooks below."""

    key: str
    damage_reason: str  # the ledger's reason for its damage

    # -- hooks: what each kind says of its own machine --

    def _to_json(self, machine: Any) -> tuple[JSON, JSON]:
        raise NotImplementedError

    def _is_closed(self, machine: Any) -> bool:
        raise NotImplementedError

    def _outcome_view(self, machine: Any) -> JSON:
        """The outcome fields of the stored state (besides the machine)."""
        raise NotImplementedError

    def _stage_steps(self, ctx: StepContext, meta: JSON, machine: Any, table: Table) -> tuple[str, JSON]:
        """(the step it waits for, who may take each step now) at the machine's stage."""
        raise NotImplementedError

    def _damage_due(self, machine: Any) -> bool:
        raise NotImplementedError

    def _pending_damage(self, meta: JSON, machine: Any, rules: PresagiosSettings) -> PendingDamage:
        raise NotImplementedError

    def _damaged_roller(self, meta: JSON, machine: Any) -> JSON:
        """Who plays the damaged character (they choose script protection for a main character)."""
        raise NotImplementedError

    def _settle_machine(
        self, machine: Any, table: Table, rules: PresagiosSettings, protect: bool, damage: PendingDamage
    ) -> tuple[Any, Table]:
        raise NotImplementedError

    def _damage_roll_id(self, meta: JSON, machine: Any) -> int | None:
        """The roll the damage is told under."""
        raise NotImplementedError

    # -- shared steps --

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        return _actors_from_state(flow, step)

    def protect_with_script(
        self, ctx: StepContext, meta: JSON, machine: Any, table: Table, params: JSON, sealed: JSON | None = None
    ) -> StepResult:
        """The damage step: whoever may choose protects with script (paying for it) or takes the damage."""
        p: DamageStep = parse_params(DamageStep, params)
        ledger, follow_ups, machine, table = self._settle_damage(ctx, meta, machine, table, p.protect)
        return self._after(ctx, meta, machine, table, ledger, follow_ups, sealed)

    def _confirm_threat_gain(
        self, ctx: StepContext, meta: JSON, machine: Any, params: JSON, ids: Iterable[int], sealed: JSON | None = None
    ) -> StepResult:
        ledger = _threat_gain_ledger(meta, params, str(machine.stage))
        return self._result(ctx, meta, machine, _load_table(ctx, ids), sealed=sealed, ledger=ledger)

    def _cancelled(
        self, ctx: StepContext, meta: JSON, machine: Any, table: Table, refund: list[LedgerOp]
    ) -> StepResult:
        return self._result(ctx, meta, machine, table, ledger=refund, cancelled=True)

    def _settle_damage(
        self, ctx: StepContext, meta: JSON, machine: Any, table: Table, protect: bool
    ) -> tuple[list[LedgerOp], list[FollowUpSpec], Any, Table]:
        rules = settings_of(ctx.settings)
        damage = self._pending_damage(meta, machine, rules)
        machine, table = self._settle_machine(machine, table, rules, protect, damage)
        ledger, follow_ups = apply_damage(
            ctx, meta, damage, machine.damage[-1], protect, self._damage_roll_id(meta, machine)
        )
        return ledger, follow_ups, machine, table

    def _damage_actors(self, meta: JSON, machine: Any, table: Table, rules: PresagiosSettings) -> JSON:
        chooser = damage_chooser(table, self._pending_damage(meta, machine, rules), rules)
        return self._damaged_roller(meta, machine) if chooser == "owner" else _actors_json(gm=True)

    def _steps(self, ctx: StepContext, meta: JSON, machine: Any, table: Table) -> tuple[str, JSON]:
        """(the step it waits for, who may take each step now): the +1 threat question comes first."""
        if meta.get("threat_gain"):
            return "threat_gain", {"threat_gain": _actors_json(gm=True)}
        return self._stage_steps(ctx, meta, machine, table)

    # -- after every step: automatic damage, who acts next --

    def _after(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: Any,
        table: Table,
        ledger: list[LedgerOp],
        follow_ups: list[FollowUpSpec],
        sealed: JSON | None = None,
    ) -> StepResult:
        """Damage nobody may choose to avoid is settled at once; then the state and who acts next."""
        rules = settings_of(ctx.settings)
        if (
            self._damage_due(machine)
            and damage_chooser(table, self._pending_damage(meta, machine, rules), rules) is None
        ):
            more, fu, machine, table = self._settle_damage(ctx, meta, machine, table, False)
            ledger = [*ledger, *more]
            follow_ups = [*follow_ups, *fu]
        return self._result(ctx, meta, machine, table, sealed=sealed, ledger=ledger, follow_ups=follow_ups)

    def _result(
        self,
        ctx: StepContext,
        meta: JSON,
        machine: Any,
        table: Table,
        *,
        sealed: JSON | None = None,
        ledger: Sequence[LedgerOp] = (),
        follow_ups: Sequence[FollowUpSpec] = (),
        cancelled: bool = False,
    ) -> StepResult:
        public, secret = self._to_json(machine)
        if sealed:
            secret["sealed"] = sealed  # the traits a side named with its sealed roll
        done = self._is_closed(machine) and not meta.get("threat_gain")
        main, steps = ("", {}) if done else self._steps(ctx, meta, machine, table)
        state = {
            **meta,
            "players": _principal_players(ctx),
            "machine": public,
            "stage": str(machine.stage),
            **self._outcome_view(machine),
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


# --- The challenge --------------------------------------------------------------------------------


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


class ChallengeKind(_PresagiosKind):
    """Reto: the GM opens it with a sealed difficulty; the player rolls; Éxito or Fallo; retries, forced
    outcomes, the GM's finalize, damage with script protection, the +1 threat of a character out."""

    key = "challenge"

    # -- reading the stored state --

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
            ledger.append(_danger_op(name))
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
        character = _character(ctx, machine.character_id)
        if step == "threat_gain":
            return self._confirm_threat_gain(ctx, meta, machine, params, [])
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
        return handler(ctx, meta, machine, character, params)

    @staticmethod
    def _last_roll_id(meta: JSON) -> int | None:
        return meta["roll_ids"][-1] if meta["roll_ids"] else None

    def _roll(
        self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, character: Character, params: JSON
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
        machine, table = ch.roll_challenge(machine, table, dice, settings_of(ctx.settings), traits)
        meta["roll_ids"] = [*meta["roll_ids"], roll.pk if roll else None]
        ledger: list[LedgerOp] = []
        follow_ups: list[FollowUpSpec] = []
        if locked:
            ledger.extend(self._closing_ops(before, machine))
        elif machine.stage is ch.ChallengeStage.RESPONSE:
            ledger, follow_ups = self._published(ctx, meta, machine, character, None)
        return self._after(ctx, meta, machine, table, ledger, follow_ups)

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
        rise_es, rise_en = _threat_rise_words(ctx, attempt.omen_hit)
        data = {"outcome": outcome, "trait": name}
        result = {**public_roll, "outcome": outcome, "success": attempt.natural_success}
        return ledger, [FollowUpSpec(roll_id, "outcome", es + rise_es, en + rise_en, data, result, character.pk)]

    def _judge(
        self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, character: Character, params: JSON
    ) -> StepResult:
        p: JudgeStep = parse_params(JudgeStep, params)
        table = _load_table(ctx, [character.pk])
        chosen = (
            chosen_trait(machine.proposed_traits, p.accepted) if machine.stage is ch.ChallengeStage.ROLLED else None
        )
        machine, table = ch.judge_traits(machine, table, p.accepted, settings_of(ctx.settings))
        ledger = (
            [_trait_payment(table.character(machine.character_id), machine.character_id)]
            if chosen and chosen.supernatural
            else []
        )
        more, follow_ups = self._published(ctx, meta, machine, character, chosen)
        return self._after(ctx, meta, machine, table, [*ledger, *more], follow_ups)

    def _retry(
        self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, character: Character, params: JSON
    ) -> StepResult:
        """Volver a intentar: a main character pays 1 overcome point; for an NPC, the GM 1 threat point."""
        table = _load_table(ctx, [character.pk])
        machine, table = ch.pay_retry(machine, table, settings_of(ctx.settings))
        op = LedgerOp(
            "pay_retry",
            {"character_id": machine.character_id, "challenge_id": machine.challenge_id},
            character.pk,
            "Volver a intentar",
            by_rules=True,
        )
        follow_ups = []
        last = self._last_roll_id(meta)
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
        return self._after(ctx, meta, machine, table, [op], follow_ups)

    def _force(
        self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, character: Character, params: JSON
    ) -> StepResult:
        p: ForceStep = parse_params(ForceStep, params)
        use, table = force_outcome_with_quality(ctx, p, [character.pk])
        # Against its owner when it makes the owner's own roll fail (then a main character gets the point).
        against = str(use.owner.pk) == machine.character_id and p.force is Force.FAILURE
        machine, table = ch.force_outcome(machine, table, p.force, use.activation(against))
        follow_ups = []
        roll_id = self._last_roll_id(meta)
        if roll_id is not None:
            outcome = "success" if p.force is Force.SUCCESS else "failure"
            words = (f"{outcome_word(outcome, 'es')} forzado", f"forced {outcome_word(outcome, 'en').lower()}")
            follow_ups.append(use.follow_up(roll_id, words, against, {}, {"outcome": outcome, "forced": True}))
        return self._after(ctx, meta, machine, table, [use.ledger_op(against)], follow_ups)

    def _declare(
        self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, character: Character, params: JSON
    ) -> StepResult:
        table = _load_table(ctx, [character.pk])
        machine, table = ch.declare_dangerous(machine, table, settings_of(ctx.settings))
        return self._after(ctx, meta, machine, table, [_danger_op(meta.get("name", ""))], [])

    @staticmethod
    def _closing_ops(before: ch.ChallengeFlow, machine: ch.ChallengeFlow) -> list[LedgerOp]:
        """A final failure locks the challenge for this character (S)."""
        if (
            machine.stage in (ch.ChallengeStage.CLOSED, ch.ChallengeStage.DAMAGE_PENDING)
            and machine.last.success is False
        ):
            params = {"character_id": machine.character_id, "challenge_id": machine.challenge_id}
            return [LedgerOp("lock_challenge", params, int(machine.character_id), "Reto fallido", by_rules=True)]
        return []

    def _finalize(
        self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, character: Character, params: JSON
    ) -> StepResult:
        table = _load_table(ctx, [character.pk])
        before = machine
        machine, table = ch.finalize(machine, table)
        ledger = self._closing_ops(before, machine)
        follow_ups = []
        roll_id = self._last_roll_id(meta)
        if roll_id is not None:
            outcome = "success" if machine.last.success else "failure"
            data = {"outcome": outcome}
            result = {"outcome": outcome, "final": True}
            words = outcome_word(outcome, "es"), outcome_word(outcome, "en")
            follow_ups.append(_final_outcome(roll_id, *words, data, result, character.pk))
        return self._after(ctx, meta, machine, table, ledger, follow_ups)

    def _damage(
        self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, character: Character, params: JSON
    ) -> StepResult:
        return self.protect_with_script(ctx, meta, machine, _load_table(ctx, [character.pk]), params)

    def _cancel(
        self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, character: Character, params: JSON
    ) -> StepResult:
        table = _load_table(ctx, [character.pk])
        refund = _danger_refund(ctx, machine.danger_paid and not machine.attempts, "Reto cancelado")
        machine, table = ch.cancel(machine, table)
        return self._cancelled(ctx, meta, machine, table, refund)

    # -- hooks of the shared steps --

    def _to_json(self, machine: ch.ChallengeFlow) -> tuple[JSON, JSON]:
        return challenge_to_json(machine)

    def _is_closed(self, machine: ch.ChallengeFlow) -> bool:
        return machine.stage in (ch.ChallengeStage.CLOSED, ch.ChallengeStage.CANCELLED)

    def _outcome_view(self, machine: ch.ChallengeFlow) -> JSON:
        last = machine.attempts[-1] if machine.attempts else None
        outcome = None if last is None or last.success is None else ("success" if last.success else "failure")
        return {"outcome": outcome, "final": machine.success is not None}

    def _damage_due(self, machine: ch.ChallengeFlow) -> bool:
        return machine.stage is ch.ChallengeStage.DAMAGE_PENDING

    def _pending_damage(self, meta: JSON, machine: ch.ChallengeFlow, rules: PresagiosSettings) -> PendingDamage:
        """1 plus the roll's omens to the challenged characteristic (§5)."""
        attempt = machine.last
        amount = challenge_damage(attempt.omens)
        return PendingDamage(
            machine.character_id, machine.characteristic, amount, attempt.threat_at_roll, "Reto peligroso"
        )

    def _damaged_roller(self, meta: JSON, machine: ch.ChallengeFlow) -> JSON:
        return meta["roller"]

    def _settle_machine(
        self,
        machine: ch.ChallengeFlow,
        table: Table,
        rules: PresagiosSettings,
        protect: bool,
        damage: PendingDamage,
    ) -> tuple[ch.ChallengeFlow, Table]:
        return ch.settle_damage(machine, table, rules, protect=protect)

    def _damage_roll_id(self, meta: JSON, machine: ch.ChallengeFlow) -> int | None:
        return self._last_roll_id(meta)

    def _stage_steps(self, ctx: StepContext, meta: JSON, machine: ch.ChallengeFlow, table: Table) -> tuple[str, JSON]:
        rules = settings_of(ctx.settings)
        roller = meta["roller"]
        steps: JSON = {}
        stage = machine.stage
        if stage is ch.ChallengeStage.AWAITING_ROLL:
            steps["roll"] = roller
            sheet = table.characters.get(machine.character_id)
            if sheet is not None and machine.challenge_id in sheet.challenge_locks and not machine.retry_paid:
                steps["retry"] = roller
            _before_rolls(steps, not machine.dangerous and not machine.attempts)
            return "roll", steps
        if stage is ch.ChallengeStage.ROLLED:
            return "judge_traits", {"judge_traits": _actors_json(gm=True)}
        if stage is ch.ChallengeStage.RESPONSE:
            attempt = machine.last
            main = _response_steps(ctx, steps, attempt.forced is None)
            early = machine.dangerous and not rules.retry_discards_pending_damage and not attempt.damage_settled
            if attempt.success is False and attempt.forced is None:
                # the alternative rule (A-AMB-14): a failed roll's damage is settled before any retry
                steps["damage" if early else "retry"] = (
                    self._damage_actors(meta, machine, table, rules) if early else roller
                )
            return main, steps
        if stage is ch.ChallengeStage.DAMAGE_PENDING:
            return "damage", {"damage": self._damage_actors(meta, machine, table, rules)}
        return "", steps


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


class ConflictKind(_PresagiosKind):
    """Conflicto: the GM opens it between two characters; each side posts (the first stays sealed until the
    second is in, then the server rolls both); ties by kind or rerolled; one omen check; forced outcomes;
    the GM's finalize; damage to the loser (1 + the winner's omens) with protection by kind."""

    key = "conflict"

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
        return self._result(ctx, meta, machine, table, ledger=ledger)

    @staticmethod
    def _danger_op(machine: cf.ConflictFlow, name: str) -> LedgerOp:
        return _danger_op(name, against_monster=Kind.MONSTRUO in (machine.a.kind, machine.b.kind))

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        meta = {k: v for k, v in ctx.flow.state.items() if k not in ("machine", "steps", "players")}
        secret = dict(ctx.flow.secret_state or {})
        machine = conflict_from_json(ctx.flow.state["machine"], secret)
        sealed = dict(secret.get("sealed", {}))
        rules = settings_of(ctx.settings)
        ids = [int(machine.a.character_id), int(machine.b.character_id)]
        if step == "threat_gain":
            return self._confirm_threat_gain(ctx, meta, machine, params, ids, sealed)
        if meta.get("threat_gain"):
            raise reject("WRONG_STEP", stage="threat_gain")
        if step == "roll":
            return self._roll(ctx, meta, machine, sealed, rules, params)
        if step == "force":
            return self._force(ctx, meta, machine, sealed, params)
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
            ledger, follow_ups = self._decided(ctx, meta, machine)
        elif step == "finalize":
            f: FinalizeStep = parse_params(FinalizeStep, params)
            machine, table = cf.finalize(machine, table)
            meta["damage_characteristic"] = f.characteristic
            fu_id = self._final_roll_id(meta, machine.winner)
            if fu_id is not None and machine.winner is not None:
                winner = meta["sides"][machine.winner]["name"]
                data = {"winner": machine.winner}
                result = {"winner": machine.winner, "final": True}
                follow_ups.append(_final_outcome(fu_id, f"gana {winner}", f"{winner} wins", data, result))
        elif step == "damage":
            return self.protect_with_script(ctx, meta, machine, table, params, sealed)
        elif step == "cancel":
            if machine.stage is not cf.ConflictStage.AWAITING_ROLLS:
                raise reject("WRONG_STEP", stage=str(machine.stage))
            refund = _danger_refund(ctx, machine.danger_paid and not machine.pairs, "Conflicto cancelado")
            machine, table = cf.cancel(machine, table)
            return self._cancelled(ctx, meta, machine, table, refund)
        else:
            raise reject("WRONG_STEP", stage=str(machine.stage))
        return self._after(ctx, meta, machine, table, ledger, follow_ups, sealed)

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
        return self._after(ctx, meta, machine, table, ledger, follow_ups, sealed)

    def _side_for(self, ctx: StepContext, meta: JSON, wanted: Side | None) -> Side:
        """The side the actor posts for: their own character's, or an NPC's for a GM (``side`` if both)."""
        options: list[Side] = []
        for side in ("a", "b"):
            if side in meta["ready"]:
                continue
            if policy.may_act_in_flow(ctx.viewer, _actor_set(meta["sides"][side]["roller"])):
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
        rise_es, rise_en = _threat_rise_words(ctx, machine.omen_hit)
        data = {"winner": winner, "totals": [pa.total, pb.total], "omens": [omens_a, omens_b]}
        return ledger, [FollowUpSpec(roll_id, "outcome", es + rise_es, en + rise_en, data, {"winner": winner})]

    @staticmethod
    def _final_roll_id(meta: JSON, side: str | None) -> int | None:
        if not meta["pair_roll_ids"]:
            return None
        return int(meta["pair_roll_ids"][-1][0 if side != "b" else 1])

    def _force(self, ctx: StepContext, meta: JSON, machine: cf.ConflictFlow, sealed: JSON, params: JSON) -> StepResult:
        p: ForceStep = parse_params(ForceStep, params)
        if p.side is None:
            raise RulesError("side_required", "Indica qué bando gana o pierde.", "Say which side wins or loses.")
        ids = [int(machine.a.character_id), int(machine.b.character_id)]
        use, table = force_outcome_with_quality(ctx, p, ids)
        # Against its owner when the owner is the side it makes lose.
        forced_loser = cf.other(p.side) if p.force is Force.SUCCESS else p.side
        against = str(use.owner.pk) == machine.participant(forced_loser).character_id
        machine, table = cf.force_outcome(machine, table, p.side, p.force, use.activation(against))
        follow_ups = []
        roll_id = self._final_roll_id(meta, p.side)
        if roll_id is not None and machine.winner is not None:
            wname = meta["sides"][machine.winner]["name"]
            words = (f"gana {wname}", f"{wname} wins")
            result = {"winner": machine.winner, "forced": True}
            follow_ups.append(use.follow_up(roll_id, words, against, {"side": p.side}, result))
        return self._after(ctx, meta, machine, table, [use.ledger_op(against)], follow_ups, sealed)

    # -- hooks of the shared steps --

    def _to_json(self, machine: cf.ConflictFlow) -> tuple[JSON, JSON]:
        return conflict_to_json(machine)

    def _is_closed(self, machine: cf.ConflictFlow) -> bool:
        return machine.stage in (cf.ConflictStage.CLOSED, cf.ConflictStage.CANCELLED)

    def _outcome_view(self, machine: cf.ConflictFlow) -> JSON:
        final = machine.stage in (cf.ConflictStage.DAMAGE_PENDING, cf.ConflictStage.CLOSED)
        return {"winner": machine.winner, "final": final}

    def _damage_due(self, machine: cf.ConflictFlow) -> bool:
        return machine.stage is cf.ConflictStage.DAMAGE_PENDING

    def _pending_damage(self, meta: JSON, machine: cf.ConflictFlow, rules: PresagiosSettings) -> PendingDamage:
        """1 plus the winner's omens to the loser, where the GM sent it at finalize (A-AMB-16)."""
        loser = machine.loser
        assert loser is not None
        participant = machine.participant(loser)
        omens_a, omens_b = machine.counted_omens(rules)
        amount = conflict_damage(omens_a if machine.winner == "a" else omens_b)
        key = meta.get("damage_characteristic") or participant.characteristic
        return PendingDamage(participant.character_id, key, amount, machine.threat_at_roll, "Conflicto peligroso")

    def _damaged_roller(self, meta: JSON, machine: cf.ConflictFlow) -> JSON:
        return meta["sides"][machine.loser or "a"]["roller"]

    def _settle_machine(
        self,
        machine: cf.ConflictFlow,
        table: Table,
        rules: PresagiosSettings,
        protect: bool,
        damage: PendingDamage,
    ) -> tuple[cf.ConflictFlow, Table]:
        return cf.settle_damage(machine, table, rules, protect=protect, characteristic=damage.characteristic)

    def _damage_roll_id(self, meta: JSON, machine: cf.ConflictFlow) -> int | None:
        return self._final_roll_id(meta, machine.loser)

    def _stage_steps(self, ctx: StepContext, meta: JSON, machine: cf.ConflictFlow, table: Table) -> tuple[str, JSON]:
        gm = _actors_json(gm=True)
        stage = machine.stage
        steps: JSON = {}
        if stage is cf.ConflictStage.AWAITING_ROLLS:
            pending = [meta["sides"][s]["roller"] for s in ("a", "b") if s not in meta["ready"]]
            steps["roll"] = _actors_json(
                gm=any(r.get("gm") for r in pending), users=[u for r in pending for u in r.get("users", [])]
            )
            _before_rolls(steps, not machine.dangerous and not meta["ready"])
            return "roll", steps
        if stage is cf.ConflictStage.REVEALED:
            return "judge_traits", {"judge_traits": gm}
        if stage is cf.ConflictStage.TIE_REROLL:
            return "break_tie", {"break_tie": gm}
        if stage is cf.ConflictStage.RESPONSE:
            return _response_steps(ctx, steps, machine.forced_winner is None), steps
        if stage is cf.ConflictStage.DAMAGE_PENDING:
            return "damage", {"damage": self._damage_actors(meta, machine, table, settings_of(ctx.settings))}
        return "", steps


FLOW_KINDS: dict[str, Any] = {ChallengeKind.key: ChallengeKind(), ConflictKind.key: ConflictKind()}
