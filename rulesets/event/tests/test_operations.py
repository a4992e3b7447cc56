"""Event: each operation through ``apply_operation``: the state after, the ledger entry, each refusal,
and the replay of the ledger; the sheet and pools fragments render what a player must see."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.template.loader import render_to_string

from campaigns import policy
from characters import services
from characters.models import Character, LedgerEntry
from rulesets.event.tests.sheet_fixtures import EventTable, build_event_table, valid_sheet
from systems.errors import RulesError


@pytest.fixture
def ev(db: None) -> EventTable:
    return build_event_table()


def _op(
    ev: EventTable, actor: Any, op: str, character: Character | None = None, reason: str = "", **params: Any
) -> Any:
    return services.apply_operation(
        actor=actor, campaign=ev.campaign, operation=op, params=params, character=character, reason=reason
    )


def _snapshot(ev: EventTable, character: Character | None = None) -> tuple[Any, ...]:
    sheet = Character.objects.get(pk=character.pk).sheet if character else None
    return sheet, services.rules_state(ev.campaign), LedgerEntry.objects.filter(campaign=ev.campaign).count()


def test_the_gm_opens_the_communal_pool_and_a_player_takes_a_die(ev: EventTable) -> None:
    valy = ev.approved()
    entry = _op(ev, ev.gm, "open_communal_pool", reason="Empieza la sesión 2", dice=3)
    assert services.rules_state(ev.campaign)["communal"] == 3
    assert (entry.operation, entry.actor, entry.reason) == ("open_communal_pool", ev.gm, "Empieza la sesión 2")
    assert entry.before["campaign"] == {"communal": 0} and entry.after["campaign"] == {"communal": 3}
    assert entry.changes == {"campaign.communal": [0, 3]}
    entry = _op(ev, ev.ana, "take_communal_die", valy, reason="Saltar el muro")
    assert services.rules_state(ev.campaign)["communal"] == 2  # vector 127
    assert (entry.character, entry.actor, entry.changes) == (valy, ev.ana, {"campaign.communal": [3, 2]})
    entry = _op(ev, ev.gm, "open_communal_pool", dice=4)
    assert entry.changes == {"campaign.communal": [2, 4]}  # set, not topped up (vector 131)


def test_communal_refusals_change_nothing(ev: EventTable) -> None:
    valy = ev.approved()
    snap = _snapshot(ev, valy)
    with pytest.raises(RulesError) as info:
        _op(ev, ev.ana, "take_communal_die", valy)
    assert info.value.code == "COMMUNAL_EMPTY"  # vector 129
    _op(ev, ev.gm, "open_communal_pool", dice=2)
    snap = _snapshot(ev, valy)
    for params, code in (({"dice": 2}, "ONE_COMMUNAL_DIE"), ({"npc": True}, "NPC_NOT_ALLOWED")):
        with pytest.raises(RulesError) as info:
            _op(ev, ev.gm, "take_communal_die", valy, **params)
        assert info.value.code == code  # vectors 128, 133
    assert _snapshot(ev, valy) == snap


def test_communal_permissions(ev: EventTable) -> None:
    valy, khan = ev.approved(), ev.approved(ev.bruno, name="Khan")
    _op(ev, ev.gm, "open_communal_pool", dice=2)
    snap = _snapshot(ev, valy)
    with pytest.raises(PermissionDenied):
        _op(ev, ev.ana, "open_communal_pool", dice=9)  # GM only
    with pytest.raises(PermissionDenied):
        _op(ev, ev.ana, "take_communal_die", khan)  # someone else's character
    with pytest.raises(PermissionDenied):
        _op(ev, ev.ana, "take_communal_die")  # a player takes for a character of theirs
    with pytest.raises(PermissionDenied):
        _op(ev, ev.reader, "take_communal_die", valy)
    assert _snapshot(ev, valy) == snap


def test_the_communal_pool_is_off_by_default(db: None) -> None:
    ev = build_event_table(rules={})
    with pytest.raises(RulesError) as info:
        _op(ev, ev.gm, "open_communal_pool", dice=3)
    assert info.value.code == "COMMUNAL_DISABLED"


def test_choose_talent(ev: EventTable) -> None:
    valy = ev.approved()
    entry = _op(ev, ev.ana, "choose_talent", valy, skill="Atletismo")
    assert Character.objects.get(pk=valy.pk).sheet["talent"] == "atletismo"
    assert entry.before["characters"][str(valy.pk)]["talent"] is None
    assert entry.after["characters"][str(valy.pk)]["talent"] == "atletismo"
    assert entry.changes == {}
    snap = _snapshot(ev, valy)
    with pytest.raises(RulesError) as info:
        _op(ev, ev.ana, "choose_talent", valy, skill="Intimidar")
    assert info.value.code == "TALENT_ALREADY_CHOSEN"
    assert _snapshot(ev, valy) == snap


def test_choose_talent_refusals(ev: EventTable) -> None:
    valy, khan = ev.approved(), ev.approved(ev.bruno, name="Khan")
    snap = _snapshot(ev, valy)
    with pytest.raises(RulesError) as info:
        _op(ev, ev.ana, "choose_talent", valy, skill="Pintar")
    assert info.value.code == "UNKNOWN_SKILL"
    with pytest.raises(PermissionDenied):
        _op(ev, ev.ana, "choose_talent", khan, skill="Atletismo")
    assert _snapshot(ev, valy) == snap
    draft = ev.draft(ev.carla, valid_sheet(), name="Sin aprobar")
    with pytest.raises(PermissionDenied):  # the owner, before approval
        _op(ev, ev.carla, "choose_talent", draft, skill="Atletismo")
    with pytest.raises(ValidationError):  # even a GM: the sheet of an unapproved character is not in play
        _op(ev, ev.gm, "choose_talent", draft, skill="Atletismo")
    assert LedgerEntry.objects.filter(character=draft).count() == 0


def test_progress_window_pick_and_expiry(ev: EventTable) -> None:
    valy = ev.approved()
    with pytest.raises(PermissionDenied):
        _op(ev, ev.ana, "open_progress", valy, window=1)
    snap = _snapshot(ev, valy)
    with pytest.raises(RulesError) as info:
        _op(ev, ev.ana, "add_progress_pick", valy, kind="IMPROVEMENT", skill="Intimidar")
    assert info.value.code == "NO_PROGRESS_TOKEN"
    assert _snapshot(ev, valy) == snap
    _op(ev, ev.gm, "open_progress", valy, reason="Fin del arco", window=1)
    entry = _op(ev, ev.ana, "add_progress_pick", valy, kind="IMPROVEMENT", skill="Intimidar")
    sheet = Character.objects.get(pk=valy.pk).sheet
    assert [s["improvements"] for s in sheet["skills"] if s["name"] == "Intimidar"] == [1]
    assert entry.changes == {f"character.{valy.pk}.picks": [6, 7]}  # vector 152: 7 picks, beyond 6
    with pytest.raises(RulesError) as info:
        _op(ev, ev.ana, "add_progress_pick", valy, kind="NEW_SKILL", skill="Nadar")
    assert info.value.code == "PROGRESS_ALREADY_USED"  # vector 153
    _op(ev, ev.gm, "expire_progress", valy)
    assert Character.objects.get(pk=valy.pk).sheet["progress_window"] is None
    with pytest.raises(PermissionDenied):
        _op(ev, ev.ana, "expire_progress", valy)


def test_a_progress_pick_subject_to_veto_needs_the_vote(ev: EventTable) -> None:
    ev.set_rules(progress={"enabled": True, "subject_to_veto": True})
    valy = ev.approved()
    _op(ev, ev.gm, "open_progress", valy, window=1)
    snap = _snapshot(ev, valy)
    with pytest.raises(RulesError) as info:
        _op(ev, ev.ana, "add_progress_pick", valy, kind="NEW_SKILL", skill="Nadar")
    assert info.value.code == "PICK_NEEDS_VOTE"
    assert _snapshot(ev, valy) == snap


@pytest.mark.parametrize(
    ("op", "params", "code"),
    [
        (
            "write_reaction",
            {"session": 1, "text": "x", "nonce": "12345678", "committed_at": "t"},
            "operation_needs_roll",
        ),
        ("reveal_reaction", {}, "operation_needs_roll"),
        ("value_reaction", {"value": 2}, "operation_needs_roll"),
        ("use_reaction", {}, "operation_needs_roll"),
        ("expire_reaction", {}, "operation_needs_roll"),
        ("answer_who_am_i", {"text": "Soy otra."}, "operation_in_creation_flow"),
        ("add_creation_pick", {"kind": "NEW_SKILL", "skill": "Nadar"}, "operation_in_creation_flow"),
        ("finish_creation", {}, "operation_in_creation_flow"),
    ],
)
def test_operations_of_other_flows_are_refused_with_a_clear_code(
    ev: EventTable, op: str, params: dict[str, Any], code: str
) -> None:
    valy = ev.approved()
    snap = _snapshot(ev, valy)
    with pytest.raises(RulesError) as info:
        _op(ev, ev.gm, op, valy, **params)
    assert info.value.code == code
    assert info.value.message_es and info.value.message_en
    assert _snapshot(ev, valy) == snap


def test_the_ledger_replays_to_the_stored_state(ev: EventTable) -> None:
    valy = ev.approved()
    _op(ev, ev.gm, "open_communal_pool", dice=3)
    _op(ev, ev.ana, "take_communal_die", valy)
    _op(ev, ev.gm, "open_progress", valy, window=1)
    _op(ev, ev.ana, "add_progress_pick", valy, kind="NEW_SKILL", skill="Nadar")
    _op(ev, ev.ana, "choose_talent", valy, skill="Nadar")
    _op(ev, ev.gm, "open_communal_pool", dice=5)
    _op(ev, ev.ana, "take_communal_die", valy)
    entries = list(LedgerEntry.objects.filter(campaign=ev.campaign).order_by("id"))
    assert entries[-1].after["campaign"] == services.rules_state(ev.campaign)
    last_sheet = next(e for e in reversed(entries) if str(valy.pk) in e.after["characters"])
    assert last_sheet.after["characters"][str(valy.pk)] == Character.objects.get(pk=valy.pk).sheet
    stored = {
        "campaign.communal": services.rules_state(ev.campaign)["communal"],
        f"character.{valy.pk}.picks": 7,
    }
    for key, value in stored.items():
        moved = [e.changes[key] for e in entries if key in e.changes]
        assert moved
        assert moved[0][0] + sum(after - before for before, after in moved) == value


# --- The fragments --------------------------------------------------------------------------------


def _sheet_html(ev: EventTable, character: Character, user: Any, error: str | None = None) -> str:
    viewer = policy.viewer_for(user, ev.campaign)
    from characters.selectors import operation_keys

    owner_ops, gm_ops = operation_keys(ev.campaign, viewer, character)
    return render_to_string(
        "event/sheet.html",
        {
            "character": character,
            "sheet": character.sheet,
            "campaign": ev.campaign,
            "viewer": viewer,
            "owner_ops": owner_ops,
            "gm_ops": gm_ops,
            "operation_error": error,
            "settings": services.campaign_settings(ev.campaign),
        },
    )


def test_the_sheet_reads_like_paper(ev: EventTable) -> None:
    fresh = ev.draft(sheet={})
    html = _sheet_html(ev, fresh, ev.ana)
    assert "¿Quién soy?" in html and "Sin responder." in html and "Todavía no hay habilidades." in html
    valy = ev.approved()
    _op(ev, ev.gm, "open_progress", valy, window=1)
    _op(ev, ev.ana, "add_progress_pick", valy, kind="IMPROVEMENT", skill="Atletismo")
    _op(ev, ev.ana, "choose_talent", valy, skill="Atletismo")
    valy.refresh_from_db()
    html = _sheet_html(ev, valy, ev.ana)
    assert "Atletismo+++" in html and "5 dados" in html  # 1 base + 1 + 3 improvements
    assert "Resistencia+" in html and "3 dados" in html
    assert "Intimidar" in html and "2 dados" in html
    assert "Talento" in html and "ladrona de guante blanco" in html
    assert "Coger un dado comunal" in html  # the owner's spend, in place
    assert "Abrir progreso" not in html  # a GM's control
    gm_html = _sheet_html(ev, valy, ev.gm)
    assert "Abrir progreso" in gm_html and "Caducar progreso" in gm_html
    assert "Muy difícil (6)" in html


def test_the_pools_fragment_shows_the_communal_dice(ev: EventTable) -> None:
    _op(ev, ev.gm, "open_communal_pool", dice=3)
    for user, gm_control in ((ev.gm, True), (ev.ana, False)):
        viewer = policy.viewer_for(user, ev.campaign)
        html = render_to_string(
            "event/pools.html",
            {
                "campaign": ev.campaign,
                "state": services.rules_state(ev.campaign),
                "pools": {"campaign.communal": 3},
                "viewer": viewer,
                "gm_ops": {"open_communal_pool", "take_communal_die"} if viewer.is_gm else set(),
                "operation_error": None,
            },
        )
        assert "Reserva comunal" in html and "3 dados en la reserva" in html
        assert ("Abrir la reserva comunal" in html) is gm_control
