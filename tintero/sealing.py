"""Sealed values: what the server keeps from everyone, GMs included, until the rules reveal it (an Event
split, a sealed reaction). Authenticated encryption with AES-GCM from ``cryptography``; each value is bound
to where it belongs (``bound_to``, the associated data), so a sealed value moved to another participant or
procedure does not open.

Keys (``settings.TINTERO_SEALING_KEYS``, from the ``TINTERO_SEALING_KEYS`` environment variable): the first
key seals, every key opens, so a key can be rotated without losing what was sealed under the old one. Left
unset, the keys are derived from ``SECRET_KEY`` (then ``SECRET_KEY_FALLBACKS``) with HKDF under a label of
their own: never the raw ``SECRET_KEY``, and never the key of anything else.

Envelope: ``s1.<base64url(nonce | ciphertext+tag)>``. Values sealed before this module (no ``s1.`` prefix)
still open through :func:`_open_legacy`, read-only, until no open procedure carries one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from rulesets.kit.refusals import refuse
from systems.errors import RulesError

JSON = dict[str, Any]

_PREFIX = "s1."
_NONCE_BYTES = 12
_HKDF_INFO = b"tintero sealing v1"  # this purpose only: a key derived here opens nothing else


def generate_key() -> str:
    """A new key for ``TINTERO_SEALING_KEYS`` (32 random bytes, base64url)."""
    return base64.urlsafe_b64encode(AESGCM.generate_key(bit_length=256)).decode()


def _derived(secret_key: str) -> bytes:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_HKDF_INFO)
    return hkdf.derive(secret_key.encode())


def _decoded(key: str) -> bytes:
    try:
        raw = base64.urlsafe_b64decode(key.encode())
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise ImproperlyConfigured(
            "TINTERO_SEALING_KEYS: every key must be 32 bytes in base64url "
            "(python -c 'import tintero.sealing as s; print(s.generate_key())')"
        )
    return raw


def keys() -> list[bytes]:
    """The key ring: the sealing key first, then the keys that still open."""
    configured = list(getattr(settings, "TINTERO_SEALING_KEYS", []) or [])
    if configured:
        return [_decoded(key) for key in configured]
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return [_derived(secret) for secret in secrets]


def broken_seal() -> RulesError:
    """The one refusal of a sealed value that does not open (tampered, moved, or under an unknown key)."""
    return refuse(
        "seal_broken",
        "Un valor sellado no es válido: no se puede abrir.",
        "A sealed value is not valid: it cannot be opened.",
    )


def seal(payload: JSON, bound_to: str) -> str:
    """Encrypt and authenticate ``payload`` for ``bound_to``: anyone who reads it sees an opaque token."""
    nonce = os.urandom(_NONCE_BYTES)
    plain = json.dumps(payload, sort_keys=True).encode()
    sealed = AESGCM(keys()[0]).encrypt(nonce, plain, bound_to.encode())
    return _PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode()


def unseal(token: str, bound_to: str) -> JSON:
    """Open a sealed value bound to ``bound_to``; :func:`broken_seal` for anything else."""
    if not token.startswith(_PREFIX):
        return _open_legacy(token, bound_to)
    try:
        raw = base64.urlsafe_b64decode(token[len(_PREFIX) :].encode())
    except (binascii.Error, ValueError):
        raise broken_seal() from None
    nonce, sealed = raw[:_NONCE_BYTES], raw[_NONCE_BYTES:]
    for key in keys():
        try:
            plain = AESGCM(key).decrypt(nonce, sealed, bound_to.encode())
        except (InvalidTag, ValueError):
            continue
        return dict(json.loads(plain))
    raise broken_seal()


def _open_legacy(token: str, bound_to: str) -> JSON:
    """Values sealed by the previous scheme (an HMAC keystream from ``SECRET_KEY``): opened, never made."""
    try:
        raw = base64.urlsafe_b64decode(token.encode())
    except (binascii.Error, ValueError):
        raise broken_seal() from None
    nonce, tag, cipher = raw[:16], raw[16:32], raw[32:]
    for secret in [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]:
        key = hashlib.sha256(b"tintero.event.sealed|" + secret.encode()).digest()
        expected = hmac.new(key, bound_to.encode() + b"|" + nonce + cipher, hashlib.sha256).digest()[:16]
        if len(raw) < 32 or not hmac.compare_digest(tag, expected):
            continue
        blocks = (len(cipher) + 31) // 32
        stream = b"".join(hmac.new(key, nonce + i.to_bytes(4, "big"), hashlib.sha256).digest() for i in range(blocks))
        return dict(json.loads(bytes(a ^ b for a, b in zip(cipher, stream, strict=False))))
    raise broken_seal()
