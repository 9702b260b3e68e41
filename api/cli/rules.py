"""``lastline rules …``: entities, pack extraction, templates and JSON repair from the shell.

The commands mirror :mod:`lastline.rules` (``find_entities`` → ``entities``, ``RuleEngine.extract``
→ ``extract``, ``render``, ``match_task`` → ``match``, ``repair_json`` → ``repair``, packs).
``FILE`` may be ``-`` for standard input.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from lastline import InvalidInput
from lastline.rules import find_entities, repair_json

from .common import DbOption, JsonOption, emit, open_runtime

__all__ = ["app"]

app = typer.Typer(help="Rule engine: entities, field extraction with rule packs, templates, JSON repair.",
                  no_args_is_help=True)

TenantOption = Annotated[str, typer.Option("--tenant", help="Tenant whose uploaded packs are visible.")]
RefOption = Annotated[str | None, typer.Option("--reference-time", help="ISO time anchoring relative dates.")]


def _read(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    path = Path(source)
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None


def _ref(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"--reference-time: not an ISO date/time: {value!r}") from None


@app.command()
def entities(
    text: Annotated[str, typer.Argument(help="The text (or @FILE to read a file, @- for stdin).")],
    types: Annotated[list[str] | None, typer.Option("--type", help="Keep only this type (repeatable).")] = None,
    reference_time: RefOption = None,
    as_json: JsonOption = False,
) -> None:
    """Find typed values (dates, money, percentages, phones, IDs…) with spans and normalized values.

    Example: lastline rules entities "下周三下午3点付人民币伍拾万元整" --json
    """
    body = _read(text[1:]) if text.startswith("@") else text
    found = find_entities(body, reference_time=_ref(reference_time), types=types)
    if as_json:
        emit({"entities": [e.to_dict() for e in found]}, True)
        return
    table = Table("type", "text", "span", "value")
    for e in found:
        table.add_row(e.type, e.text, f"{e.start}-{e.end}", json.dumps(e.value, ensure_ascii=False))
    Console().print(table)


@app.command()
def extract(
    file: Annotated[str, typer.Argument(help="Text file to extract from, or - for stdin.")],
    pack: Annotated[str, typer.Option("--pack", help="Rule pack name.")] = "contract_zh",
    fields: Annotated[list[str] | None, typer.Option("--field", help="Only this field (repeatable).")] = None,
    reference_time: RefOption = None,
    tenant: TenantOption = "default",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Fill a pack's fields from a document; missing fields are null and listed, never invented.

    Example: lastline rules extract contract.txt --pack contract_zh --json
    """
    text = _read(file)
    runtime = open_runtime(db)
    try:
        result = runtime.rules.extract(text, pack=pack, fields=fields, tenant=tenant,
                                       reference_time=_ref(reference_time))
    finally:
        runtime.close()
    if as_json:
        emit(result.to_dict(), True)
        return
    emit({**{k: _show(v) for k, v in result.fields.items()}, "(valid)": result.valid,
          "(errors)": "; ".join(result.errors) or "-"}, False)
    if not result.valid:
        raise typer.Exit(1)


@app.command()
def render(
    template: Annotated[str | None, typer.Option("--template", help="Inline Jinja2 template.")] = None,
    template_id: Annotated[str | None, typer.Option("--template-id", help="Pack name or pack.template.")] = None,
    data: Annotated[str, typer.Option("--data", help="JSON object of values, or @FILE.")] = "{}",
    tenant: TenantOption = "default",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Render a template in the sandbox (strict undefined, no access to internals).

    Example: lastline rules render --template "甲方：{{ party_a }}" --data '{"party_a": "A公司"}'
    """
    raw = _read(data[1:]) if data.startswith("@") else data
    try:
        values = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--data: not JSON: {exc}") from None
    if not isinstance(values, dict):
        raise InvalidInput("--data: must be a JSON object")
    runtime = open_runtime(db)
    try:
        text = runtime.rules.render(template=template, template_id=template_id, data=values, tenant=tenant)
    finally:
        runtime.close()
    if as_json:
        emit({"text": text}, True)
    else:
        typer.echo(text)


@app.command()
def repair(
    file: Annotated[str, typer.Argument(help="File holding a model's JSON answer, or - for stdin.")],
    schema: Annotated[Path | None, typer.Option("--schema", help="JSON Schema file to validate against.")] = None,
) -> None:
    """Repair malformed JSON structurally (fences, trailing commas, quotes, closing brackets); never guess.

    Example: lastline rules repair answer.txt --schema fields.schema.json
    """
    loaded: dict[str, Any] | None = None
    if schema is not None:
        try:
            loaded = json.loads(_read(str(schema)))
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"--schema: not JSON: {exc}") from None
    typer.echo(json.dumps(repair_json(_read(file), loaded), ensure_ascii=False, indent=2))


@app.command()
def match(
    text: Annotated[str, typer.Argument(help="Request text (or @FILE).")] = "",
    task: Annotated[str | None, typer.Option("--task", help="Task or route name.")] = None,
    tenant: TenantOption = "default",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show which pack the fallback ladder would pick for a task and text.

    Example: lastline rules match "甲方与乙方签订本合同" --json
    """
    body = _read(text[1:]) if text.startswith("@") else text
    runtime = open_runtime(db)
    try:
        pack = runtime.rules.match_task(task, body, tenant=tenant)
    finally:
        runtime.close()
    emit({"pack": pack.name if pack else None}, as_json)


@app.command()
def packs(tenant: TenantOption = "default", db: DbOption = None, as_json: JsonOption = False) -> None:
    """List the rule packs: built-in, the rules folder, and this tenant's uploads.

    Example: lastline rules packs --json
    """
    runtime = open_runtime(db)
    try:
        described = [p.describe() for p in runtime.rules.packs(tenant=tenant)]
    finally:
        runtime.close()
    if as_json:
        emit({"packs": described}, True)
        return
    table = Table("name", "fields", "source")
    for p in described:
        table.add_row(p["name"], ", ".join(p["fields"]), p["source"])
    Console().print(table)


@app.command("add-pack")
def add_pack(
    file: Annotated[str, typer.Argument(help="YAML pack file, or - for stdin.")],
    tenant: TenantOption = "default",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Validate a YAML pack and store it in the database for a tenant (same name replaces).

    Example: lastline rules add-pack ./shop.yaml --tenant acme
    """
    text = _read(file)
    runtime = open_runtime(db)
    try:
        pack, created = runtime.rules.add_pack(text, tenant=tenant)
    finally:
        runtime.close()
    emit({"name": pack.name, "created": created, "fields": ", ".join(pack.fields)} if not as_json
         else {"name": pack.name, "created": created, "fields": list(pack.fields)}, as_json)


def _show(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, dict) and "amount" in value:
        return f"{value['amount']} {value.get('currency') or ''}".strip()
    if isinstance(value, list):
        return ", ".join(_show(v) for v in value) or "—"
    return str(value)
