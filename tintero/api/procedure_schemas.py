"""The procedures' typed shapes in the OpenAPI document, written from the rulesets' registry.

A procedure's ``state``, ``secret_state`` and ``waiting_for`` are typed per procedure: ``Flow`` is a union
of one object per procedure (``FateSotcCompelFlow``...), told apart by its ``procedure`` field
(``"<ruleset>:<kind>"``, the discriminator). Every step's params model and every opening's are components
too (``FateSotcCompelOpenParams``, ``FateSotcRuleGuessParams``...), so ``FlowStepRequest.params`` and
``FlowStartRequest.params`` say what each step accepts. All of it comes from the step tables' pydantic
models, the ones the runner validates with, so the document cannot drift from what the server checks.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Literal

from pydantic import BaseModel

from rulesets import registry
from rulesets.kit.procedures import Procedure

JSON = dict[str, Any]
REF = "#/components/schemas/"


def procedure_key(ruleset: str, kind: str) -> str:
    """The ``procedure`` a flow carries: its ruleset and kind, unique across games (kinds are not)."""
    return f"{ruleset}:{kind}"


def _camel(*words: str) -> str:
    return "".join(part.capitalize() for word in words for part in word.replace("-", "_").split("_"))


def _for_generators(schema: Any, *, mapping: bool = False) -> Any:
    """The pydantic schema as client generators read it, meaning the same:
    - without ``title`` keys: generators name classes after titles, and two games' ``Modifier`` would
      clash; the component's own name is what names it;
    - ``const: v`` written ``enum: [v]`` (a ``Literal["gm"]``): openapi-python-client 0.29 checks a
      ``const`` inside a union outside its try, so ``"gm" | int`` refused every int."""
    if isinstance(schema, list):
        return [_for_generators(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    shaped = {
        key: _for_generators(value, mapping=key in ("properties", "$defs", "patternProperties"))
        for key, value in schema.items()
        if mapping or not (key == "title" and isinstance(value, str))
    }
    if not mapping and "const" in shaped and "enum" not in shaped:
        shaped["enum"] = [shaped.pop("const")]
    return shaped


class _Components:
    """Lifts pydantic models into ``components.schemas``: one component per model class, named with the
    game's prefix, its ``$defs`` lifted beside it under the same prefix."""

    def __init__(self, schemas: JSON) -> None:
        self.schemas = schemas
        self.names: dict[type[BaseModel], str] = {}

    def _free(self, name: str, content: JSON) -> str:
        found = self.schemas.get(name)
        if found is None or found == content:
            return name
        number = 2
        while f"{name}{number}" in self.schemas and self.schemas[f"{name}{number}"] != content:
            number += 1
        return f"{name}{number}"

    def model(self, model: type[BaseModel], prefix: str, *, sent: bool = False) -> str:
        """``sent``: a model clients send (params: a field with a default may be left out); otherwise one
        the server answers with (every field present)."""
        if model in self.names:
            return self.names[model]
        mode: Literal["validation", "serialization"] = "validation" if sent else "serialization"
        schema = _for_generators(model.model_json_schema(mode=mode, ref_template="#/$defs/{model}"))
        defs: JSON = schema.pop("$defs", {})
        renamed = {name: self._free(prefix + name, defs[name]) for name in defs}
        text = json.dumps([schema, defs])
        for name, new in renamed.items():
            text = text.replace(f'"#/$defs/{name}"', f'"{REF}{new}"')
        schema, defs = json.loads(text)
        for name, new in renamed.items():
            self.schemas[new] = defs[name]
        own = "" if model.__name__ == "NoParams" else prefix
        component = self._free(own + model.__name__, schema)
        self.schemas[component] = schema
        self.names[model] = component
        return component


def _waiting_for(procedure: Procedure[Any]) -> JSON:
    entry = {
        "type": "object",
        "properties": {
            "step": {"type": "string", "enum": [step.key for step in procedure.steps]},
            "gm": {"type": "boolean", "description": "Whether it waits for a GM."},
            "users": {"type": "array", "items": {"type": "integer"}, "description": "The players (user ids)."},
            "label_es": {"type": "string"},
            "label_en": {"type": "string"},
        },
        "required": ["step", "gm", "users", "label_es", "label_en"],
    }
    return {
        "type": "object",
        "description": "Every step the procedure waits for (no `steps` once nothing is awaited).",
        "properties": {"steps": {"type": "array", "items": entry}},
        "additionalProperties": False,
    }


def add_procedures(result: JSON, generator: Any, request: Any, public: bool) -> JSON:
    """drf-spectacular postprocessing hook: ``Flow`` becomes the union of the procedures' typed flows."""
    schemas: JSON = result.get("components", {}).get("schemas", {})
    base = schemas.get("Flow")
    if base is None:
        return result
    components = _Components(schemas)
    variants: list[JSON] = []
    mapping: dict[str, str] = {}
    step_params: list[JSON] = []
    open_params: list[JSON] = []
    for ruleset, plugin in registry.plugins().items():
        for kind, procedure in plugin.procedures.items():
            if not isinstance(procedure, Procedure):
                continue
            game = _camel(ruleset)
            prefix = game + _camel(kind)
            key = procedure_key(ruleset, kind)
            state = components.model(procedure.state, game)
            secret = (
                {"$ref": REF + components.model(procedure.secret, game)}
                if procedure.secret is not None
                else {"type": "object", "additionalProperties": False}
            )
            opening = components.model(procedure.opening.params, game, sent=True)
            open_params.append({"$ref": REF + opening})
            steps: dict[str, str] = {}
            for step in procedure.steps:
                ref = {"$ref": REF + components.model(step.params, game, sent=True)}
                steps[step.key] = ref["$ref"]
                if ref not in step_params:
                    step_params.append(ref)
            waiting = prefix + "WaitingFor"
            schemas[waiting] = _waiting_for(procedure)
            variant = copy.deepcopy(base)
            properties = variant["properties"]
            properties["procedure"] = {"type": "string", "const": key, "description": "`<ruleset>:<kind>`."}
            properties["kind"] = {"type": "string", "const": kind}
            properties["state"] = {"$ref": REF + state}
            properties["secret_state"] = {**secret, "description": "Only for GMs."}
            properties["waiting_for"] = {"$ref": REF + waiting}
            # Each step's params model, by step key, and the opening's: what `params` takes for this procedure.
            variant["x-step-params"] = steps
            variant["x-open-params"] = REF + opening
            variant["description"] = f"A procedure `{kind}` of `{ruleset}`. {base.get('description', '')}".strip()
            name = prefix + "Flow"
            schemas[name] = variant
            variants.append({"$ref": REF + name})
            mapping[key] = REF + name
    schemas["Flow"] = {
        "oneOf": variants,
        "discriminator": {"propertyName": "procedure", "mapping": mapping},
        "description": base.get("description", ""),
    }
    for request_name, choices in (("FlowStepRequest", step_params), ("FlowStartRequest", open_params)):
        params = schemas.get(request_name, {}).get("properties", {}).get("params")
        if params is not None:
            description = params.get("description", "")
            params.clear()
            params.update({"anyOf": choices, "description": description})
    return result
