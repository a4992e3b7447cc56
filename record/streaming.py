"""Streamed downloads that stay streamed under ASGI (Daphne) as well as WSGI and the test client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, StreamingHttpResponse


async def _pulled(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    # Django buffers a synchronous iterator whole under ASGI: pull it block by block in the sync thread instead
    # (the database work of the export stays in Django's one sync thread).
    pull = sync_to_async(lambda: next(chunks, None), thread_sensitive=True)
    while (block := await pull()) is not None:
        yield block


def streamed_download(
    request: HttpRequest, chunks: Iterator[bytes], content_type: str, filename: str
) -> StreamingHttpResponse:
    raw = getattr(request, "_request", request)  # a DRF Request wraps the Django one
    content = _pulled(chunks) if isinstance(raw, ASGIRequest) else chunks
    response = StreamingHttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
