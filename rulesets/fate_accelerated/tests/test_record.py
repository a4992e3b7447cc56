"""The record each FAE procedure leaves in the thread (issue 10): who did what, the dice, the outcome in the
game's words with FAE's ladder (spec §6.7.3), the GM's narration, the ledger in words, in Spanish and
English; a secret difficulty only in GM-only lines. Also who may act by state, and pickers that refuse a
value they did not offer."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from campaigns import policy
from rolls import runner
from rolls.models import Flow, FlowLine
from rolls.selectors import flow_views
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_accelerated.tests.roll_fixtures import FaeScene, build_scene, fate, fp, step
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def fae(db: None) -> FaeScene:
    return build_scene()


def _lines(flow: Flow, *, gm_only: bool | None = None) -> list[FlowLine]:
    lines = FlowLine.objects.filter(flow=flow).order_by("position")
    return list(lines if gm_only is None else lines.filter(gm_only=gm_only))


def _texts(flow: Flow, language: str = "es") -> list[str]:
    return [line.text_en if language == "en" else line.text_es for line in _lines(flow)]


def _seen_by(fae: FaeScene, user: object, flow: Flow) -> list[str]:
    viewer = policy.viewer_for(user, fae.table.campaign)  # type: ignore[arg-type]
    return [line.text_es for line in flow_views(viewer, [flow], "es", with_actions=False)[0].lines]


def _overcome_post(fae: FaeScene, faces: str, difficulty: int) -> None:
    create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Salto entre los barcos.",
        rolls=[
            RollSpec(kind="overcome", data={"approach": "quick", "difficulty": difficulty}, character_id=fae.ana.pk)
        ],
        dice=fate(faces),
    )


def test_resolver_ends_the_record_with_the_outcome_in_ladder_words(fae: FaeScene) -> None:
    _overcome_post(fae, "0000", 1)  # quick +2 vs Normal (+1): success by 1
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={})
    flow = step(
        fae.player,
        flow,
        "invoke",
        {"aspect": f"character:{fae.ana.pk}:aspect:0", "payment": "fate_point", "justification": "Veo el cabo."},
    )
    flow = step(fae.gm, flow, "settle", {"note": "La pasarela cruje tras ella."})
    es, en = _texts(flow, "es"), _texts(flow, "en")
    assert es[0] == "Ana tira «Superar» con su estilo Rápido."
    assert es[1] == "Total Bueno (+2) contra Normal (+1) · Éxito (1 aumento)"
    invoked = "Ana invoca «Atenta a los detalles» (+2, 1 punto de destino). "
    assert es[2] == invoked + "Total Enorme (+4) contra Normal (+1) · Éxito crítico (3 aumentos)"
    assert es[3:] == [
        "Resultado de Ana (Superar): Enorme (+4) contra Normal (+1) · Éxito crítico (3 aumentos)",
        "Consigue su objetivo.",
        "Ana gana un impulso: «de Ana».",
        "Narración del DJ: La pasarela cruje tras ella.",
    ]
    assert en[3] == "Result for Ana (Overcome): Great (+4) against Average (+1) · Success with style (3 shifts)"
    assert en[0] == "Ana rolls “Overcome” with their Quick approach."
    assert "Consigue su objetivo." in es and "Reaches the goal." in en
    final = _lines(flow)[3]
    assert final.rolls == [flow.rolls.get().pk]  # the dice are shown with the outcome
    # The FAE ladder: Grande is +3 here (spec §6.7.3), Enorme +4; never SotC's Grande (+4).
    assert not any("Grande (+4)" in text for text in es)


def test_a_secret_difficulty_is_in_gm_only_lines_and_never_reaches_a_player(fae: FaeScene) -> None:
    params = {"character": fae.ana.pk, "action": "overcome", "difficulty": 3, "difficulty_secret": "true"}
    flow = runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="action", params=params)
    flow = step(fae.player, flow, "roll", {"approach": "quick"}, dice=fate("+000"))  # 3 vs 3: tie
    flow = step(fae.gm, flow, "settle", {})
    secret = [line.text_es for line in _lines(flow, gm_only=True)]
    assert secret == [
        "Dificultad secreta: Grande (+3)",
        "Resultado de Ana (Superar): Grande (+3) contra Grande (+3) · Empate",
    ]
    public = [line.text_es for line in _lines(flow, gm_only=False)]
    assert "Resultado de Ana (Superar): Grande (+3) · Empate" in public
    assert "Ana declara «Superar» contra una dificultad secreta." in public
    for user in (fae.player, fae.player2, fae.table.reader):
        seen = " ".join(_seen_by(fae, user, flow))
        assert "contra Grande" not in seen and "Dificultad secreta:" not in seen
    assert any(text == "Dificultad secreta: Grande (+3)" for text in _seen_by(fae, fae.gm, flow))


def test_an_attack_records_the_defence_the_hit_and_the_absorption(fae: FaeScene) -> None:
    params = {"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk}
    flow = runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="action", params=params)
    flow = step(fae.gm, flow, "roll", {"approach": "forceful"}, dice=fate("++++"))
    flow = step(fae.player, flow, "defend", {"approach": "quick"}, dice=fate("0000"))
    flow = step(fae.gm, flow, "settle", {})
    flow = step(fae.player, flow, "absorb", {"box": "2", "slots": "mild", "text_mild": "Tobillo torcido"})
    es = _texts(flow)
    assert es[0] == "Bruno declara «Atacar» contra Ana, que se defenderá."
    assert "Ana se defiende con su estilo Rápido." in es
    assert "Resultado de Bruno (Atacar): Fantástico (+6) contra Bueno (+2) · Éxito crítico (4 aumentos)" in es
    assert "Ana recibe un impacto de 4 aumentos." in es
    assert es[-1] == "Ana absorbe 4 aumentos con la casilla 2 y consecuencia leve «Tobillo torcido»."
    assert _texts(flow, "en")[-1] == "Ana absorbs 4 shifts with box 2 and mild consequence “Tobillo torcido”."


def test_compel_and_concession_records_name_the_fate_points(fae: FaeScene) -> None:
    params = {
        "target": fae.ana.pk,
        "aspect": f"character:{fae.ana.pk}:trouble",
        "kind": "decision",
        "proposal": "Te quedas con tu hermano.",
    }
    flow = runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="compel", params=params)
    flow = step(fae.player, flow, "accept")
    flow = step(fae.gm, flow, "deliver")
    assert _texts(flow) == [
        "El DJ ofrece un forzado de decisión a Ana sobre «Debo proteger a mi hermano»: Te quedas con tu hermano.",
        "Ana acepta el forzado.",
        "Ana gana 1 punto de destino.",
    ]
    assert _texts(flow, "en")[-1] == "Ana gains 1 fate point."
    concession = runner.start_procedure(
        actor=fae.player, scene=fae.scene, kind="concession", params={"character": fae.ana.pk, "terms": "Huyo."}
    )
    concession = step(fae.gm, concession, "confirm")
    assert _texts(concession) == ["Ana se rinde: Huyo.", "Ana se rinde y gana 1 punto de destino."]


def test_who_may_act_follows_the_state(fae: FaeScene) -> None:
    params = {"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk}
    flow = runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="action", params=params)

    def offered(user: object) -> set[str]:
        viewer = policy.viewer_for(user, fae.table.campaign)  # type: ignore[arg-type]
        return {a.step for a in flow_views(viewer, [flow], "es")[0].actions}

    assert offered(fae.gm) == {"roll"} and offered(fae.player) == set()
    flow = step(fae.gm, flow, "roll", {"approach": "forceful"}, dice=fate("0000"))
    assert offered(fae.gm) == set() and offered(fae.player) == {"defend"}
    flow = step(fae.player, flow, "defend", {"approach": "quick"}, dice=fate("0000"))
    assert offered(fae.gm) == {"invoke", "settle"} and offered(fae.player) == {"invoke"}
    assert offered(fae.table.reader) == set()
    flow = step(
        fae.player, flow, "invoke", {"aspect": f"character:{fae.ana.pk}:trouble", "justification": "¡Mi hermano!"}
    )
    assert offered(fae.gm) == {"invoke", "veto", "settle"}
    flow = step(fae.gm, flow, "veto", {"roll": "defense"})
    assert _texts(flow)[-2:] == [
        "El DJ veta la invocación de «Debo proteger a mi hermano». Total Bueno (+2) contra Bueno (+2) · Empate",
        "Ana recupera 1 punto de destino.",
    ]
    assert _texts(flow, "en")[-1] == "Ana gets 1 fate point back."
    flow = step(
        fae.player, flow, "invoke", {"aspect": f"character:{fae.ana.pk}:trouble", "justification": "¡Otra vez!"}
    )
    with pytest.raises(PermissionDenied):
        step(fae.player2, flow, "settle")
    assert fp(fae.ana) == 2


def test_pickers_refuse_values_they_did_not_offer(fae: FaeScene) -> None:
    _overcome_post(fae, "0000", 2)
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={})
    viewer = policy.viewer_for(fae.player, fae.table.campaign)
    invoke = next(a for a in flow_views(viewer, [flow], "es")[0].actions if a.step == "invoke")
    labels = {c.label for c in invoke.choices["aspect"]}
    assert "Ana: «Espía de la Corona»" in labels and not any("(id)" in label for label in labels)
    for aspect, code in (
        ("Espía de la Corona", "params"),  # the words, not a reference: malformed
        (f"character:{fae.ana.pk}:aspect:9", "aspect_not_offered"),  # no such aspect on her sheet
        ("scene:999", "aspect_not_offered"),
    ):
        with pytest.raises((RulesError, ValidationError)) as refused:  # never a silent +0
            step(fae.player, flow, "invoke", {"aspect": aspect, "justification": "Porque sí."})
        error = refused.value
        if isinstance(error, RulesError):
            assert error.code == code
        else:  # a malformed reference is a params error (400)
            assert isinstance(error, ValidationError) and code == "params" and "params" in error.message_dict
    with pytest.raises(ValidationError) as missing:  # the words of the invocation are required
        step(fae.player, flow, "invoke", {"aspect": f"character:{fae.ana.pk}:trouble"})
    assert "justification" in str(missing.value)
    assert fp(fae.ana) == 3
