"""Every read of characters, their ledgers and the campaign pools, with its query shape.

Lists filter with the policy's Q objects (``policy.characters_visible_q``) so they never fetch what the
viewer may not see, and use a constant number of queries whatever their length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import Http404

from campaigns import policy
from campaigns.models import Campaign, Post, Scene
from campaigns.policy import AnyUser, Viewer
from characters import services
from characters.models import CampaignRulesState, Character, CharacterStatus, LedgerEntry
from rulesets import registry
from rulesets.kit.sheets import SheetBinding
from systems.registry import Operation


def binding_of(ruleset_key: str) -> SheetBinding:
    """The ruleset's sheet binding."""
    return registry.plugin(ruleset_key).sheet


def characters_visible(viewer: Viewer) -> QuerySet[Character]:
    """The campaign's characters whose public parts the viewer may see: PCs first, then NPCs, by name;
    each with its owner (one query)."""
    return (
        Character.objects.filter(policy.characters_visible_q(viewer))
        .select_related("owner")
        .order_by("is_npc", "name", "id")
    )


def character_for(user: AnyUser | None, character_id: int) -> tuple[Character, Viewer]:
    """The character (with its campaign and owner) and the viewer; 404 when it does not exist *for this
    user* (a private campaign, or someone else's draft)."""
    character = Character.objects.select_related("campaign", "owner").filter(pk=character_id).first()
    if character is None:
        raise Http404
    viewer = policy.viewer_for(user, character.campaign)
    if not policy.may_see_character(viewer, character):
        raise Http404
    return character, viewer


def may_see_private(viewer: Viewer, character: Character) -> bool:
    return policy.may_see_private_parts(viewer, character, character.campaign.sheets_open)


def character_ledger(character: Character) -> QuerySet[LedgerEntry]:
    """A character's ledger entries, newest first (each with its actor: one query per page)."""
    return character.ledger.select_related("actor", "character").order_by("-id")


def campaign_ledger(campaign: Campaign) -> QuerySet[LedgerEntry]:
    """Every ledger entry of a campaign, newest first (GMs only: the caller checks the policy)."""
    return LedgerEntry.objects.filter(campaign=campaign).select_related("actor", "character").order_by("-id")


def operation_keys(campaign: Campaign, viewer: Viewer, character: Character | None) -> tuple[set[str], set[str]]:
    """``(owner_ops, gm_ops)``: the operation keys this viewer may apply, split by who the ruleset lets
    ask for them (players' marks and spends; the GMs' awards and adjustments). No queries."""
    ruleset = registry.rules(campaign.ruleset)
    binding = binding_of(campaign.ruleset)
    owner_ops: set[str] = set()
    gm_ops: set[str] = set()
    for op in ruleset.operations:
        who = binding.who_may(op)
        if not policy.may_apply_operation(viewer, character, who):
            continue
        (owner_ops if "owner" in who else gm_ops).add(op.key)
    return owner_ops, gm_ops


def operation_catalogue(ruleset_key: str) -> list[tuple[Operation, frozenset[str]]]:
    """Each operation of the ruleset with who may ask for it."""
    binding = binding_of(ruleset_key)
    return [(op, binding.who_may(op)) for op in registry.rules(ruleset_key).operations]


@dataclass(frozen=True)
class PoolsView:
    """The campaign pools as a viewer may see them: ``visible`` False hides them entirely."""

    visible: bool
    public: bool
    state: dict[str, Any]
    pools: dict[str, int]


def campaign_pools(campaign: Campaign, viewer: Viewer) -> PoolsView:
    """The campaign rules state and its numeric pools (``campaign.<pool>`` keys only: a sheet's numbers go
    with its private parts). Hidden from non-GMs when the ruleset keeps them for the GMs."""
    binding = binding_of(campaign.ruleset)
    public = binding.pools_public(services.campaign_settings(campaign))
    if not policy.may_see_campaign_pools(viewer, public=public):
        return PoolsView(visible=False, public=public, state={}, pools={})
    stored = CampaignRulesState.objects.filter(campaign=campaign).values_list("state", flat=True).first()
    state = stored if stored is not None else binding.initial_campaign_state(services.campaign_settings(campaign))
    values = binding.pool_values(state, {})
    pools = {key: value for key, value in values.items() if key.startswith("campaign.")}
    return PoolsView(visible=True, public=public, state=state, pools=pools)


# --- The ledger as a viewer may read it ------------------------------------------------------------


@dataclass(frozen=True)
class LedgerLine:
    """One ledger entry trimmed to what the viewer may see, with readable names."""

    entry: LedgerEntry
    operation_name: str
    before: dict[str, Any]
    after: dict[str, Any]
    changes: dict[str, list[int]]
    change_lines: list[tuple[str, int, int]]


