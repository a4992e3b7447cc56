"""The account's avatar: re-encoded through the portraits' pipeline, the replaced file leaves the disk, shown
beside out-of-character and narrator posts (a character post keeps its character's face; no avatar: the
monogram)."""

from __future__ import annotations

import io
import os
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from accounts import services
from accounts.models import User
from campaigns.models import Voice
from tests.campaigns.web_helpers import Table, client_for, make_user

pytestmark = pytest.mark.django_db


def _upload(size: tuple[int, int] = (300, 200), fmt: str = "PNG") -> SimpleUploadedFile:
    data = io.BytesIO()
    Image.new("RGB", size, (30, 90, 200)).save(data, format=fmt)
    return SimpleUploadedFile(f"avatar.{fmt.lower()}", data.getvalue(), content_type=f"image/{fmt.lower()}")


@pytest.fixture
def media(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def _files(media: Any) -> list[str]:
    return sorted(name for _root, _dirs, names in os.walk(media) for name in names)


def test_avatar_is_reencoded_and_the_replaced_file_leaves_the_disk(
    media: Any, django_capture_on_commit_callbacks: Any
) -> None:
    user = make_user("ana")
    with django_capture_on_commit_callbacks(execute=True):
        services.set_avatar(user=user, upload=_upload((2000, 1500), "JPEG"))
    first = User.objects.get(pk=user.pk).avatar
    assert first.name and first.name.endswith(".webp")
    with Image.open(first.path) as image:
        assert image.format == "WEBP" and max(image.size) == 1024
    with django_capture_on_commit_callbacks(execute=True):
        services.set_avatar(user=user, upload=_upload())
    second = User.objects.get(pk=user.pk).avatar.name
    assert second != first.name and not (media / first.name).exists() and (media / second).exists()
    assert len(_files(media)) == 1
    with django_capture_on_commit_callbacks(execute=True):
        services.set_avatar(user=user, upload=None)
    assert not User.objects.get(pk=user.pk).avatar and _files(media) == []


def test_a_file_that_is_not_an_image_is_refused_on_the_avatar_field(media: Any) -> None:
    user = make_user("ana")
    with pytest.raises(ValidationError) as refused:
        services.set_avatar(user=user, upload=SimpleUploadedFile("x.png", b"not an image", "image/png"))
    assert "avatar" in refused.value.message_dict
    assert not User.objects.get(pk=user.pk).avatar and _files(media) == []


def test_a_deleted_account_takes_its_avatar_file_with_it(media: Any, django_capture_on_commit_callbacks: Any) -> None:
    user = make_user("ana")
    with django_capture_on_commit_callbacks(execute=True):
        services.set_avatar(user=user, upload=_upload())
    with django_capture_on_commit_callbacks(execute=True):
        User.objects.get(pk=user.pk).delete()
    assert _files(media) == []


def test_profile_page_uploads_removes_and_refuses_avatars(media: Any) -> None:
    user = make_user("ana")
    client = client_for(user)
    url = reverse("accounts:avatar")
    page = client.get(reverse("accounts:profile")).content.decode()
    assert 'enctype="multipart/form-data"' in page and 'name="avatar"' in page
    assert 'name="remove"' not in page  # nothing to remove yet
    assert client.post(url, {"avatar": _upload()}).status_code == 302
    name = User.objects.get(pk=user.pk).avatar.name
    assert name and name.endswith(".webp")
    page = client.get(reverse("accounts:profile")).content.decode()
    assert f'src="/media/{name}"' in page and 'name="remove"' in page

    bad = client.post(url, {"avatar": SimpleUploadedFile("x.png", b"nope", "image/png")})
    assert bad.status_code == 400 and bad.context["avatar_form"].errors["avatar"]
    empty = client.post(url, {})
    assert empty.status_code == 400 and "Elige una imagen." in empty.content.decode()
    assert User.objects.get(pk=user.pk).avatar.name == name

    assert client.post(url, {"remove": "on"}).status_code == 302
    assert not User.objects.get(pk=user.pk).avatar
    assert client.get(url).status_code == 302  # a reload goes back to the profile


def test_avatar_beside_ooc_and_narrator_posts_not_beside_character_posts(media: Any) -> None:
    t = Table()
    services.set_avatar(user=t.gm, upload=_upload())
    services.set_avatar(user=t.player, upload=_upload())
    gm_avatar = User.objects.get(pk=t.gm.pk).avatar.url
    player_avatar = User.objects.get(pk=t.player.pk).avatar.url
    ooc = t.post(t.player, "fuera de personaje", voice=Voice.OOC)
    narration = t.post(t.gm, "narra la máster", voice=Voice.NARRATOR)
    in_character = t.post(t.player, "habla Alba")
    plain = t.post(t.gm, "otra vez", voice=Voice.OOC)
    html = client_for(t.player).get(t.scene.get_absolute_url()).content.decode()

    def face_of(post_id: int, html: str = html) -> str:
        start = html.index(f'id="post-{post_id}"')
        return html[start : html.index("</div>", html.index('class="post-face"', start))]

    assert f'src="{player_avatar}"' in face_of(ooc.pk)
    assert f'src="{gm_avatar}"' in face_of(narration.pk) and f'src="{gm_avatar}"' in face_of(plain.pk)
    character_face = face_of(in_character.pk)
    assert "<img" not in character_face and "monogram" in character_face  # Alba has no portrait
    services.set_avatar(user=t.gm, upload=None)
    html = client_for(t.player).get(t.scene.get_absolute_url()).content.decode()
    assert "<img" not in face_of(narration.pk, html) and "monogram" in face_of(narration.pk, html)
