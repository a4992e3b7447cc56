"""What Presagios' challenge and conflict share: their step params, the pure ``Table`` built from what the
runner loaded, the pickers (characters by name, characteristics by the campaign's labels, traits and
qualities by their text), who pays a quality, damage with script protection, and the record's words.

Nothing here touches the database: the runner loaded the campaign's threat and the characters' sheets
into :class:`rulesets.kit.table.Table`, and every point that moves leaves as a ledger operation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, field_validator

from campaigns import policy
from rulesets.kit.procedures import Choice, LedgerOp, RecordLine
from rulesets.kit.refusals import refuse
from rulesets.kit.table import GM, Actor, CharacterFacts, Table, in_both
from rulesets.presagios.rolls import characteristic_label, dice_text, load_sheet, settings_of
from rulesets.presagios.sheet import BINDING as SHEET_BINDING
from systems.errors import RulesError
from systems.presagios.damage import DamageOutcome
from systems.presagios.dice import CoreRoll
from systems.presagios.qualities import Force, QualityActivation
from systems.presagios.settings import PresagiosSettings, ProtectionCheckTime
from systems.presagios.sheet import CHAR_KEYS, CharKey, Kind, PresagiosSheet, QualityKind
from systems.presagios.table import Table as RulesTable
from systems.presagios.threat import protection_active
from systems.presagios.traits import NamedTrait
from systems.registry import Names

SideKey = Literal["a", "b"]
Outcome2 = Literal["success", "failure"]


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _as_list(value: Any) -> Any:
    """A form sends one checked box as a string and none as nothing: both read as a list."""
    return [value] if isinstance(value, str) else (value or [])


# --- Step params ----------------------------------------------------------------------------------


class RollParams(_Params):
    side: SideKey | None = None  # a conflict: the side the actor posts for, when they play both
    traits: list[str] = Field(default_factory=list, max_length=10)

    _one = field_validator("traits", mode="before")(_as_list)

    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n.strip() for n in self.traits if n and n.strip()))


class JudgeParams(_Params):
    side: SideKey | None = None
    accepted: list[str] = Field(default_factory=list, max_length=10)

    _one = field_validator("accepted", mode="before")(_as_list)


class ForceParams(_Params):
    force: Force
    side: SideKey | None = None  # a conflict: the side forced to win (success) or to lose (failure)
    quality_owner: int
    quality: QualityKind
    quality_text: str = Field("", max_length=200)
    activator: int | None = None  # the paying main character; None: a GM pays threat


class DamageParams(_Params):
    protect: bool = False


class ThreatGainParams(_Params):
    confirm: bool = False


class ThreatState(BaseModel):
    """The campaign rules state of Presagios, as the runner loaded it."""

    model_config = ConfigDict(extra="ignore")

    threat: int = 0


class ThreatGain(BaseModel):
    """A character left the story: the GM confirms +1 threat (or not) before the procedure closes."""

    model_config = ConfigDict(extra="forbid")

    character_id: int
    name: str


# --- Reading the table ----------------------------------------------------------------------------


def rules_of(table: Table) -> PresagiosSettings:
    return settings_of(table.settings)


def threat_now(table: Table) -> int:
    return ThreatState.model_validate(table.rules_state).threat


def rules_table(table: Table, ids: Iterable[int]) -> RulesTable:
    """The pure rules' table: the campaign's threat and these characters' sheets (keyed by id as text)."""
    sheets = {str(i): load_sheet(table.character(i).sheet, table.character(i).name) for i in sorted(set(ids))}
    return RulesTable(threat_now(table), sheets)


def threat_public(table: Table) -> bool:
    """Whether the table sees the threat (a setting): lines about threat are GM-only otherwise."""
    return SHEET_BINDING.pools_public(table.settings)


def players(table: Table) -> list[int]:
    """Who plays a main character here: any of them may activate a quality to force an outcome."""
    return [
        c.owner_id
        for c in sorted(table.characters.values(), key=lambda c: c.id)
        if c.approved and not c.is_npc and c.owner_id is not None
    ]


def kind_of(character: CharacterFacts) -> Kind:
    return load_sheet(character.sheet, character.name).kind


def require_gm(viewer: policy.Viewer) -> None:
    if not policy.may_run_gm_procedure(viewer):
        from django.core.exceptions import PermissionDenied

        raise PermissionDenied(_("Solo el director abre retos y conflictos."))


