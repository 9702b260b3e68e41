"""Every error lastline raises on purpose, under one base class.

Each class carries the HTTP status and the stable ``error`` code the API returns, so the HTTP
face maps errors in one place and the CLI prints one readable line and exits non-zero.

    LastlineError                      500 internal_error
    ├── ConfigError                    500 config_error        (a setting is wrong; named)
    ├── InvalidInput                   422 invalid_input       (a request field is wrong; named)
    │   └── PayloadTooLarge            413 payload_too_large
    ├── Unauthorized                   401 unauthorized
    ├── NotFound                       404 not_found
    │   └── NoFallbackAnswer           404 no_fallback_answer
    ├── Conflict                       409 conflict
    │   └── NoDegradedWrites           409 no_degraded_writes  (keeps the idempotency key)
    ├── StorageError                   503 storage_error       (never logged and swallowed)
    ├── ModelUnavailable               503 model_unavailable
    └── Overloaded                     503 overloaded          (shed at once; carries retry_after_s)
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = [
    "ConfigError",
    "Conflict",
    "InvalidInput",
    "LastlineError",
    "ModelUnavailable",
    "NoDegradedWrites",
    "NoFallbackAnswer",
    "NotFound",
    "Overloaded",
    "PayloadTooLarge",
    "StorageError",
    "Unauthorized",
]


class LastlineError(Exception):
    """Base of every deliberate lastline error; ``to_dict`` is the HTTP error body."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.code, "detail": self.detail, **self.extra}


class ConfigError(LastlineError):
    """A setting is missing or wrong; the message starts with the setting's name."""

    code = "config_error"


class InvalidInput(LastlineError):
    status = 422
    code = "invalid_input"


class PayloadTooLarge(InvalidInput):
    status = 413
    code = "payload_too_large"


class Unauthorized(LastlineError):
    status = 401
    code = "unauthorized"


class NotFound(LastlineError):
    status = 404
    code = "not_found"


class NoFallbackAnswer(NotFound):
    code = "no_fallback_answer"


class Conflict(LastlineError):
    status = 409
    code = "conflict"


class NoDegradedWrites(Conflict):
    """A write (payment, permission, deletion) asked of a degraded tier: refused, key echoed."""

    code = "no_degraded_writes"


class StorageError(LastlineError):
    status = 503
    code = "storage_error"


class ModelUnavailable(LastlineError):
    status = 503
    code = "model_unavailable"


class Overloaded(LastlineError):
    """Past the bounded in-flight work (or the request's deadline): refused at once, retry later.

    ``retry_after_s`` becomes the ``Retry-After`` header; ``limit`` names the bulkhead that was full.
    ``reason`` (``full``, ``tenant_share``, ``waited``, ``draining``, ``deadline``) labels the shed count, not the body.
    """

    status = 503
    code = "overloaded"

    def __init__(self, detail: str, *, reason: str = "full", **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.reason = reason
