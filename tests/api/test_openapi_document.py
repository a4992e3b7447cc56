"""The OpenAPI document as the programs that read it see it: openapi-spec-validator finds no error, bodies
are JSON (multipart only for uploads), every error an operation can answer is documented with the codes
the server sends, and procedures are typed per procedure from the rulesets' step tables."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from campaigns.error_codes import BY_STATUS, CATALOGUE, STEP_NOT_AVAILABLE, STEP_UNAVAILABLE
from rulesets import registry
from rulesets.kit.procedures import Procedure
from tests.api.openapi_contract import document
from tintero.api.procedure_schemas import procedure_key

UNSAFE = ("post", "put", "patch", "delete")


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, operations in document()["paths"].items()
        for method, operation in operations.items()
    ]


def test_openapi_spec_validator_finds_no_error() -> None:
    errors = []
    try:
        validate(document())
    except OpenAPIValidationError as error:
        errors.append(str(error)[:300])
    assert errors == []
    assert document()["openapi"] == "3.1.0"


def test_every_reference_names_a_component() -> None:
    text = json.dumps(document())
    schemas = document()["components"]["schemas"]
    missing = {name for name in re.findall(r'"#/components/schemas/([^"]+)"', text) if name not in schemas}
    assert missing == set()  # ErrorOut was referenced by 9 operations and never defined


def test_no_nullable_keyword_in_an_openapi_3_1_document() -> None:
    # 3.0's `nullable` (and `allOf + nullable` without a type) means nothing to a 3.1 reader: null is a type.
    assert '"nullable"' not in json.dumps(document())


def test_request_bodies_are_json_and_multipart_only_for_uploads() -> None:
    uploads = set()
    for path, method, operation in _operations():
        content = operation.get("requestBody", {}).get("content", {})
        if not content:
            continue
        if "multipart/form-data" in content:
            assert list(content) == ["multipart/form-data"], (method, path)
            schema = json.dumps(document()["components"]["schemas"])
            assert '"format": "binary"' in schema
            uploads.add(path)
        else:
            assert list(content) == ["application/json"], (method, path, list(content))
    assert uploads == {"/api/campaigns/import/", "/api/characters/{character_id}/portrait/"}


def test_every_operation_documents_the_errors_it_can_answer() -> None:
    for path, method, operation in _operations():
        answers = operation["responses"]
        where = f"{method} {path}"
        assert "401" in answers, where  # a bad token is refused even where anonymous access is allowed
        if "{" in path:
            assert "404" in answers, where
        if method in UNSAFE:
            assert "403" in answers, where
        if "requestBody" in operation:
            assert {"400", "413", "415"} <= set(answers), where
        for status, answer in answers.items():
            if int(status) >= 400:
                assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    token = document()["paths"]["/api/auth/token/"]["post"]["responses"]
    assert "429" in token
    steps = document()["paths"]["/api/flows/{flow_id}/steps/"]["post"]["responses"]
    assert "idempotency_conflict" in steps["409"]["description"]


def test_documented_error_codes_are_the_catalogue_the_server_sends() -> None:
    documented: set[str] = set()
    for _, _, operation in _operations():
        for status, answer in operation["responses"].items():
            if int(status) >= 400:
                documented |= set(re.findall(r"^- `([a-z_]+)`:", answer["description"], re.M))
    actions = document()["components"]["schemas"]["FlowAction"]["properties"]["unavailable"]["description"]
    documented |= set(re.findall(r"`([a-z_]+)`", actions))
    sent = {entry.code for entry in CATALOGUE}
    assert documented <= sent
    assert {STEP_NOT_AVAILABLE.code, STEP_UNAVAILABLE.code, "invalid", "not_found"} <= documented
    assert "step_unavailable" in actions and "flow_closed" not in json.dumps(document())
    # The server's raisers take their codes from the same list.
    from rolls.runner import IdempotencyConflict
    from rulesets.kit.refusals import step_not_available, step_unavailable

    assert step_not_available("x").code == STEP_NOT_AVAILABLE.code
    assert step_unavailable("x", "a", "b").code == STEP_UNAVAILABLE.code
    assert IdempotencyConflict.code in sent
    assert set(BY_STATUS.values()) <= sent


def _procedures() -> list[tuple[str, str, Procedure[Any]]]:
    return [
        (ruleset, kind, procedure)
        for ruleset, plugin in registry.plugins().items()
        for kind, procedure in plugin.procedures.items()
        if isinstance(procedure, Procedure)
    ]


def test_a_flow_is_a_union_typed_per_procedure() -> None:
    schemas = document()["components"]["schemas"]
    flow = schemas["Flow"]
    assert flow["discriminator"]["propertyName"] == "procedure"
    mapping = flow["discriminator"]["mapping"]
    assert set(mapping) == {procedure_key(ruleset, kind) for ruleset, kind, _ in _procedures()}
    assert len(mapping) >= 16
    for ruleset, kind, procedure in _procedures():
        variant = schemas[mapping[procedure_key(ruleset, kind)].rsplit("/", 1)[1]]
        properties = variant["properties"]
        assert properties["procedure"]["const"] == procedure_key(ruleset, kind)
        assert "procedure" in variant["required"]
        state = schemas[properties["state"]["$ref"].rsplit("/", 1)[1]]
        assert set(state["properties"]) == set(procedure.state.model_fields)
        waiting = schemas[properties["waiting_for"]["$ref"].rsplit("/", 1)[1]]
        steps = waiting["properties"]["steps"]["items"]["properties"]["step"]["enum"]
        assert steps == [step.key for step in procedure.steps]


def test_every_step_params_model_is_in_the_document() -> None:
    schemas = document()["components"]["schemas"]
    choices = schemas["FlowStepRequest"]["properties"]["params"]["anyOf"]
    named = [schemas[choice["$ref"].rsplit("/", 1)[1]] for choice in choices]
    for _, _, procedure in _procedures():
        for step in procedure.steps:
            fields = set(step.params.model_fields)
            assert any(set(schema.get("properties", {})) == fields for schema in named), (procedure.key, step.key)
    openings = schemas["FlowStartRequest"]["properties"]["params"]["anyOf"]
    assert len(openings) == len(_procedures())


@pytest.mark.django_db
def test_a_flow_answer_is_valid_against_its_own_procedure_only(api: Any) -> None:
    from jsonschema import Draft202012Validator

    from rulesets.fate_accelerated.tests.roll_fixtures import build_scene

    fae = build_scene()
    params = {"character": fae.ana.pk, "action": "overcome", "difficulty": 5, "difficulty_secret": True}
    opening = {"kind": "action", "params": params}
    response = api(fae.gm).post(f"/api/scenes/{fae.scene.pk}/flows/", opening, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["procedure"] == "fate-accelerated:action"
    components = document()["components"]

    def valid(name: str) -> bool:
        validator = Draft202012Validator({"components": components, "$ref": f"#/components/schemas/{name}"})
        return bool(validator.is_valid(body))

    assert valid("Flow") and valid("FateAcceleratedActionFlow")
    assert not valid("EventActionFlow")
    body["state"]["no_such_field"] = 1  # the state is typed: what the model does not have is refused
    assert not valid("Flow")
