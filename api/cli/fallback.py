"""``lastline fallback``: the ladder, its declared defaults and its events, without the HTTP server.

Same names as the Python API: ``run`` is :func:`lastline.api.run_ladder`, ``events`` lists
``runtime.events``, ``defaults`` / ``put-default`` / ``delete-default`` manage
``runtime.defaults``. A refused write exits with code 2 and the ``no_degraded_writes`` line, like
any lastline error.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from lastline import InvalidInput, NotFound

from ..ladder.defaults import DeclaredDefault
from ..ladder.ladder import FallbackRequest, run_ladder
from .common import DbOption, JsonOption, emit, open_runtime

__all__ = ["app"]

app = typer.Typer(help="The fallback ladder: run it, declare defaults, read degradation events.",
                  no_args_is_help=True)

TenantOption = Annotated[str, typer.Option("--tenant", help="Tenant whose cache, KB and defaults to use.")]


@app.command()
def run(
    prompt: Annotated[str, typer.Argument(help="The user's question.")],
    task: Annotated[str | None, typer.Option(help="Task name (rule pack, declared default).")] = None,
    text: Annotated[str | None, typer.Option(help="Document text for rule extraction.")] = None,
    context: Annotated[str | None, typer.Option(help="Context fingerprint (must match cache entries).")] = None,
    write: Annotated[bool, typer.Option("--write", help="Mark the request as a write (always refused).")] = False,
    idempotency_key: Annotated[str | None, typer.Option(help="Echoed back when a write is refused.")] = None,
    mode: Annotated[str, typer.Option(help="Cache threshold mode: fallback or intercept.")] = "fallback",
    threshold: Annotated[float | None, typer.Option(help="Override the cache threshold (0-1).")] = None,
    reason: Annotated[str | None, typer.Option(help="Why you are degrading, stored in the event.")] = None,
    exact_only: Annotated[bool, typer.Option("--exact-only", help="Tool-result lookup: exact cache layer only.")]
    = False,
    tenant: TenantOption = "default",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer PROMPT from the highest rung that can: cache, rules, knowledge base, declared default.

    Example: lastline fallback run "How do I reset my password?" --json
    """
    if mode not in ("fallback", "intercept"):
        raise InvalidInput("--mode: choose fallback or intercept")
    req = FallbackRequest.model_validate(
        {"prompt": prompt, "task": task, "text": text, "context": context, "operation": "write" if write else "read",
         "idempotency_key": idempotency_key, "mode": mode, "threshold": threshold, "reason": reason,
         "exact_only": exact_only}
    )
    runtime = open_runtime(db)
    try:
        answer = run_ladder(runtime, tenant, req, route="cli")
    finally:
        runtime.close()
    data = answer.model_dump(mode="json")
    if as_json:
        emit(data, True)
        return
    emit({k: v for k, v in data.items() if v not in (None, [], {})}, False)


@app.command()
def events(
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many, newest first.")] = 20,
    since: Annotated[float | None, typer.Option(help="Only events after this Unix time.")] = None,
    tenant: TenantOption = "default",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List degradation events: tier, depth, confidence, reason, path and prompt hash.

    Example: lastline fallback events --limit 5 --json
    """
    runtime = open_runtime(db)
    try:
        rows = [e.model_dump() for e in runtime.events.list(tenant=tenant, limit=limit, since=since)]
    finally:
        runtime.close()
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for e in rows:
        typer.echo(f"{e['ts']:.0f}  {e['tier']:9s} depth={e['depth']} {e['confidence'] or '-':6s} "
                   f"{e['path']}  {e['prompt_hash'][:12]}")


@app.command()
def defaults(tenant: TenantOption = "default", db: DbOption = None, as_json: JsonOption = False) -> None:
    """List declared defaults (the defaults file merged with stored declarations).

    Example: lastline fallback defaults --json
    """
    runtime = open_runtime(db)
    try:
        data: dict[str, Any] = {task: d.model_dump() for task, d in runtime.defaults.all(tenant=tenant).items()}
    finally:
        runtime.close()
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    emit(data or {"(none)": "no declared defaults"}, False)


@app.command("put-default")
def put_default(
    task: Annotated[str, typer.Argument(help="Task name, or * for every task.")],
    answer: Annotated[str | None, typer.Option(help="Preset low-confidence answer (ladder L4).")] = None,
    side_effects: Annotated[bool, typer.Option("--side-effects", help="Refuse every request of this task.")]
    = False,
    tenant: TenantOption = "default",
    db: DbOption = None,
) -> None:
    """Declare TASK's preset answer and/or that it has side effects.

    Example: lastline fallback put-default order_status --answer "Order lookups are paused; retry soon."
    """
    if answer is None and not side_effects:
        raise InvalidInput("give --answer, --side-effects or both")
    runtime = open_runtime(db)
    try:
        runtime.defaults.put(tenant=tenant, task=task,
                             default=DeclaredDefault(answer=answer, side_effects=side_effects))
    finally:
        runtime.close()
    typer.echo(f"declared {task}")


@app.command("delete-default")
def delete_default(
    task: Annotated[str, typer.Argument(help="Task name.")],
    tenant: TenantOption = "default",
    db: DbOption = None,
) -> None:
    """Remove a stored declaration (entries of the defaults file stay).

    Example: lastline fallback delete-default order_status
    """
    runtime = open_runtime(db)
    try:
        if not runtime.defaults.delete(tenant=tenant, task=task):
            raise NotFound(f"no stored default for task {task!r}")
    finally:
        runtime.close()
    typer.echo(f"deleted {task}")
