"""The one registry of games: ``key -> RulesetPlugin``, filled at startup by each ruleset app's
``AppConfig.ready()``.

A plugin names every part Tintero needs of a game explicitly (no module-name conventions): its pure rules,
the sheet binding and form, the roll binding and composer builder, its procedures and its templates.
:func:`register` refuses an incomplete plugin at once, naming the missing part, so a half-written game never
starts; the template names are checked by a system check (``rulesets.checks``) once templates can load.

Adding a game: ``systems/<key>/`` (pure rules) + ``rulesets/<key>/`` (this plugin) + one line in
``INSTALLED_APPS``. ``Campaign.ruleset`` takes its choices from :func:`ruleset_choices`, so no migration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.functional import lazy
from django.utils.translation import get_language

from systems.errors import RulesError
from systems.registry import Ruleset

if TYPE_CHECKING:
    from rulesets.kit.procedures import Procedure
    from rulesets.kit.rolls import RollBinding
    from rulesets.kit.sheets import SheetBinding


@dataclass(frozen=True)
class RulesetTemplates:
    """The game's own templates (template names, looked up in its app's ``templates/``).

    ``sheet`` and ``pools`` fall back to the generic renderings when None; ``builder`` is required when the
    plugin has a builder; ``procedures`` maps each procedure key to the template of its own part of the flow
    card (the runner's common parts are shared); ``start`` holds the scene's forms to open procedures.
    """

    sheet: str | None = None
    pools: str | None = None
    sheet_form: str | None = None
    builder: str | None = None
    start: str | None = None
    procedures: Mapping[str, str] = field(default_factory=dict)
    # The table's state where play happens: shown on the scene page above the thread (pools, the scene's
    # characters' tracks), refreshed live; context ``panel`` (characters.selectors.ScenePanel).
    scene_panel: str | None = None

    def names(self) -> list[str]:
        named = [
            self.sheet,
            self.pools,
            self.sheet_form,
            self.builder,
            self.start,
            self.scene_panel,
            *self.procedures.values(),
        ]
        return [name for name in named if name]


@dataclass(frozen=True)
class RulesetPlugin:
    """Everything Django-side about one game.

    - ``rules``: the pure ruleset of ``systems/<key>/`` (names, sheet and settings models, roll kinds,
      operations, pools and tracks);
    - ``sheet``: between the pure operations and the stored JSON (:class:`rulesets.kit.sheets.SheetBinding`);
    - ``sheet_form``: the creation/edit form class (``SheetForm(data=None, *, sheet=None, settings=None,
      is_npc=False)`` with ``to_sheet()``);
    - ``rolls``: how the game's roll kinds meet posts (:class:`rulesets.kit.rolls.RollBinding`);
    - ``builder``: the composer's roll builder form, or None when dice notation is all the game needs;
    - ``procedures``: the multi-step procedures (:class:`rulesets.kit.procedures.Procedure`) by key;
    - ``urls``: an optional URLconf module of the game's own pages (mounted under ``/``);
    - ``ready``: optional hook run once every plugin is registered.
    """

    key: str
    rules: Ruleset
    sheet: SheetBinding
    sheet_form: type[Any]
    rolls: RollBinding
    builder: type[Any] | None = None
    procedures: Mapping[str, Procedure[Any]] = field(default_factory=dict)
    templates: RulesetTemplates = field(default_factory=RulesetTemplates)
    urls: str | None = None
    scene_aspects: bool = False
    ready: Callable[[], None] | None = None

    @property
    def names(self) -> Any:
        return self.rules.names

    def procedure(self, key: str) -> Procedure[Any]:
        try:
            return self.procedures[key]
        except KeyError:
            raise RulesError(
                "unknown_procedure",
                f"«{key}» no es un procedimiento de {self.rules.names.es}.",
                f"'{key}' is not a procedure of {self.rules.names.en}.",
            ) from None


_PLUGINS: dict[str, RulesetPlugin] = {}

# What a complete plugin must carry: (attribute, the methods it must have).
_REQUIRED_PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rules", ("roll_kind", "operation")),
    (
        "sheet",
        ("initial_campaign_state", "new_sheet", "draft_sheet", "who_may", "pools_public", "targets", "apply"),
    ),
    ("sheet_form", ("to_sheet",)),
    ("rolls", ("kind_allowed", "prepare", "resolve", "faces")),
)


def _check_plugin(plugin: RulesetPlugin) -> None:
    where = f"ruleset plugin {plugin.key!r}"
    if not plugin.key or plugin.key != plugin.key.strip().lower() or " " in plugin.key:
        raise ImproperlyConfigured(f"{where}: its key must be a lowercase slug")
    for part, methods in _REQUIRED_PARTS:
        value = getattr(plugin, part, None)
        if value is None:
            raise ImproperlyConfigured(f"{where} lacks its required part {part!r}")
        missing = [m for m in methods if not callable(getattr(value, m, None))]
        if missing:
            raise ImproperlyConfigured(f"{where}: its part {part!r} lacks {', '.join(missing)}")
    if plugin.rules.key != plugin.key:
        raise ImproperlyConfigured(f"{where}: its rules are registered as {plugin.rules.key!r}")
    if plugin.builder is not None and not plugin.templates.builder:
        raise ImproperlyConfigured(f"{where} has a builder but lacks its part 'templates.builder'")
    for key, procedure in plugin.procedures.items():
        if getattr(procedure, "key", None) != key:
            raise ImproperlyConfigured(f"{where}: procedure {key!r} is registered under another key")
        if key not in plugin.templates.procedures:
            raise ImproperlyConfigured(f"{where}: procedure {key!r} lacks its part 'templates.procedures[{key!r}]'")
    if plugin.procedures and not plugin.templates.start:
        raise ImproperlyConfigured(f"{where} has procedures but lacks its part 'templates.start'")


def register(plugin: RulesetPlugin) -> RulesetPlugin:
    """Add a game; called from its ``AppConfig.ready()``. Refuses a second plugin under the same key."""
    _check_plugin(plugin)
    if plugin.key in _PLUGINS and _PLUGINS[plugin.key] is not plugin:
        raise ImproperlyConfigured(f"ruleset plugin {plugin.key!r} registered twice")
    _PLUGINS[plugin.key] = plugin
    return plugin


def unregister(key: str) -> None:
    """Tests only: remove a plugin a test registered."""
    _PLUGINS.pop(key, None)


def plugin(key: str) -> RulesetPlugin:
    try:
        return _PLUGINS[key]
    except KeyError:
        raise RulesError(
            "unknown_ruleset",
            f"No existe el sistema de juego «{key}».",
            f"There is no ruleset '{key}'.",
        ) from None


def plugins() -> dict[str, RulesetPlugin]:
    """Every registered game, in registration (INSTALLED_APPS) order."""
    return dict(_PLUGINS)


def procedure_params_schemas(key: str) -> dict[str, Any]:
    """Every procedure of a game with the JSON schema of its opening's and steps' params, by procedure key
    (``{"conflict": {"opening": {...}, "steps": {"hope": {...}}}}``), for the API's published document."""
    return {name: procedure.params_schemas() for name, procedure in plugin(key).procedures.items()}


def rules(key: str) -> Ruleset:
    """The pure rules of a game (shorthand for ``plugin(key).rules``)."""
    return plugin(key).rules


def _label(key: str) -> str:
    found = _PLUGINS.get(key)
    return found.rules.names.get(get_language() or "es") if found else key


_lazy_label = lazy(_label, str)


def ruleset_choices() -> list[tuple[str, Any]]:
    """``Campaign.ruleset``'s choices: every registered game, named in the request's language."""
    return [(key, _lazy_label(key)) for key in _PLUGINS]
