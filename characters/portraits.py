"""Portrait files: decoded within a memory bound, re-encoded, and removed from disk once no row uses them.

Memory: Pillow reads only the header on ``open``, so the pixel count is checked before anything is
decoded; JPEGs are then decoded at a reduced scale (``draft``: 1/2, 1/4 or 1/8, in the decoder), and the
rest shrink with ``reduce`` steps before the final resampling. The worst case is a PNG at the pixel limit:
MAX_PIXELS x 4 bytes.

Files: a replaced or removed portrait, and the portrait of a deleted character (a campaign's deletion
included), is deleted from storage after the transaction commits, so a rollback never leaves a row
pointing at a missing file.
"""

from __future__ import annotations

import base64
import binascii
import io
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.core.files.uploadedfile import SimpleUploadedFile, UploadedFile
from django.db import transaction
from django.utils.translation import gettext as _

MAX_BYTES = 2 * 1024 * 1024
MAX_SIDE = 1024
MAX_PIXELS = 16_000_000


def reencode(upload: UploadedFile, field: str = "portrait") -> ContentFile:
    """Decode, shrink and re-encode as WebP: strips metadata and anything hidden in the original file.
    ``field`` names the form field the errors belong to (a character's portrait, an account's avatar)."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    if upload.size is None or upload.size > MAX_BYTES:
        raise ValidationError({field: _("El retrato no puede pasar de 2 MB.")})
    try:
        with Image.open(upload) as opened:
            if opened.width * opened.height > MAX_PIXELS:
                raise ValidationError(
                    {
                        field: _("La imagen es demasiado grande: como mucho %(mpx)d megapíxeles.")
                        % {"mpx": MAX_PIXELS // 1_000_000}
                    }
                )
            # JPEG: let the decoder skip what the thumbnail would throw away (no-op for other formats).
            opened.draft("RGB", (MAX_SIDE, MAX_SIDE))
            image = ImageOps.exif_transpose(opened)
            image = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB")
            image.thumbnail((MAX_SIDE, MAX_SIDE), reducing_gap=2.0)
            out = io.BytesIO()
            image.save(out, format="WEBP", quality=85)
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
        raise ValidationError({field: _("No es una imagen válida (PNG, JPEG, GIF o WebP).")}) from None
    return ContentFile(out.getvalue())


def reencode_data_uri(uri: str, field: str = "portrait") -> ContentFile:
    """An image carried as a ``data:image/...;base64,`` URI (an imported archive's portrait), decoded and
    re-encoded as an upload is: whatever the URI claims, only what Pillow decodes as an image is kept, as WebP.
    Anything else is refused (ValidationError on ``field``), so no archive can place HTML or script in media."""
    head, separator, payload = uri.partition(",")
    if not separator or not head.startswith("data:image/") or not head.endswith(";base64"):
        raise ValidationError({field: _("El retrato tiene que ser una imagen en una URI data: (base64).")})
    if len(payload) > MAX_BYTES * 4 // 3 + 4:  # refused before decoding: base64 is 4/3 of the bytes
        raise ValidationError({field: _("El retrato no puede pasar de 2 MB.")})
    try:
        content = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError({field: _("El retrato no es base64 válido.")}) from None
    return reencode(SimpleUploadedFile("portrait", content), field)


def delete_after_commit(storage: Storage, name: str) -> None:
    """Remove a file no row references any more, once the transaction that let it go has committed."""
    if name:
        transaction.on_commit(lambda: storage.delete(name))


def delete_portrait_of_deleted_character(sender: Any, instance: Any, **kwargs: Any) -> None:
    """post_delete of Character (cascades included)."""
    if instance.portrait:
        delete_after_commit(instance.portrait.storage, instance.portrait.name)


def delete_avatar_of_deleted_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    """post_delete of User: an account's avatar goes with it."""
    if instance.avatar:
        delete_after_commit(instance.avatar.storage, instance.avatar.name)
