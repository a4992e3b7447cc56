"""Unknown parameters are refused, never dropped (issue 22): every procedure's opening and step params and
every roll kind's input model forbid keys they do not read (``extra="forbid"``, nested models too), the
registry publishes each step's JSON schema with ``additionalProperties: false``, and a key nobody reads is
answered with an error that names it."""

from __future__ import annotations

import typing
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from pydantic import BaseModel

from rolls.services import RollSpec, create_post_with_rolls
from rulesets import registry
from rulesets.presagios.tests.rolls_fixtures import RollsTable, build, challenge, set_sheet, step
from tests.rulesets.shipped import SHIPPED_GAMES


def _models(annotation: Any) -> typing.Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _models(argument)


def _lenient(model: type[BaseModel], seen: set[type[BaseModel]] | None = None) -> list[str]:
    """The models under ``model`` (itself included) that would accept a key they do not read."""
    seen = set() if seen is None else seen
    if model in seen:
        return []
    seen.add(model)
    found = [] if model.model_config.get("extra") == "forbid" else [model.__qualname__]
    for field in model.model_fields.values():
        for inner in _models(field.annotation):
            found += _lenient(inner, seen)
    return found


def _shipped() -> list[tuple[str, Any]]:
    return [(key, plugin) for key, plugin in registry.plugins().items() if key in SHIPPED_GAMES]


def _step_models() -> list[tuple[str, type[BaseModel]]]:
    found = []
    for key, plugin in _shipped():
        for name, procedure in plugin.procedures.items():
            found.append((f"{key}/{name}/opening", procedure.opening.params))
            found += [(f"{key}/{name}/{step.key}", step.params) for step in procedure.steps]
    return found


def test_every_procedure_opening_and_step_refuses_keys_it_does_not_read() -> None:
    models = _step_models()
    assert len(models) > 16 * 2  # every kind's opening and steps
    lenient = {where: found for where, model in models if (found := _lenient(model))}
    assert lenient == {}


def test_every_roll_kind_declares_an_input_model_that_refuses_keys_it_does_not_read() -> None:
    lenient = {}
    for key, plugin in _shipped():
        for kind in plugin.rules.roll_kinds:
            model = plugin.rolls.input_model(kind.key)
            if found := _lenient(model):
                lenient[f"{key}/{kind.key}"] = found
    assert lenient == {}


def test_the_registry_publishes_each_steps_params_schema_without_additional_properties() -> None:
    kinds = 0
    for key, _plugin in _shipped():
        for name, schemas in registry.procedure_params_schemas(key).items():
            kinds += 1
            procedure = registry.plugin(key).procedure(name)
            assert set(schemas["steps"]) == {step.key for step in procedure.steps}
            for schema in [schemas["opening"], *schemas["steps"].values()]:
                assert schema["additionalProperties"] is False, (key, name, schema.get("title"))
                for nested in schema.get("$defs", {}).values():
                    if nested.get("type") == "object":
                        assert nested.get("additionalProperties") is False, (key, name, nested.get("title"))
    assert kinds == 16


@pytest.mark.django_db
def test_presagios_challenge_roll_refuses_the_trait_key_it_no_longer_reads_naming_it() -> None:
    """The finding: the roll step took ``{"trait": ...}`` (it reads ``traits``) and silently dropped it."""
    t: RollsTable = build(prefix="unk_")
    set_sheet(t.lucia, current=[3, 3, 2])
    flow = challenge(t, t.lucia, 7, challenge="Saltar el foso")
    with pytest.raises(ValidationError) as exc:
        step(flow, t.player, "roll", {"trait": "Correr"}, dice=[5, 1, 5])
    assert exc.value.message_dict == {"params": ["Parámetro desconocido: «trait»."]}
    flow.refresh_from_db()
    assert not flow.rolls.exists() and flow.state["machine"]["stage"] != "rolled"


@pytest.mark.django_db
def test_a_roll_in_a_post_refuses_an_unknown_key_naming_it() -> None:
    t: RollsTable = build(prefix="unkr_")
    spec = RollSpec(kind="roll", data={"characteristic": "c1", "traits": ["Correr"]}, character_id=t.lucia.pk)
    with pytest.raises(ValidationError) as exc:
        create_post_with_rolls(author=t.player, scene=t.scene, body="Corro.", rolls=[spec])
    assert exc.value.message_dict == {"rolls": ["Parámetro desconocido: «traits»."]}
    assert not t.scene.posts.exists()
