"""The campaign archive, version 1: its shape as typed models. They validate an archive on import and publish
its JSON Schema (docs/campaign-archive.schema.json, served at /api/archive-schema/).

References between parts use the ids of the exporting instance (``scene``, ``post``, ``character``, ``roll``,
``procedure``); users are handles (usernames). A reader's archive holds only what that reader may read: parts
they may not see are missing, and closed roll-chain links carry only their hashes.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT = "tintero-campaign-archive"
SCHEMA_VERSION = 1


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ArchivedCampaign(_Part):
    title: str = Field(min_length=1, max_length=120)
    introduction: str = ""
    synopsis: str = ""
    gm_notes: str | None = Field(None, description="Only in a GM's archive.")
    ruleset: str
    language: str
    visibility: Literal["public", "private"]
    status: str
    rules_settings: dict[str, Any] = {}
    rules_state: dict[str, Any] | None = Field(None, description="Pools of the campaign; only in a GM's archive.")
    sheets_open: bool = False
    archived: bool = False
    whispers_revealed: bool = False
    created_at: str


class ArchivedMember(_Part):
    handle: str
    display_name: str = ""
    role: Literal["gm", "player", "reader"]


class ArchivedAspect(_Part):
    text: str
    hidden: bool = False
    free_invocations: int = Field(0, ge=0)
    position: int = 0


class ArchivedScene(_Part):
    id: int
    title: str
    description: str = ""
    position: int = 0
    status: Literal["open", "closed"]
    is_offtopic: bool = False
    access: Literal["all", "listed"]
    readers: list[str] = Field([], description="Handles; only in a GM's archive.")
    writers: list[str] = Field([], description="Handles; only in a GM's archive.")
    aspects: list[ArchivedAspect] = []
    created_at: str


class ArchivedCharacter(_Part):
    id: int
    owner: str | None
    is_npc: bool
    name: str
    status: str
    description: str = ""
    history: str = ""
    portrait: str | None = Field(None, description="A data: URI.")
    sheet: dict[str, Any] | None = Field(None, description="Private parts: only when the exporter may read them.")
    equipment: str | None = None
    notes: str | None = None
    created_at: str


class ArchivedRevision(_Part):
    body: str
    notes: str = ""
    edited_by: str
    created_at: str


class ArchivedPost(_Part):
    id: int
    scene: int
    kind: Literal["story", "procedure"]
    author: str
    voice: Literal["character", "narrator", "npc", "ooc"]
    character: int | None = None
    npc_name: str = ""
    body: str
    notes: str = ""
    recipients: Literal["all", "gms", "whisper"]
    whisper_to: list[str] = []
    created_at: str
    edited_at: str | None = None
    deleted_at: str | None = None
    deleted_by: str | None = None
    revisions: list[ArchivedRevision] = Field([], description="Only for GMs and the post's author.")


class ArchivedFollowUp(_Part):
    kind: str
    actor: str
    character: int | None = None
    data: dict[str, Any] = {}
    result: dict[str, Any] = {}
    summary_es: str = ""
    summary_en: str = ""
    created_at: str


class ArchivedReveal(_Part):
    by: str
    include_secret: bool = False
    created_at: str


class ArchivedRoll(_Part):
    id: int
    scene: int
    post: int | None = None
    procedure: int | None = None
    roller: str
    character: int | None = None
    ruleset: str
    kind: str
    label: str = ""
    request: dict[str, Any] = {}
    result: dict[str, Any] = {}
    secret: dict[str, Any] | None = Field(None, description="A secret difficulty: GMs, or everyone once revealed.")
    summary_es: str = ""
    summary_en: str = ""
    gm_only: bool = False
    position: int = 0
    created_at: str
    reveal: ArchivedReveal | None = None
    follow_ups: list[ArchivedFollowUp] = []
    chain_seq: int | None = Field(None, description="This roll's link in roll_chain.")


class ArchivedStep(_Part):
    step: str
    actor: str
    params: dict[str, Any] | None = Field(None, description="Only for GMs and the step's own actor.")
    created_at: str


class ArchivedLine(_Part):
    position: int
    text_es: str
    text_en: str
    gm_only: bool = False
    rolls: list[Any] = []


class ArchivedProcedure(_Part):
    id: int
    scene: int
    kind: str
    state: dict[str, Any] = {}
    secret_state: dict[str, Any] | None = Field(None, description="Only in a GM's archive.")
    status: Literal["open", "settled", "cancelled"]
    waiting_for: dict[str, Any] = {}
    opened_by: str
    record: int | None = Field(None, description="The post that shows the procedure in the thread.")
    created_at: str
    settled_at: str | None = None
    steps: list[ArchivedStep] = []
    lines: list[ArchivedLine] = []


class ArchivedLedgerEntry(_Part):
    character: int | None = None
    operation: str
    params: dict[str, Any] = {}
    before: dict[str, Any] | None = Field(None, description="Only in a GM's archive.")
    after: dict[str, Any] | None = Field(None, description="Only in a GM's archive.")
    changes: dict[str, Any] = {}
    actor: str
    reason: str = ""
    post: int | None = None
    created_at: str


class ArchivedLink(_Part):
    seq: int = Field(ge=1)
    prev: str = Field(pattern="^[0-9a-f]{64}$")
    commitment: str = Field(pattern="^[0-9a-f]{64}$")
    hash: str = Field(pattern="^[0-9a-f]{64}$")
    salt: str | None = None
    content: dict[str, Any] | None = None


class CampaignArchive(_Part):
    """A whole campaign, as far as its exporter could read it."""

    format: Literal["tintero-campaign-archive"]
    schema_version: int = Field(ge=1)
    exported_at: str
    exported_by: str | None
    scope: Literal["gm", "reader"] = Field(description="`gm`: everything; `reader`: what the exporter may read.")
    campaign: ArchivedCampaign
    members: list[ArchivedMember]
    scenes: list[ArchivedScene]
    characters: list[ArchivedCharacter]
    posts: list[ArchivedPost]
    rolls: list[ArchivedRoll]
    procedures: list[ArchivedProcedure]
    ledger: list[ArchivedLedgerEntry]
    roll_chain: list[ArchivedLink]


def json_schema() -> dict[str, Any]:
    schema = CampaignArchive.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://tintero.example/schemas/campaign-archive-v{SCHEMA_VERSION}.json"
    return schema
