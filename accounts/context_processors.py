"""What every page shows of the site's own settings: whether sign-ups are offered, and the contact address."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, Any]:
    return {"signups_offered": settings.SIGNUPS != "closed", "site_contact_email": settings.SITE_CONTACT_EMAIL}
