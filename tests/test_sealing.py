"""Sealed values (``tintero.sealing``): AES-GCM under a key ring from settings. A value opens only where it
was sealed, a tampered one is refused with ``seal_broken`` (a 400 through the API, never a 500), a rotated
key still opens what the old one sealed, and an unknown key opens nothing."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest
from django.test import Client, override_settings
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls.models import Flow
from systems.errors import RulesError
from tintero import sealing
from tintero.sealing import generate_key, seal, unseal

OLD, NEW, OTHER = generate_key(), generate_key(), generate_key()


@given(st.dictionaries(st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=20)), max_size=4))
@settings(max_examples=30, deadline=None)
def test_round_trip(payload: dict[str, object]) -> None:
    token = seal(payload, "7|c3|split")
    assert unseal(token, "7|c3|split") == payload


def test_the_token_shows_nothing_of_the_value() -> None:
    token = seal({"left": 2, "right": 1}, "7|c3|split")
    assert token.startswith("s1.") and b"left" not in base64.urlsafe_b64decode(token[3:])


@pytest.mark.parametrize("spot", [3, 10, 20, -1])
def test_a_tampered_value_is_refused(spot: int) -> None:
    token = seal({"left": 2}, "7|c3|split")
    raw = bytearray(base64.urlsafe_b64decode(token[3:]))
    raw[spot] ^= 0x01
    with pytest.raises(RulesError) as refused:
        unseal("s1." + base64.urlsafe_b64encode(bytes(raw)).decode(), "7|c3|split")
    assert refused.value.code == "seal_broken"


@pytest.mark.parametrize("token", ["s1.", "s1.!!!", "s1.AAAA", "garbage", ""])
def test_malformed_tokens_are_refused_not_crashed(token: str) -> None:
    with pytest.raises(RulesError) as refused:
        unseal(token, "7|c3|split")
    assert refused.value.code == "seal_broken"


def test_a_value_moved_elsewhere_does_not_open() -> None:
    token = seal({"left": 2}, "7|c3|split")
    with pytest.raises(RulesError):
        unseal(token, "7|c4|split")


def test_a_value_sealed_with_an_old_key_opens_after_rotation() -> None:
    with override_settings(TINTERO_SEALING_KEYS=[OLD]):
        token = seal({"text": "la cena"}, "9|reaction")
    with override_settings(TINTERO_SEALING_KEYS=[NEW, OLD]):
        assert unseal(token, "9|reaction") == {"text": "la cena"}
        fresh = seal({"text": "otra"}, "9|reaction")
    with override_settings(TINTERO_SEALING_KEYS=[NEW]):  # the new key seals: the old one is no longer needed
        assert unseal(fresh, "9|reaction") == {"text": "otra"}


def test_a_wrong_key_refuses() -> None:
    with override_settings(TINTERO_SEALING_KEYS=[OLD]):
        token = seal({"text": "la cena"}, "9|reaction")
    with override_settings(TINTERO_SEALING_KEYS=[OTHER]), pytest.raises(RulesError) as refused:
        unseal(token, "9|reaction")
    assert refused.value.code == "seal_broken"


def test_without_configured_keys_the_key_is_derived_never_the_secret_key_itself() -> None:
    with override_settings(TINTERO_SEALING_KEYS=[], SECRET_KEY="k" * 60, SECRET_KEY_FALLBACKS=[]):
        ring = sealing.keys()
    assert len(ring) == 1 and len(ring[0]) == 32
    assert ring[0] not in (b"k" * 32, hashlib.sha256(b"k" * 60).digest())


def test_a_rotated_secret_key_still_opens_through_its_fallback() -> None:
    with override_settings(TINTERO_SEALING_KEYS=[], SECRET_KEY="a" * 60):
        token = seal({"left": 1}, "1|c1|split")
    with override_settings(TINTERO_SEALING_KEYS=[], SECRET_KEY="b" * 60, SECRET_KEY_FALLBACKS=["a" * 60]):
        assert unseal(token, "1|c1|split") == {"left": 1}


def test_a_malformed_configured_key_is_a_configuration_error() -> None:
    from django.core.exceptions import ImproperlyConfigured

    with override_settings(TINTERO_SEALING_KEYS=["short"]), pytest.raises(ImproperlyConfigured):
        seal({}, "x")


def _legacy_seal(payload: dict[str, object], bound_to: str, secret_key: str) -> str:
    """The previous scheme, reproduced here only to prove its values still open."""
    key = hashlib.sha256(b"tintero.event.sealed|" + secret_key.encode()).digest()
    nonce = b"n" * 16
    plain = json.dumps(payload, sort_keys=True).encode()
    stream = b"".join(hmac.new(key, nonce + i.to_bytes(4, "big"), hashlib.sha256).digest() for i in range(4))
    cipher = bytes(a ^ b for a, b in zip(plain, stream, strict=False))
    tag = hmac.new(key, bound_to.encode() + b"|" + nonce + cipher, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(nonce + tag + cipher).decode()


def test_values_sealed_before_this_module_still_open() -> None:
    with override_settings(SECRET_KEY="c" * 60):
        token = _legacy_seal({"left": 3, "right": 0}, "5|c2|split", "c" * 60)
        assert unseal(token, "5|c2|split") == {"left": 3, "right": 0}
        with pytest.raises(RulesError):
            unseal(token, "5|c9|split")


@pytest.mark.django_db
def test_a_tampered_seal_in_a_procedure_is_a_clear_400_through_the_api() -> None:
    from rulesets.event.tests.roll_fixtures import build_event_roll_table

    table = build_event_roll_table({"optional": {"reactions": {"enabled": True}}}, prefix="seal_")
    client = Client()
    client.force_login(table.paco)
    opened = client.post(
        f"/api/scenes/{table.scene.pk}/flows/",
        {"kind": "reaction", "params": {"character": table.gorton.pk, "session": 1, "text": "La cena"}},
        content_type="application/json",
    )
    assert opened.status_code == 201, opened.content
    flow = Flow.objects.get(pk=opened.json()["id"])
    token = flow.secret_state["sealed"]
    raw = bytearray(base64.urlsafe_b64decode(token[3:]))
    raw[-1] ^= 0x01
    Flow.objects.filter(pk=flow.pk).update(
        secret_state={"sealed": "s1." + base64.urlsafe_b64encode(bytes(raw)).decode()}
    )
    answer = client.post(
        f"/api/flows/{flow.pk}/steps/",
        {"step": "reveal", "params": {"text": ""}, "idempotency_key": "seal-1"},
        content_type="application/json",
    )
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"]["code"] == "seal_broken", answer.json()
