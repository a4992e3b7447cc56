"""Portraits: an image over the pixel limit is refused from its header, before any decoding; JPEGs are
decoded at a reduced scale; replaced, removed and orphaned portrait files leave the disk after commit."""

from __future__ import annotations

import io
import os
from typing import Any
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageFile

from characters import portraits, services
from characters.models import Character
from tests.characters.views_fixtures import SheetTable

pytestmark = pytest.mark.django_db


def _upload(size: tuple[int, int], fmt: str = "PNG") -> SimpleUploadedFile:
    data = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(data, format=fmt)
    return SimpleUploadedFile(f"retrato.{fmt.lower()}", data.getvalue(), content_type=f"image/{fmt.lower()}")


@pytest.fixture
def media(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def test_an_image_over_the_pixel_limit_is_refused_without_decoding_it(media: Any) -> None:
    upload = _upload((5000, 3300), "JPEG")  # 16.5 Mpx, a small file
    assert upload.size is not None and upload.size < portraits.MAX_BYTES
    decoding = mock.patch.object(ImageFile.ImageFile, "load", side_effect=AssertionError("decoded"))
    with decoding, pytest.raises(ValidationError) as refused:
        portraits.reencode(upload)
    assert "megapíxeles" in str(refused.value)


def test_a_large_jpeg_is_decoded_at_a_reduced_scale(media: Any) -> None:
    upload = _upload((4000, 3000), "JPEG")
    decoded: list[tuple[int, int]] = []
    real_load = ImageFile.ImageFile.load

    def spy(image: Any) -> Any:
        decoded.append(image.size)
        return real_load(image)

    with mock.patch.object(ImageFile.ImageFile, "load", spy):
        content = portraits.reencode(upload)
    assert decoded and max(max(size) for size in decoded) <= 2048  # 1/2 scale or less, in the decoder
    with Image.open(content) as image:
        assert max(image.size) == portraits.MAX_SIDE


def _files(media: Any) -> list[str]:
    return sorted(name for _root, _dirs, names in os.walk(media) for name in names)


def test_replaced_and_removed_portraits_leave_the_disk_after_commit(
    media: Any, django_capture_on_commit_callbacks: Any
) -> None:
    t = SheetTable()
    with django_capture_on_commit_callbacks(execute=True):
        services.set_portrait(actor=t.player, character=t.pc, upload=_upload((300, 300)))
    first = Character.objects.get(pk=t.pc.pk).portrait.name
    assert len(_files(media)) == 1
    with django_capture_on_commit_callbacks(execute=True):
        services.set_portrait(actor=t.player, character=t.pc, upload=_upload((200, 200)))
    second = Character.objects.get(pk=t.pc.pk).portrait.name
    assert second != first and not (media / first).exists() and (media / second).exists()
    assert len(_files(media)) == 1
    with django_capture_on_commit_callbacks(execute=True):
        services.set_portrait(actor=t.player, character=t.pc, upload=None)
    assert _files(media) == []


def test_a_rolled_back_replacement_keeps_the_old_file(media: Any, django_capture_on_commit_callbacks: Any) -> None:
    t = SheetTable()
    with django_capture_on_commit_callbacks(execute=True):
        services.set_portrait(actor=t.player, character=t.pc, upload=_upload((300, 300)))
    first = Character.objects.get(pk=t.pc.pk).portrait.name
    with django_capture_on_commit_callbacks(execute=False) as callbacks:  # the transaction never commits
        services.set_portrait(actor=t.player, character=t.pc, upload=None)
    assert callbacks and (media / first).exists()


def test_deleting_a_character_or_its_campaign_deletes_portraits_after_commit(
    media: Any, django_capture_on_commit_callbacks: Any
) -> None:
    t = SheetTable()
    with django_capture_on_commit_callbacks(execute=True):
        services.set_portrait(actor=t.player, character=t.pc, upload=_upload((300, 300)))
        services.set_portrait(actor=t.gm, character=t.npc, upload=_upload((300, 300)))
    assert len(_files(media)) == 2
    from campaigns.models import Post

    Post.objects.filter(character=t.pc).delete()
    with django_capture_on_commit_callbacks(execute=True):
        Character.objects.get(pk=t.pc.pk).delete()
    assert len(_files(media)) == 1
    with django_capture_on_commit_callbacks(execute=True):
        Post.objects.filter(scene__campaign=t.campaign).delete()
        t.campaign.delete()
    assert _files(media) == []