# --- Words ----------------------------------------------------------------------------------------


def label_of(key: CharKey, table: Table) -> Names:
    """A characteristic by the campaign's name for it (A-AMB-05), in both languages."""
    return in_both(lambda: characteristic_label(key, table.settings, get_language() or "es"))


def line(render: Callable[[], str], *, gm_only: bool = False, rolls: Sequence[int] = ()) -> RecordLine:
    return RecordLine(in_both(render), gm_only=gm_only, rolls=tuple(rolls))


def threat_line(render: Callable[[], str], table: Table) -> RecordLine:
    """A line about the threat: for everyone, or GM-only when the campaign hides the threat."""
    return line(render, gm_only=not threat_public(table))


def omens_words(omens: int) -> str:
    if not omens:
        return ""
    return ngettext("%(n)s presagio: algo inquietante ocurre", "%(n)s presagios: algo inquietante ocurre", omens) % {
        "n": omens
    }


def outcome_word(success: bool | None) -> str:
    return _("Éxito") if success else _("Fallo")


def roll_words(name: str, label: Names, roll: CoreRoll) -> str:
    """«Lucía tira Acción: [5][☠][5] → 6»."""
    words = _("%(name)s tira %(label)s: %(dice)s → %(result)s") % {
        "name": name,
        "label": label.get(get_language() or "es"),
        "dice": dice_text(list(roll.dice)),
        "result": roll.dice_result,
    }
    omens = omens_words(roll.omens)
    return f"{words} · {omens}" if omens else words


def trait_choice(trait: NamedTrait, owner: str = "") -> Choice:
    words = f"{trait.name} +{trait.value}"
    if trait.supernatural:
        words += " · " + _("sobrenatural: 1 punto")
    return Choice(trait.name, f"{owner} · {words}" if owner else words)


def sheet_traits(sheet: PresagiosSheet) -> list[NamedTrait]:
    return [NamedTrait(t.name, t.value, t.supernatural) for t in sheet.traits]


def named_traits(sheet: PresagiosSheet, names: Iterable[str]) -> tuple[NamedTrait, ...]:
    """The traits a player names for a roll, from the sheet: a name the sheet lacks is refused."""
    found = []
    for name in names:
        trait = next((t for t in sheet_traits(sheet) if t.name == name), None)
        if trait is None:
            raise refuse(
                "trait_not_on_sheet",
                f"{sheet.name} no tiene el rasgo «{name}».",
                f"{sheet.name} has no trait '{name}'.",
            )
        found.append(trait)
    return tuple(found)


def check_accepted(proposed: Sequence[NamedTrait], accepted: Iterable[str]) -> None:
    names = {t.name for t in proposed}
    for name in accepted:
        if name not in names:
            raise refuse(
                "trait_not_proposed",
                f"El rasgo «{name}» no se propuso para esta tirada.",
                f"The trait '{name}' was not named for this roll.",
            )


def judged_words(name: str, proposed: Sequence[NamedTrait], chosen: NamedTrait | None) -> str:
    if not proposed:
        return ""
    if chosen is None:
        return _("El director no acepta los rasgos de %(name)s.") % {"name": name}
    return _("El director acepta el rasgo %(trait)s (+%(value)s) de %(name)s.") % {
        "trait": chosen.name,
        "value": chosen.value,
        "name": name,
    }


def proposed_words(name: str, traits: Sequence[NamedTrait]) -> str:
    return _("%(name)s propone sus rasgos: %(traits)s.") % {
        "name": name,
        "traits": ", ".join(f"{t.name} +{t.value}" for t in traits),
    }


# --- Pickers ----------------------------------------------------------------------------------------


def character_choices(table: Table) -> list[Choice]:
    """The campaign's approved characters, by name (NPCs marked), in a stable order."""
    shown = sorted((c for c in table.characters.values() if c.approved), key=lambda c: (c.is_npc, c.name, c.id))
    return [Choice(str(c.id), f"{c.name} ({_('PNJ')})" if c.is_npc else c.name) for c in shown]


def characteristic_choices(table: Table) -> list[Choice]:
    lang = get_language() or "es"
    return [Choice(key, characteristic_label(key, table.settings, lang)) for key in CHAR_KEYS]


