"""Every ``error.code`` the API answers with, in one list.

The server's raisers name their codes from here (the API's error handler and middleware, the procedure
runner's refusals, the push endpoint) and the OpenAPI document's error descriptions are written from here,
so a client reading the schema matches on exactly the codes the server sends. A game's own refusals (a
FATE invocation without a fate point, an Event split that does not add up) are 400s with the ruleset's
lower_snake_case code; they are the rules' words, listed per game in its rules, not here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorCode:
    code: str
    status: int
    meaning: str  # English, for the API documentation


INVALID = ErrorCode("invalid", 400, "a field is wrong: `error.fields` lists the messages per field")
PARSE_ERROR = ErrorCode("parse_error", 400, "the body is not JSON the server can store")
BAD_REQUEST = ErrorCode("bad_request", 400, "a malformed request (a bad header or host)")
STEP_NOT_AVAILABLE = ErrorCode(
    "step_not_available", 400, "the procedure does not offer that step now (out of order, unknown, or closed)"
)
STEP_UNAVAILABLE = ErrorCode(
    "step_unavailable", 400, "the step is offered but cannot succeed now (its action's `unavailable` says why)"
)
NOT_AUTHENTICATED = ErrorCode("not_authenticated", 401, "no token or session was sent")
AUTHENTICATION_FAILED = ErrorCode("authentication_failed", 401, "the token is unknown, expired or revoked")
PERMISSION_DENIED = ErrorCode("permission_denied", 403, "the viewer may see this but not do that")
NOT_FOUND = ErrorCode("not_found", 404, "missing, or not visible to this viewer")
METHOD_NOT_ALLOWED = ErrorCode("method_not_allowed", 405, "the path does not answer that method")
NOT_ACCEPTABLE = ErrorCode("not_acceptable", 406, "the `Accept` header asks for something other than JSON")
IDEMPOTENCY_CONFLICT = ErrorCode(
    "idempotency_conflict", 409, "the idempotency key was already used for a different request"
)
PUSH_DISABLED = ErrorCode("push_disabled", 409, "Web Push is off on this server (no VAPID keys)")
PUSH_ENDPOINT_TAKEN = ErrorCode(
    "push_endpoint_taken", 409, "another account registered this push endpoint: it must remove it first"
)
REQUEST_TOO_LARGE = ErrorCode("request_too_large", 413, "the body is larger than the server accepts")
UNSUPPORTED_MEDIA_TYPE = ErrorCode("unsupported_media_type", 415, "the body's content type is not accepted")
THROTTLED = ErrorCode("throttled", 429, "too many attempts: retry after the seconds in `Retry-After`")
SERVER_ERROR = ErrorCode("server_error", 500, "the server failed; nothing was half saved")
SCENE_BUSY = ErrorCode(
    "scene_busy", 503, "the write met others in the same scene twice and nothing was saved: retry after `Retry-After`"
)

CATALOGUE: tuple[ErrorCode, ...] = (
    INVALID,
    PARSE_ERROR,
    BAD_REQUEST,
    STEP_NOT_AVAILABLE,
    STEP_UNAVAILABLE,
    NOT_AUTHENTICATED,
    AUTHENTICATION_FAILED,
    PERMISSION_DENIED,
    NOT_FOUND,
    METHOD_NOT_ALLOWED,
    NOT_ACCEPTABLE,
    IDEMPOTENCY_CONFLICT,
    PUSH_DISABLED,
    PUSH_ENDPOINT_TAKEN,
    REQUEST_TOO_LARGE,
    UNSUPPORTED_MEDIA_TYPE,
    THROTTLED,
    SERVER_ERROR,
    SCENE_BUSY,
)

# The code an error of that status carries when nothing more precise is known (the middleware's pages).
BY_STATUS: dict[int, str] = {
    400: BAD_REQUEST.code,
    401: NOT_AUTHENTICATED.code,
    403: PERMISSION_DENIED.code,
    404: NOT_FOUND.code,
    405: METHOD_NOT_ALLOWED.code,
    413: REQUEST_TOO_LARGE.code,
    415: UNSUPPORTED_MEDIA_TYPE.code,
    429: THROTTLED.code,
    500: SERVER_ERROR.code,
}


def codes_for(status: int) -> tuple[ErrorCode, ...]:
    """The catalogue's codes an error of ``status`` may carry."""
    return tuple(entry for entry in CATALOGUE if entry.status == status)
