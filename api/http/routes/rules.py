"""``/v1/rules/*``: entities, pack extraction, template rendering, JSON repair and pack uploads over HTTP.

Thin on purpose: everything happens in :class:`lastline.rules.RuleEngine` and
:func:`lastline.rules.find_entities`; this module only shapes requests and answers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Path, status
from fastapi.responses import Response
from pydantic import BaseModel, Field, field_validator

from lastline import NotFound
from lastline.rules import ENTITY_TYPES, Entity, ExtractResult, find_entities, repair_json
from lastline.rules.entities import MAX_CHARS as MAX_ENTITY_CHARS
from lastline.rules.extract import MAX_TEXT_CHARS
from lastline.rules.repair import MAX_JSON_CHARS

from ...ladder.ladder import Label
from ..deps import RuntimeDep, StrictBody, TenantDep
from ..prefixed_router import PrefixedRouter

__all__ = ["router"]

router = PrefixedRouter(prefix="/v1/rules", tags=["rules"])

PackName = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")]
_ERRORS: dict[int | str, dict[str, str]] = {
    401: {"description": "Missing or unknown API key."},
    404: {"description": "not_found: no such pack or template."},
    413: {"description": "Body too large."},
    422: {"description": "invalid_input: a field is wrong; invalid_rule_pack names file, rule and field."},
}


class EntitiesIn(StrictBody):
    # find_entities reads at most this much: longer text is refused here, not cut there.
    text: str = Field(max_length=MAX_ENTITY_CHARS)
    reference_time: datetime | None = Field(None, description="Anchor for relative dates (default: now).")
    types: list[str] | None = Field(None, max_length=len(ENTITY_TYPES), description="Keep only these types.")
    lang: Literal["zh", "en"] | None = Field(None, description="Language of the document (default: guessed).")

    @field_validator("types")
    @classmethod
    def _known_types(cls, value: list[str] | None) -> list[str] | None:
        unknown = sorted(set(value or ()) - set(ENTITY_TYPES))
        if unknown:
            raise ValueError(f"unknown entity type(s) {', '.join(unknown)}; known: {', '.join(ENTITY_TYPES)}")
        return value


class EntitiesOut(BaseModel):
    entities: list[Entity]


class ExtractIn(StrictBody):
    text: str = Field(max_length=MAX_TEXT_CHARS)
    pack: str = Field(min_length=1, max_length=64)
    fields: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(None, max_length=200)
    reference_time: datetime | None = None


class RenderIn(StrictBody):
    template: str | None = Field(None, max_length=20_000)
    template_id: str | None = Field(None, max_length=140, description="A pack name, or pack.template_name.")
    data: dict[str, Any] = Field(default_factory=dict)


class RepairIn(StrictBody):
    text: str = Field(max_length=MAX_JSON_CHARS)
    schema_: dict[str, Any] | None = Field(None, alias="schema")


class MatchIn(StrictBody):
    task: Label = None
    text: str = Field("", max_length=MAX_TEXT_CHARS)


class PackIn(StrictBody):
    yaml: str = Field(min_length=1, max_length=256_000, description="The pack as YAML text.")


@router.post("/entities", response_model=EntitiesOut, responses=_ERRORS)
def entities(body: EntitiesIn, _tenant: TenantDep) -> EntitiesOut:
    """Typed values in ``text`` with exact spans and normalized values (ISO dates, decimal amounts…)."""
    found = find_entities(body.text, reference_time=body.reference_time, types=body.types, lang=body.lang)
    return EntitiesOut(entities=found)


@router.post("/extract", response_model=ExtractResult, responses=_ERRORS)
def extract(body: ExtractIn, runtime: RuntimeDep, tenant: TenantDep) -> ExtractResult:
    """Fill a pack's fields; missing ones are null and listed in ``missing``, never invented."""
    result = runtime.rules.extract(body.text, pack=body.pack, fields=body.fields, tenant=tenant,
                                   reference_time=body.reference_time)
    return result


@router.post("/render", responses=_ERRORS)
def render(body: RenderIn, runtime: RuntimeDep, tenant: TenantDep) -> dict[str, str]:
    """Render an inline template or a pack's template in the sandbox (strict undefined)."""
    return {"text": runtime.rules.render(template=body.template, template_id=body.template_id, data=body.data,
                                         tenant=tenant)}


@router.post("/repair", responses=_ERRORS)
def repair(body: RepairIn, _tenant: TenantDep) -> dict[str, Any]:
    """Repair a model's malformed JSON structurally (never by guessing values) and check a schema."""
    return {"value": repair_json(body.text, body.schema_)}


@router.post("/match", responses=_ERRORS)
def match(body: MatchIn, runtime: RuntimeDep, tenant: TenantDep) -> dict[str, str | None]:
    """Which pack the fallback ladder would use for this task and text (``null`` when none)."""
    pack = runtime.rules.match_task(body.task, body.text, tenant=tenant)
    return {"pack": pack.name if pack else None}


@router.get("/packs", responses=_ERRORS)
def list_packs(runtime: RuntimeDep, tenant: TenantDep) -> dict[str, Any]:
    """Built-in, folder and this tenant's uploaded packs."""
    return {"packs": [p.describe() for p in runtime.rules.packs(tenant=tenant)]}


@router.get("/packs/{name}", responses=_ERRORS)
def get_pack(name: PackName, runtime: RuntimeDep, tenant: TenantDep) -> dict[str, Any]:
    pack = runtime.rules.pack(name, tenant=tenant)
    return {**pack.describe(), "schema": pack.schema, "yaml": pack.raw}


@router.post("/packs", status_code=status.HTTP_201_CREATED, responses={**_ERRORS, 409: {
    "description": "conflict: the name belongs to a built-in or folder pack."}})
def upload_pack(body: PackIn, runtime: RuntimeDep, tenant: TenantDep, response: Response) -> dict[str, Any]:
    """Validate and store a YAML pack for this tenant (same name replaces; 200 then, 201 when new)."""
    pack, created = runtime.rules.add_pack(body.yaml, tenant=tenant)
    if not created:
        response.status_code = status.HTTP_200_OK
    return {"name": pack.name, "created": created, "fields": list(pack.fields)}


@router.delete("/packs/{name}", status_code=status.HTTP_204_NO_CONTENT, responses=_ERRORS)
def delete_pack(name: PackName, runtime: RuntimeDep, tenant: TenantDep) -> Response:
    if not runtime.rules.delete_pack(name, tenant=tenant):
        raise NotFound(f"no uploaded pack named {name!r}")
    return Response(status_code=status.HTTP_204_NO_CONTENT)
