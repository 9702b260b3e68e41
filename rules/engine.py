"""``RuleEngine``: the packs (built-in, ``data/rules/*.yaml``, uploaded) and the operations on them.

Built-in packs ship inside the package (``lastline/rules/builtin``); a folder of YAML packs (setting
``rules_dir``, default ``data/rules``) adds or overrides them at start-up; packs uploaded through
the API live in a :class:`~lastline.rules.store.PackStore` per tenant (SQLite in the service) and
may not shadow a built-in name.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection
from datetime import datetime
from pathlib import Path
from typing import Any

from lastline.errors import Conflict, InvalidInput, NotFound

from .extract import ExtractResult, extract_fields
from .packs import Pack, load_pack, load_pack_file, parse_pack_yaml
from .store import PackStore
from .templates import render_template

__all__ = ["BUILTIN_DIR", "RuleEngine"]

BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
log = logging.getLogger(__name__)


class RuleEngine:
    """Extraction, task matching and template rendering over the loaded packs."""

    def __init__(self, store: PackStore | None = None, rules_dir: str | Path | None = None) -> None:
        """``store`` keeps uploaded packs; without one, uploads are refused (a read-only engine)."""
        self._packs: dict[str, Pack] = {}
        for path in sorted(BUILTIN_DIR.glob("*.yaml")):
            pack = load_pack_file(path, builtin=True)
            self._packs[pack.name] = pack
        self.rules_dir = Path(rules_dir) if rules_dir is not None else None
        if self.rules_dir is not None and self.rules_dir.is_dir():
            for path in sorted(self.rules_dir.glob("*.y*ml")):
                pack = load_pack_file(path)  # a broken operator pack fails start-up, by name
                self._packs[pack.name] = pack
        self._store = store
        self._uploaded: dict[tuple[str, str], Pack] = {}
        self._lock = threading.Lock()

    # -- packs -------------------------------------------------------------------------------
    def packs(self, *, tenant: str = "default") -> list[Pack]:
        """Every pack this tenant can use: built-in and folder packs, then its uploads."""
        out = dict(self._packs)
        if self._store is not None:
            for name, _ in self._store.list(tenant):
                out[name] = self.pack(name, tenant=tenant)
        return sorted(out.values(), key=lambda p: p.name)

    def pack(self, name: str, *, tenant: str = "default") -> Pack:
        if name in self._packs:
            return self._packs[name]
        if self._store is not None:
            key = (tenant, name)
            text = self._store.get(tenant, name)
            if text is not None:
                cached = self._uploaded.get(key)
                if cached is None or cached.raw != text:
                    cached = load_pack(parse_pack_yaml(text, f"upload:{name}"), f"upload:{name}", raw=text)
                    with self._lock:
                        self._uploaded[key] = cached
                return cached
        raise NotFound(f"no rule pack named {name!r}; known: {', '.join(p.name for p in self.packs(tenant=tenant))}")

    def add_pack(self, yaml_text: str, *, tenant: str = "default") -> tuple[Pack, bool]:
        """Validate and store an uploaded pack; returns it and whether it is new."""
        if self._store is None:
            raise InvalidInput("this rule engine has no storage for uploaded packs")
        data = parse_pack_yaml(yaml_text, "upload")
        name = data.get("name") if isinstance(data, dict) else None
        pack = load_pack(data, f"upload:{name or '?'}", raw=yaml_text)
        if pack.name in self._packs:
            raise Conflict(f"pack {pack.name!r} is built in or loaded from the rules folder; choose another name")
        created = self._store.put(tenant, pack.name, yaml_text)
        with self._lock:
            self._uploaded[(tenant, pack.name)] = pack
        return pack, created

    def delete_pack(self, name: str, *, tenant: str = "default") -> bool:
        if self._store is None or name in self._packs:
            return False
        with self._lock:
            self._uploaded.pop((tenant, name), None)
        return self._store.delete(tenant, name)

    # -- operations --------------------------------------------------------------------------
    def extract(self, text: str, pack: str = "contract_zh", fields: Collection[str] | None = None, *,
                tenant: str = "default", reference_time: datetime | None = None) -> ExtractResult:
        """Fill the pack's fields from ``text``; missing ones are ``None`` and listed in ``missing``."""
        return extract_fields(self.pack(pack, tenant=tenant), text, fields=fields, reference_time=reference_time)

    def match_task(self, task: str | None, text: str, *, tenant: str = "default") -> Pack | None:
        """The pack for a fallback request: named by ``task``, else the one whose keywords fit ``text``."""
        packs = self.packs(tenant=tenant)
        if task:
            t = task.strip().casefold()
            for p in packs:
                if t == p.name.casefold() or t in (x.casefold() for x in p.tasks):
                    return p
        best: tuple[int, Pack] | None = None
        for p in packs:
            if not p.keywords:
                continue
            folded = text.casefold()
            hits = sum(1 for k in p.keywords if k.casefold() in folded)
            if hits >= p.min_keywords and (best is None or hits > best[0]):
                best = (hits, p)
        return best[1] if best else None

    def render(self, template: str | None = None, template_id: str | None = None,
               data: dict[str, Any] | None = None, *, tenant: str = "default") -> str:
        """Render an inline template, or a pack's (``template_id`` = ``pack`` or ``pack.name``)."""
        if (template is None) == (template_id is None):
            raise InvalidInput("give exactly one of template or template_id")
        if template_id is not None:
            pack_name, _, tname = template_id.partition(".")
            pack = self.pack(pack_name, tenant=tenant)
            tname = tname or "default"
            if tname not in pack.templates:
                raise NotFound(f"pack {pack_name!r} has no template {tname!r}")
            # A pack template may name every field; the ones not given are null, as in extraction.
            return render_template(pack.templates[tname], {**dict.fromkeys(pack.fields), **(data or {})})
        assert template is not None
        return render_template(template, dict(data or {}))

