"""The campaign archive, version 1: its shape as typed models. They validate an archive on import and publish
its JSON Schema (docs/campaign-archive.schema.json, served at /api/archive-schema/).

References between parts use the ids of the exporting instance (``scene``, ``post``, ``character``, ``roll``,
``procedure``); users are handles (usernames). A reader's archive holds only what that reader may read: parts
they may not see are missing, and closed roll-chain links carry only their hashes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT = "tintero-campaign-archive"
SCHEMA_VERSION = 1

# The limits a live write holds an archive to (the columns' widths and the services' text limits), so an
# archive that validates also stores, on SQLite and PostgreSQL alike.
INT64_MAX = 2**63 - 1
Id = Annotated[int, Field(ge=1, le=INT64_MAX)]
Position = Annotated[int, Field(ge=0, le=2**31 - 1)]
SmallCount = Annotated[int, Field(ge=0, le=32_767)]
Handle = Annotated[str, Field(min_length=1, max_length=150)]
Title = Annotated[str, Field(min_length=1, max_length=120)]
Text = Annotated[str, Field(max_length=20_000)]
Body = Annotated[str, Field(max_length=60_000)]  # campaigns.markdown.MAX_SOURCE_LENGTH
Name = Annotated[str, Field(max_length=80)]
Key = Annotated[str, Field(min_length=1, max_length=40)]
Summary = Annotated[str, Field(max_length=300)]


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ArchivedCampaign(_Part):
    title: Title
    introduction: Text = ""
    synopsis: Text = ""
    gm_notes: Text | None = Field(None, description="Only in a GM's archive.")
    ruleset: str = Field(max_length=32)
    language: Literal["es", "en"]
    visibility: Literal["public", "private"]
    status: Literal["recruiting", "active", "suspended", "finished"]
    rules_settings: dict[str, Any] = {}
    rules_state: dict[str, Any] | None = Field(None, description="Pools of the campaign; only in a GM's archive.")
    sheets_open: bool = False
    archived: bool = False
    whispers_revealed: bool = False
    created_at: str


class ArchivedMember(_Part):
    handle: Handle
    display_name: Name = ""
    role: Literal["gm", "player", "reader"]


class ArchivedAspect(_Part):
    text: str = Field(min_length=1, max_length=200)
    hidden: bool = False
    free_invocations: SmallCount = 0
    position: Position = 0


class ArchivedScene(_Part):
    id: Id
    title: Title
    description: Text = ""
    position: Position = 0
    status: Literal["open", "closed"]
    is_offtopic: bool = False
    access: Literal["all", "listed"]
    readers: list[Handle] = Field([], description="Handles; only in a GM's archive.")
    writers: list[Handle] = Field([], description="Handles; only in a GM's archive.")
    aspects: list[ArchivedAspect] = []
    created_at: str


class ArchivedCharacter(_Part):
    id: Id
    owner: Handle | None
    is_npc: bool
    name: str = Field(min_length=1, max_length=80)
    status: Literal["draft", "pending", "approved", "retired"]
    description: Text = ""
    history: str = Field("", max_length=50_000)
    portrait: str | None = Field(None, description="A data: URI.")
    sheet: dict[str, Any] | None = Field(None, description="Private parts: only when the exporter may read them.")
    equipment: Text | None = None
    notes: Text | None = None
    created_at: str


class ArchivedRevision(_Part):
    body: Body
    notes: Body = ""
    edited_by: Handle
    created_at: str


class ArchivedPost(_Part):
    id: Id
    scene: Id
    kind: Literal["story", "procedure"]
    author: Handle
    voice: Literal["character", "narrator", "npc", "ooc"]
    character: Id | None = None
    npc_name: Name = ""
    body: Body
    notes: Body = ""
    recipients: Literal["all", "gms", "whisper"]
    whisper_to: list[Handle] = []
    created_at: str
    edited_at: str | None = None
    deleted_at: str | None = None
    deleted_by: Handle | None = None
    revisions: list[ArchivedRevision] = Field([], description="Only for GMs and the post's author.")


class ArchivedFollowUp(_Part):
    kind: Key
    actor: Handle
    character: Id | None = None
    data: dict[str, Any] = {}
    result: dict[str, Any] = {}
    summary_es: Summary = ""
    summary_en: Summary = ""
    created_at: str


class ArchivedReveal(_Part):
    by: Handle
    include_secret: bool = False
    created_at: str


class ArchivedRoll(_Part):
    id: Id
    scene: Id
    post: Id | None = None
    procedure: Id | None = None
    roller: Handle
    character: Id | None = None
    ruleset: str = Field(max_length=32)
    kind: Key
    label: str = Field("", max_length=120)
    request: dict[str, Any] = {}
    result: dict[str, Any] = {}
    secret: dict[str, Any] | None = Field(None, description="A secret difficulty: GMs, or everyone once revealed.")
    summary_es: Summary = ""
    summary_en: Summary = ""
    gm_only: bool = False
    position: SmallCount = 0
    created_at: str
    reveal: ArchivedReveal | None = None
    follow_ups: list[ArchivedFollowUp] = []
    chain_seq: Id | None = Field(None, description="This roll's link in roll_chain.")


class ArchivedStep(_Part):
    step: Key
    actor: Handle
    params: dict[str, Any] | None = Field(None, description="Only for GMs and the step's own actor.")
    created_at: str


class ArchivedLine(_Part):
    position: Position
    text_es: Text
    text_en: Text
    gm_only: bool = False
    rolls: list[Id] = []


class ArchivedWaitingStep(_Part):
    step: Key
    gm: bool = False
    users: list[Id] = []
    label_es: Text = ""
    label_en: Text = ""


class ArchivedWaiting(_Part):
    steps: list[ArchivedWaitingStep] = []


class ArchivedProcedure(_Part):
    id: Id
    scene: Id
    kind: Key
    state: dict[str, Any] = {}
    secret_state: dict[str, Any] | None = Field(None, description="Only in a GM's archive.")
    status: Literal["open", "settled", "cancelled"]
    waiting_for: ArchivedWaiting = ArchivedWaiting()
    opened_by: Handle
    record: Id | None = Field(None, description="The post that shows the procedure in the thread.")
    created_at: str
    settled_at: str | None = None
    steps: list[ArchivedStep] = []
    lines: list[ArchivedLine] = []


class ArchivedLedgerEntry(_Part):
    character: Id | None = None
    operation: str = Field(min_length=1, max_length=60)
    params: dict[str, Any] = {}
    before: dict[str, Any] | None = Field(None, description="Only in a GM's archive.")
    after: dict[str, Any] | None = Field(None, description="Only in a GM's archive.")
    changes: dict[str, Any] = {}
    actor: Handle
    reason: str = Field("", max_length=300)
    post: Id | None = None
    created_at: str


class ArchivedLink(_Part):
    seq: int = Field(ge=1, le=INT64_MAX)
    prev: str = Field(pattern="^[0-9a-f]{64}$")
    commitment: str = Field(pattern="^[0-9a-f]{64}$")
    hash: str = Field(pattern="^[0-9a-f]{64}$")
    salt: str | None = Field(None, pattern="^([0-9a-f]{32})?$")
    content: dict[str, Any] | None = None
    imported: bool = Field(False, description="History imported from another archive, not rolled where exported.")


class CampaignArchive(_Part):
    """A whole campaign, as far as its exporter could read it."""

    format: Literal["tintero-campaign-archive"]
    schema_version: int = Field(ge=1, le=INT64_MAX)
    exported_at: str
    exported_by: str | None = Field(max_length=150)
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