def _names_by_key(ruleset_key: str, language: str) -> tuple[dict[str, str], dict[str, str]]:
    ruleset = registry.rules(ruleset_key)
    ops = {op.key: op.names.get(language) for op in ruleset.operations}
    flow_ops = getattr(binding_of(ruleset_key), "flow_operations", ())  # a flow's own operations (DRYH conflicts)
    ops.update({op.key: op.names.get(language) for op in flow_ops})
    pools = {spec.key: spec.names.get(language) for spec in (*ruleset.pools, *ruleset.tracks)}
    return ops, pools


def _pool_label(key: str, pool_names: dict[str, str], character_names: dict[int, str]) -> str:
    parts = key.split(".")
    name = pool_names.get(parts[-1], parts[-1].replace("_", " "))
    if parts[0] == "character" and len(parts) >= 3 and parts[1].isdigit():
        who = character_names.get(int(parts[1]))
        return f"{name} ({who})" if who else name
    return name


def visible_entry(
    entry: LedgerEntry, viewer: Viewer, pools_public: bool
) -> tuple[dict[str, Any], dict[str, Any], dict[str, list[int]]]:
    """``(before, after, changes)`` of an entry as the viewer may see them. GMs see everything; others see
    the sheet of the entry's own character (whose ledger they may read) and the campaign state only when
    the ruleset shows its pools to the table (Presagios' threat stays hidden)."""
    if policy.may_see_whole_ledger_entry(viewer):
        return entry.before, entry.after, entry.changes
    allowed = {str(entry.character_id)} if entry.character_id else set()

    def trim(state: dict[str, Any]) -> dict[str, Any]:
        sheets = state.get("characters") or {}
        return {
            "campaign": state.get("campaign") if pools_public else None,
            "characters": {key: value for key, value in sheets.items() if key in allowed},
        }

    def shown(key: str) -> bool:
        parts = key.split(".")
        if parts[0] == "campaign":
            return pools_public
        return parts[0] == "character" and len(parts) >= 2 and parts[1] in allowed

    changes = {key: value for key, value in (entry.changes or {}).items() if shown(key)}
    return trim(entry.before or {}), trim(entry.after or {}), changes


def shape_ledger(
    entries: Any, viewer: Viewer, campaign: Campaign, language: str, character: Character | None = None
) -> list[LedgerLine]:
    """Ledger entries (already fetched with their actor and character) as lines for a page. No queries."""
    op_names, pool_names = _names_by_key(campaign.ruleset, language)
    public = binding_of(campaign.ruleset).pools_public(services.campaign_settings(campaign))
    lines = []
    for entry in entries:
        before, after, changes = visible_entry(entry, viewer, public)
        character_names = {entry.character_id: entry.character.name} if entry.character_id and entry.character else {}
        lines.append(
            LedgerLine(
                entry=entry,
                operation_name=op_names.get(entry.operation, entry.operation),
                before=before,
                after=after,
                changes=changes,
                change_lines=[
                    (_pool_label(key, pool_names, character_names), value[0], value[1])
                    for key, value in changes.items()
                ],
            )
        )
    return lines


# --- The table's state on the scene page ------------------------------------------------------------


@dataclass(frozen=True)
class PanelCharacter:
    """A character of the scene on the scene's panel; ``sheet`` only when the viewer may see its private
    parts (its tracks and points), else None."""

    character: Character
    sheet: dict[str, Any] | None


@dataclass(frozen=True)
class ScenePanel:
    """What a game's scene panel shows: the campaign pools and the scene's characters with their tracks."""

    pools: PoolsView
    characters: list[PanelCharacter]


def scene_panel(scene: Scene, viewer: Viewer) -> ScenePanel:
    """The campaign pools, and the characters in the scene (every approved player character the viewer may
    see, and the NPCs who spoke in this scene), each sheet only as far as the policy lets the viewer read it.
    Three queries."""
    campaign = scene.campaign
    spoke = Post.objects.filter(scene=scene, character_id=OuterRef("pk"), deleted_at__isnull=True)
    characters = (
        characters_visible(viewer)
        .filter(campaign=campaign, status=CharacterStatus.APPROVED)
        .filter(Q(is_npc=False) | Q(Exists(spoke)))
    )
    shown = [
        PanelCharacter(c, c.sheet if policy.may_see_private_parts(viewer, c, campaign.sheets_open) else None)
        for c in characters
    ]
    return ScenePanel(pools=campaign_pools(campaign, viewer), characters=shown)