QUALITY_NAMES: dict[QualityKind, Callable[[], str]] = {
    QualityKind.CONCEPT: lambda: _("Concepto"),
    QualityKind.HITO: lambda: _("Hito"),
    QualityKind.DESCRIPTOR: lambda: _("Descriptor"),
    QualityKind.COMPLICATION: lambda: _("Complicación"),
    QualityKind.WEAKNESS: lambda: _("Debilidad"),
}


def qualities_of(sheet: PresagiosSheet) -> dict[QualityKind, tuple[str, ...]]:
    concept = (sheet.concept,) if sheet.concept.strip() else ()
    return {
        QualityKind.CONCEPT: concept,
        QualityKind.HITO: sheet.hitos,
        QualityKind.DESCRIPTOR: sheet.descriptors,
        QualityKind.COMPLICATION: sheet.complications,
        QualityKind.WEAKNESS: sheet.weaknesses,
    }


def force_choices(table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    """The force form's pickers: whose quality (by name), which kind, the quality's text, and for a player
    the main character who pays (their own); a GM pays threat and gets no payer picker."""
    cast = [c for c in table.characters.values() if c.approved]
    texts: list[Choice] = []
    for c in sorted(cast, key=lambda c: c.id):
        for kind, values in qualities_of(load_sheet(c.sheet, c.name)).items():
            texts += [Choice(text, f"{c.name} · {QUALITY_NAMES[kind]()}: {text}") for text in values]
    payers = [] if policy.may_pay_with_threat(viewer) else own_main_characters(table, viewer)
    return {
        "quality_owner": character_choices(table),
        "quality": [Choice(str(kind), name()) for kind, name in QUALITY_NAMES.items()],
        "quality_text": texts,
        "activator": [Choice(str(c.id), c.name) for c in payers],
    }


def own_main_characters(table: Table, viewer: policy.Viewer) -> list[CharacterFacts]:
    return [
        c
        for c in sorted(table.characters.values(), key=lambda c: c.id)
        if c.approved and not c.is_npc and policy.controls_character(viewer, c)
    ]


# --- Paying a point before the click -----------------------------------------------------------------


def no_threat() -> Names:
    return in_both(lambda: _("No quedan puntos de amenaza."))


def refused_words(check: Callable[[], object]) -> Names | None:
    """The rules' own refusal as the reason a step is shown disabled (None: they allow it now), so what a page
    offers and what the step accepts are decided by one function."""
    try:
        check()
    except RulesError as refused:
        return Names(refused.message_es, refused.message_en)
    return None


def retry_unpayable(table: Table, character_id: int) -> Names | None:
    """Why a retry cannot be paid now: a main character pays 1 overcome point, the GMs 1 threat point for
    anyone else (only GMs take an NPC's retry, so only they read about the threat)."""
    character = table.character(character_id)
    sheet = load_sheet(character.sheet, character.name)
    if sheet.kind is Kind.PRINCIPAL:
        if sheet.overcome < 1:
            return in_both(lambda: _("%(name)s no tiene puntos de superación.") % {"name": character.name})
        return None
    return no_threat() if threat_now(table) < 1 else None


def quality_unpayable(table: Table, viewer: policy.Viewer | None) -> Names | None:
    """Why this viewer cannot pay a quality's point now: a GM with no threat, or a player whose main
    characters have no overcome points (None for the whole table: someone else may still pay)."""
    if viewer is None:
        return None
    if policy.may_pay_with_threat(viewer):
        return no_threat() if threat_now(table) < 1 else None
    mine = own_main_characters(table, viewer)
    if mine and all(load_sheet(c.sheet, c.name).overcome < 1 for c in mine):
        return in_both(lambda: _("No te quedan puntos de superación."))
    return None


# --- Activating a quality (§3.7) --------------------------------------------------------------------


def quality_check(sheet: PresagiosSheet, quality: QualityKind, text: str) -> None:
    values = qualities_of(sheet)[quality]
    if not values or (text.strip() and text.strip() not in values):
        raise refuse(
            "quality_not_on_sheet",
            f"{sheet.name} no tiene esa cualidad.",
            f"{sheet.name} has no such quality.",
            quality=str(quality),
        )


def activator_of(table: Table, viewer: policy.Viewer, wanted: int | None) -> CharacterFacts | None:
    """Who pays for a quality: a GM with threat (None), or the acting player's own main character."""
    if wanted is None:
        if policy.may_pay_with_threat(viewer):
            return None
        mine = own_main_characters(table, viewer)
        if len(mine) != 1:
            raise refuse(
                "activator_required",
                "Elige con qué personaje pagas el punto.",
                "Choose which character pays the point.",
            )
        return mine[0]
    character = table.character(wanted)
    if character.is_npc or not policy.controls_character(viewer, character):
        raise refuse(
            "not_your_character",
            "Solo pagas con los puntos de tu propio personaje.",
            "You only pay with your own character's points.",
        )
    return character


def force_op(params: ForceParams, payer: CharacterFacts | None, owner: CharacterFacts, against: bool) -> LedgerOp:
    """The payment (overcome or threat) and, against its owner, a main character's point (by the rules)."""
    ledger_params = {
        "activator_id": str(payer.id) if payer else None,
        "owner_id": str(owner.id),
        "quality": str(params.quality),
        "force": str(params.force),
        "against_owner": against,
    }
    return LedgerOp("force_outcome", ledger_params, payer.id if payer else None, "Cualidad", by_rules=True)


def activation(params: ForceParams, payer: CharacterFacts | None, owner: CharacterFacts, against: bool) -> Any:
    return QualityActivation(str(owner.id), params.quality, against, str(payer.id) if payer else None)


def force_words(
    params: ForceParams, payer: CharacterFacts | None, owner: CharacterFacts, result: Callable[[], str]
) -> Names:
    """«Lucía (1 punto de superación) activa la complicación de Hugo: Fallo forzado»."""

    def render() -> str:
        who = (
            _("%(name)s (1 punto de superación)") % {"name": payer.name}
            if payer
            else _("El director (1 punto de amenaza)")
        )
        text = f" «{params.quality_text.strip()}»" if params.quality_text.strip() else ""
        return _("%(who)s activa %(quality)s%(text)s de %(owner)s: %(result)s") % {
            "who": who,
            "quality": QUALITY_NAMES[params.quality]().lower(),
            "text": text,
            "owner": owner.name,
            "result": result(),
        }

    return in_both(render)


# --- Danger and threat ------------------------------------------------------------------------------


def danger_op(name: str, *, against_monster: bool = False) -> LedgerOp:
    return LedgerOp("declare_danger", {"against_monster": against_monster}, reason=name, by_rules=True)


def danger_line(before: int, after: int, table: Table) -> RecordLine:
    if before == after:
        return line(lambda: _("El director lo declara peligroso (sin coste)."))
    return threat_line(
        lambda: (
            _("El director lo declara peligroso: paga 1 punto de amenaza (%(before)s → %(after)s).")
            % {"before": before, "after": after}
        ),
        table,
    )


def refund_op(procedure_id: int) -> LedgerOp:
    return LedgerOp("refund_danger", {"flow_id": procedure_id}, reason="Cancelado", by_rules=True)


def omen_op(omens: int, threat_at_roll: int) -> LedgerOp:
    return LedgerOp("omen_check", {"omens": omens, "threat_at_roll": threat_at_roll}, reason="Presagios", by_rules=True)


def omen_lines(
    omens: int, threat_at_roll: int, hit: bool, after: int, table: Table, difficulty: int | None = None
) -> list[RecordLine]:
    """The omen check in words: the rise for whoever sees the threat (``after``: the threat once every point
    of the step moved), and for the GMs the secret difficulty and why the threat rose or not."""
    lines = []
    if hit:
        lines.append(
            threat_line(
                lambda: _("Los presagios hacen subir la amenaza en 1 (ahora %(after)s).") % {"after": after}, table
            )
        )

    def secret() -> str:
        facts = _("Amenaza al tirar: %(threat)s; %(omens)s; %(rise)s.") % {
            "threat": threat_at_roll,
            "omens": ngettext("%(n)s presagio", "%(n)s presagios", omens) % {"n": omens},
            "rise": _("la amenaza sube 1") if hit else _("la amenaza no sube"),
        }
        if difficulty is None:
            return facts
        return _("Dificultad secreta: %(difficulty)s.") % {"difficulty": difficulty} + " " + facts

    lines.append(line(secret, gm_only=True))
    return lines


def threat_gain_step(gain: ThreatGain, confirm: bool, table: Table) -> tuple[list[LedgerOp], list[RecordLine]]:
    """The GM confirms (or declines) +1 threat for a character out of the story (A-AMB-25)."""
    if not confirm:
        return [], [line(lambda: _("El director no sube la amenaza por la salida de %(name)s.") % {"name": gain.name})]
    op = LedgerOp("confirm_threat_gain", {"reason": "character_out"}, reason=gain.name, by_rules=True)
    words = threat_line(
        lambda: (
            _("El director sube la amenaza por la salida de %(name)s: %(before)s → %(after)s.")
            % {"name": gain.name, "before": threat_now(table), "after": threat_now(table) + 1}
        ),
        table,
    )
    return [op], [words]


# --- Damage and script protection (§3.5) ------------------------------------------------------------


class PendingDamage(BaseModel):
    """The damage a lost dangerous roll is about to deal: to whom, where, how much, and the threat the
    roll was made at (script protection may be judged at it, A-AMB-10)."""

    model_config = ConfigDict(frozen=True)

    target: int
    characteristic: CharKey
    amount: int
    threat_at_roll: int | None
    reason: str


def protection_threat(rules: PresagiosSettings, threat_at_roll: int | None) -> int | None:
    return threat_at_roll if rules.protection_check_time is ProtectionCheckTime.AT_ROLL else None


def damage_chooser(table: RulesTable, damage: PendingDamage, rules: PresagiosSettings, owner: Actor) -> Actor | None:
    """Who chooses between script protection and the damage: the main character's player, the GMs for a
    monster; None when nobody has a choice (protection inactive or mandatory, a secondary)."""
    sheet = table.character(str(damage.target))
    at = protection_threat(rules, damage.threat_at_roll)
    threat = table.threat if at is None else at
    if sheet.kind is Kind.PRINCIPAL:
        can = protection_active(threat, rules) and sheet.overcome >= 1
        mandatory = can and sheet.current_of(damage.characteristic) - damage.amount < 0
        return owner if can and not mandatory else None
    if sheet.kind is Kind.MONSTRUO:
        can = table.threat >= 1 and (not rules.monster_protection_cutoff or protection_active(threat, rules))
        return GM if can else None
    return None


def damage_op(damage: PendingDamage, protect: bool, rules: PresagiosSettings) -> LedgerOp:
    params = {
        "character_id": str(damage.target),
        "characteristic": damage.characteristic,
        "amount": damage.amount,
        "protect": protect,
        "protection_threat": protection_threat(rules, damage.threat_at_roll),
    }
    return LedgerOp("apply_damage", params, damage.target, damage.reason, by_rules=True)


def damage_line(outcome: DamageOutcome, name: str, before: int, table: Table) -> RecordLine:
    """«Daño físico 2 en Acción: Lucía (3 → 1)», or the protection that ignored it."""
    rules = rules_of(table)
    index = CHAR_KEYS.index(outcome.characteristic)
    kind = rules.characteristic_damage_kind[index].value
    label = label_of(outcome.characteristic, table)

    def render() -> str:
        if outcome.protected:
            how = _("obligatoria") if outcome.mandatory else _("elegida")
            return _("Protección de guión (%(how)s): %(name)s paga 1 punto e ignora %(amount)s de daño.") % {
                "how": how,
                "name": name,
                "amount": outcome.amount,
            }
        words = _("Daño %(kind)s %(amount)s en %(label)s: %(name)s (%(before)s → %(after)s).") % {
            "kind": DAMAGE_KINDS[kind](),
            "amount": outcome.amount,
            "label": label.get(get_language() or "es"),
            "name": name,
            "before": before,
            "after": before - outcome.amount,
        }
        if outcome.out_of_story:
            words += " " + _("%(name)s queda fuera de la historia.") % {"name": name}
        return words

    return line(render)


DAMAGE_KINDS: dict[str, Callable[[], str]] = {
    "físico": lambda: _("físico"),
    "social": lambda: _("social"),
    "mental": lambda: _("mental"),
}


def pending_threat_gain(outcome: DamageOutcome, character: CharacterFacts) -> ThreatGain | None:
    return ThreatGain(character_id=character.id, name=character.name) if outcome.threat_gain_proposed else None


def protect_choices() -> list[Choice]:
    return [
        Choice("true", _("Protección de guión: pagar 1 punto e ignorar todo el daño")),
        Choice("false", _("Aceptar el daño")),
    ]


def confirm_choices(gain: ThreatGain | None) -> list[Choice]:
    name = gain.name if gain else ""
    return [
        Choice("true", _("%(name)s ha salido de la historia: subir 1 la amenaza") % {"name": name}),
        Choice("false", _("No subir la amenaza")),
    ]
