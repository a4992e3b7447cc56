"""Tintero settings. Everything that differs between deployments comes from the environment.

Embedded default (no variables set): SQLite in WAL mode + in-memory channel layer, one process.
Production: DATABASE_URL (PostgreSQL) + REDIS_URL (channels-redis) + SECRET_KEY, DEBUG off.
"""

from __future__ import annotations

import ipaddress
import os
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from tintero.env import env_bool, env_int, env_list, env_str, secret_key_weakness

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=True)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY is required when DEBUG is off.")
    SECRET_KEY = "django-insecure-tintero-local-development-only"
elif not DEBUG:
    weakness = secret_key_weakness(SECRET_KEY)
    if weakness:
        raise ImproperlyConfigured(
            f"SECRET_KEY is too weak for production ({weakness}). Generate one with: "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )

# Sealed values (tintero.sealing): base64url 32-byte keys, comma-separated; the first seals, every one opens
# (rotation). Unset: derived from SECRET_KEY (and SECRET_KEY_FALLBACKS) with HKDF, never SECRET_KEY itself.
TINTERO_SEALING_KEYS = env_list("TINTERO_SEALING_KEYS", [])

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "csp",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "campaigns",
    "characters",
    "rolls",
    "django_tasks",
    "taskqueue",
    "notifications",
    "record",
    "operations",
    # The games: the registry, then one app per ruleset (adding a game is one line here).
    "rulesets",
    "rulesets.fate_sotc",
    "rulesets.fate_accelerated",
    "rulesets.event",
    "rulesets.presagios",
    "rulesets.dont_rest_your_head",
    "rulesets.generic",
]

MIDDLEWARE = [
    # First: /healthz and /readyz are answered before sessions, CSRF, redirects and host checks.
    "operations.health.HealthProbeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "tintero.api.middleware.ApiErrorMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise, so static files are never counted.
    "tintero.request_limits.RequestLimits",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, so only the view is queued: on SQLite, requests that may write run one at a time.
    "tintero.sqlite.middleware.WriteRequestQueue",
]

ROOT_URLCONF = "tintero.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "tintero.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "notifications.context_processors.unread_notifications",
                "accounts.context_processors.site",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------


def _scratch_dir() -> Path:
    """Where the test database file goes: RAM (tmpfs) where there is one."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())


DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("CONN_MAX_AGE", 0))}
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # PostgreSQL: Django's own connection pool (psycopg_pool), on unless DATABASE_POOL=off. A request then
    # borrows a warm connection instead of opening one (a new connection per request cost ~half the
    # posting rate in `make bench`), and under ASGI a connection goes back to the pool when the request's
    # thread closes it, so none leaks. The pool replaces persistent connections (CONN_MAX_AGE must be 0
    # with it); without the pool, CONN_MAX_AGE keeps connections for that many seconds.
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool("DATABASE_POOL", True):
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": env_int("DATABASE_POOL_MIN_SIZE", 2),
            "max_size": env_int("DATABASE_POOL_MAX_SIZE", 20),
            "timeout": env_int("DATABASE_POOL_TIMEOUT", 10),
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "tintero.sqlite",
            "NAME": env_str("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": {
                # IMMEDIATE takes the write lock at BEGIN, so two writers queue instead of one
                # failing with "database is locked" when it upgrades a read lock.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": (
                    "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000; "
                    "PRAGMA foreign_keys=ON;"
                ),
            },
            # Tests get a file, not Django's shared-cache in-memory database: the live servers and
            # database_sync_to_async run on other threads, and shared-cache table locks ("database
            # table is locked") fail at once, ignoring busy_timeout. One file per test process, in
            # RAM where there is a tmpfs (2.5x faster than a disk file here).
            "TEST": {"NAME": env_str("SQLITE_TEST_PATH", str(_scratch_dir() / f"tintero-test-{os.getpid()}.sqlite3"))},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# SQLite: how long a request that may write waits for those before it (tintero.sqlite.middleware) before
# it goes ahead anyway, guarded by the database's own writer queue; 0 turns the request queue off.
SQLITE_WRITE_QUEUE_SECONDS = env_int("SQLITE_WRITE_QUEUE_SECONDS", 30)

# --- Channels ------------------------------------------------------------------------------------
# Days of live events a reconnecting client can catch up on (`manage.py trim_event_log` deletes older
# ones, keeping each campaign's newest); a client away for longer reloads the page regions instead.
EVENT_LOG_RETENTION_DAYS = env_int("EVENT_LOG_RETENTION_DAYS", 30)
REDIS_URL = env_str("REDIS_URL")
# Which channels-redis layer: "pubsub" (RedisPubSubChannelLayer, the default: 3-4x faster fan-out in
# `make bench`, and at-most-once delivery costs nothing because clients resync from the event log) or
# "core" (RedisChannelLayer).
REDIS_LAYER = env_str("REDIS_LAYER", "pubsub")
CHANNEL_LAYER_PREFIX = env_str("CHANNEL_LAYER_PREFIX", "tintero")
# Seconds between the sockets' heartbeat frames ({"type": "heartbeat", "seq": <last seq>}): a client
# that has missed the tail of a stream (events sent while the layer was down) notices within this time.
LIVE_HEARTBEAT_SECONDS = env_int("LIVE_HEARTBEAT_SECONDS", 15)
# One channel-layer subscription per campaign and process, fanned out to that process's sockets
# (campaigns.live_hub), instead of one per socket. `make bench` (bench/fanout.py --hub on,off) compares them.
LIVE_HUB = env_bool("LIVE_HUB", True)
_REDIS_BACKENDS = {
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
    "core": "channels_redis.core.RedisChannelLayer",
}
if REDIS_URL:
    if REDIS_LAYER not in _REDIS_BACKENDS:
        raise ImproperlyConfigured(f"REDIS_LAYER must be one of {sorted(_REDIS_BACKENDS)}, not {REDIS_LAYER!r}")
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": _REDIS_BACKENDS[REDIS_LAYER],
            # redis-py's default 5 s read timeout equals the layer's blocking wait, so an idle socket's
            # consumer would crash after 5 s; give reads room.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 30}],
                # Pub/sub channel names are global across Redis databases: two deployments sharing one
                # Redis must each have their own prefix, or they hear each other's events.
                "prefix": CHANNEL_LAYER_PREFIX,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- Caches --------------------------------------------------------------------------------------
THREAD_PAGE_CACHE_ENTRIES = env_int("THREAD_PAGE_CACHE_ENTRIES", 300)
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    # Rendered posts, rolls and composer fields (campaigns.post_fragments, rolls.roll_fragments,
    # tintero.field_fragments), kept in each process: keyed by what they show, never invalidated; the least
    # recently used go past MAX_ENTRIES (about 2 KB each), any after a day.
    "fragments": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "fragments",
        "TIMEOUT": 86_400,
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    },
    # Whole thread pages for repeat views (campaigns.thread_cache), kept in each process under a key of what
    # they show; 50-100 KB each, so THREAD_PAGE_CACHE_ENTRIES (0: off) bounds the memory they take.
    "pages": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "pages",
        "TIMEOUT": 3_600,
        "OPTIONS": {"MAX_ENTRIES": max(1, THREAD_PAGE_CACHE_ENTRIES)},
    },
}

# --- Accounts ------------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "campaigns:home"
LOGOUT_REDIRECT_URL = "campaigns:home"
# Log-in throttling (accounts/throttle.py, counted in Redis when there is one, else in the database):
# attempts allowed per account and per client address in each window of LOGIN_THROTTLE_WINDOW seconds, on
# the log-in page and POST /api/auth/token/ alike; an attempt from a device the user logged in from before
# (its signed device cookie, LOGIN_DEVICE_COOKIE_DAYS) counts against that device only.
# Where rate limits count: this Redis (REDIS_URL unless set apart; empty: the database).
THROTTLE_REDIS_URL = env_str("THROTTLE_REDIS_URL", REDIS_URL)
LOGIN_THROTTLE_ACCOUNT = env_int("LOGIN_THROTTLE_ACCOUNT", 10)
LOGIN_THROTTLE_ADDRESS = env_int("LOGIN_THROTTLE_ADDRESS", 50)
LOGIN_THROTTLE_DEVICE = env_int("LOGIN_THROTTLE_DEVICE", 10)
LOGIN_DEVICE_COOKIE_DAYS = env_int("LOGIN_DEVICE_COOKIE_DAYS", 365)
LOGIN_THROTTLE_WINDOW = env_int("LOGIN_THROTTLE_WINDOW", 15 * 60)
# Limits on the writes a person can repeat (accounts/write_limits.py), on the same atomic counter: at most
# N per window of seconds, per account (per client address for sign-ups); 0 turns one off. Past one, pages
# answer 429 with the message and the API a JSON 429 `throttled` with Retry-After. Defaults after Discourse's.
LIMIT_POSTS = env_int("LIMIT_POSTS", 20)
LIMIT_POSTS_WINDOW = env_int("LIMIT_POSTS_WINDOW", 5 * 60)
LIMIT_API_WRITES = env_int("LIMIT_API_WRITES", 60)
LIMIT_API_WRITES_WINDOW = env_int("LIMIT_API_WRITES_WINDOW", 60)
LIMIT_SIGNUPS_PER_ADDRESS = env_int("LIMIT_SIGNUPS_PER_ADDRESS", 3)
LIMIT_SIGNUPS_PER_ADDRESS_WINDOW = env_int("LIMIT_SIGNUPS_PER_ADDRESS_WINDOW", 24 * 60 * 60)
LIMIT_INVITATIONS = env_int("LIMIT_INVITATIONS", 20)
LIMIT_INVITATIONS_WINDOW = env_int("LIMIT_INVITATIONS_WINDOW", 24 * 60 * 60)
LIMIT_JOIN_REQUESTS = env_int("LIMIT_JOIN_REQUESTS", 10)
LIMIT_JOIN_REQUESTS_WINDOW = env_int("LIMIT_JOIN_REQUESTS_WINDOW", 24 * 60 * 60)
LIMIT_NUDGES = env_int("LIMIT_NUDGES", 20)
LIMIT_NUDGES_WINDOW = env_int("LIMIT_NUDGES_WINDOW", 60 * 60)
# People one post may mention (@name): a longer list is refused with a form error (0: no limit).
LIMIT_MENTIONS_PER_POST = env_int("LIMIT_MENTIONS_PER_POST", 10)
# Requests per client address, site-wide (tintero/request_limits.py; static files and health checks exempt):
# LIMIT_REQUESTS_PER_MINUTE per 60 s and LIMIT_REQUESTS_BURST per 10 s. Counted in Redis; without Redis only
# when LIMIT_REQUESTS_IN_DATABASE is on, since a database write on every page read would queue SQLite's readers.
LIMIT_REQUESTS_PER_MINUTE = env_int("LIMIT_REQUESTS_PER_MINUTE", 200)
LIMIT_REQUESTS_PER_MINUTE_WINDOW = env_int("LIMIT_REQUESTS_PER_MINUTE_WINDOW", 60)
LIMIT_REQUESTS_BURST = env_int("LIMIT_REQUESTS_BURST", 50)
LIMIT_REQUESTS_BURST_WINDOW = env_int("LIMIT_REQUESTS_BURST_WINDOW", 10)
LIMIT_REQUESTS_IN_DATABASE = env_bool("LIMIT_REQUESTS_IN_DATABASE", default=False)
# Who may create an account: "open" (anyone), "invitation" (with an unused code made by
# `manage.py signup_invitations`) or "closed" (nobody: accounts are made by the staff).
SIGNUPS = env_str("SIGNUPS", "open").strip().lower()
if SIGNUPS not in {"open", "invitation", "closed"}:
    raise ImproperlyConfigured(f"SIGNUPS must be open, invitation or closed, not {SIGNUPS!r}")
# The site's contact address, shown in every page's footer (none shown while empty).
SITE_CONTACT_EMAIL = env_str("SITE_CONTACT_EMAIL")
# Hours the signed link that confirms a new email address works (accounts.mail).
EMAIL_CONFIRM_HOURS = env_int("EMAIL_CONFIRM_HOURS", 72)
# Confirmation links mailed per account and per target address in each window of
# EMAIL_CONFIRM_THROTTLE_WINDOW seconds (sign-up, profile, resend): no one floods a stranger's mailbox.
EMAIL_CONFIRM_THROTTLE_ACCOUNT = env_int("EMAIL_CONFIRM_THROTTLE_ACCOUNT", 5)
EMAIL_CONFIRM_THROTTLE_ADDRESS = env_int("EMAIL_CONFIRM_THROTTLE_ADDRESS", 3)
EMAIL_CONFIRM_THROTTLE_WINDOW = env_int("EMAIL_CONFIRM_THROTTLE_WINDOW", 60 * 60)
# Seconds a password reset link works (Django's token generator).
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3 * 60 * 60)
# Password reset requests (accounts.recovery) allowed per typed address and per client address in each window
# of PASSWORD_RESET_THROTTLE_WINDOW seconds, counted on the atomic counter like log-in failures.
PASSWORD_RESET_THROTTLE_EMAIL = env_int("PASSWORD_RESET_THROTTLE_EMAIL", 3)
PASSWORD_RESET_THROTTLE_ADDRESS = env_int("PASSWORD_RESET_THROTTLE_ADDRESS", 20)
PASSWORD_RESET_THROTTLE_WINDOW = env_int("PASSWORD_RESET_THROTTLE_WINDOW", 60 * 60)
# Days an API token lives after it is issued (0: until revoked). A password change revokes every token.
API_TOKEN_TTL_DAYS = env_int("API_TOKEN_TTL_DAYS", 90)
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Language ------------------------------------------------------------------------------------
LANGUAGE_CODE = "es"
LANGUAGES = [("es", _("Español")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = env_str("TIME_ZONE", "Europe/Madrid")
USE_TZ = True

# --- Static and media ----------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))
# Serve uploaded files from the app (make run, make dev); in production the web server serves MEDIA_ROOT.
SERVE_MEDIA = env_bool("SERVE_MEDIA", default=DEBUG)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- REST API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": ["tintero.api.throttles.ApiWriteThrottle"],
    "DEFAULT_PAGINATION_CLASS": "tintero.api.pagination.Pagination",
    "PAGE_SIZE": 25,
    "DEFAULT_SCHEMA_CLASS": "tintero.api.schema.ApiAutoSchema",
    "EXCEPTION_HANDLER": "tintero.api.errors.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "tintero.api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_METADATA_CLASS": "tintero.api.metadata.ApiMetadata",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Tintero API",
    "DESCRIPTION": "Play-by-post role-playing campaigns: campaigns, scenes, posts, sheets, rolls and pools.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # 3.1: nullable references and the rules' pydantic schemas (JSON Schema 2020-12) are valid as they are.
    "OAS_VERSION": "3.1.0",
    # The procedures' typed state, waiting_for and step params, from the rulesets' step tables.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tintero.api.procedure_schemas.add_procedures",
        "tintero.api.schema.untyped_nullables",
    ],
    # Choice sets shared by several fields get one stable name each in the schema.
    "ENUM_NAME_OVERRIDES": {
        "CampaignStatusEnum": "campaigns.models.CampaignStatus",
        "RequestStatusEnum": "campaigns.models.RequestStatus",
        "SceneStatusEnum": "campaigns.models.SceneStatus",
        "RoleEnum": "campaigns.models.Role",
        "JoinRoleEnum": [("player", "player"), ("reader", "reader")],
        "ScopeEnum": [("campaign", "campaign"), ("character", "character")],
    },
}

# --- Notifications, mail and the task queue ------------------------------------------------------
# Background work (mail, digests, notifications' fan-out) runs through Django's tasks interface. The
# worker: `python manage.py run_task_worker` (README). Tests use the immediate backend.
TASKS = {"default": {"BACKEND": env_str("TASKS_BACKEND", "taskqueue.backend.DatabaseBackend")}}
# A task claimed longer ago than this by a worker that never finished it (killed) is made ready again.
TASK_STALE_SECONDS = env_int("TASK_STALE_SECONDS", 15 * 60)
# /readyz fails once the oldest task ready to run has waited longer than this (no worker, or too few).
READINESS_TASK_LAG_SECONDS = env_int("READINESS_TASK_LAG_SECONDS", 300)
# Retention (operations.retention, run hourly by the task worker): days kept after a task finished, a mail
# was sent, a notification was read. Unsent mail, unread notifications and waiting tasks are never trimmed.
TASK_RETENTION_DAYS = env_int("TASK_RETENTION_DAYS", 14)
DELIVERY_RETENTION_DAYS = env_int("DELIVERY_RETENTION_DAYS", 30)
NOTIFICATION_RETENTION_DAYS = env_int("NOTIFICATION_RETENTION_DAYS", 90)
for _name in ("TASK_RETENTION_DAYS", "DELIVERY_RETENTION_DAYS", "NOTIFICATION_RETENTION_DAYS"):
    # At least a day: a nudge's row is what stops a second nudge the same day.
    if globals()[_name] < 1:
        raise ImproperlyConfigured(f"{_name} must be at least 1 (days)")
# Mail: printed to the console unless EMAIL_HOST is set (then SMTP with the usual variables).
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=True)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Tintero <tintero@localhost>")
# The site's address for links in mail and feeds.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")
# Mail about a campaign when the user has not chosen: immediate, daily (digest) or off.
NOTIFICATION_EMAIL_DEFAULT = env_str("NOTIFICATION_EMAIL_DEFAULT", "immediate")
# Attempts at sending one mail before it is abandoned (retries wait 1, 2, 4... minutes).
NOTIFICATION_MAIL_ATTEMPTS = env_int("NOTIFICATION_MAIL_ATTEMPTS", 4)
# Days an unsubscribe link in a mail works; an older one shows a page that says so and links the settings.
NOTIFICATION_UNSUBSCRIBE_DAYS = env_int("NOTIFICATION_UNSUBSCRIBE_DAYS", 90)
# Seconds a delivery may stay "sending" before it counts as stuck (its worker died mid-send) and is sent
# again, with the same Message-ID. Below TASK_STALE_SECONDS, so the re-run of the dead worker's task sends it.
NOTIFICATION_SENDING_TIMEOUT = env_int("NOTIFICATION_SENDING_TIMEOUT", 10 * 60)
# Web Push (pywebpush): disabled, with a clear status, while these are unset.
VAPID_PUBLIC_KEY = env_str("VAPID_PUBLIC_KEY")
VAPID_PRIVATE_KEY = env_str("VAPID_PRIVATE_KEY")
VAPID_SUBJECT = env_str("VAPID_SUBJECT", "mailto:tintero@localhost")
# The push services a browser's endpoint may point at, by host suffix (FCM, Mozilla autopush, Apple, Windows
# WNS): any other endpoint is refused, and these only while they resolve to public addresses.
PUSH_SERVICE_HOSTS = env_list(
    "PUSH_SERVICE_HOSTS",
    [
        "fcm.googleapis.com",
        "android.googleapis.com",
        "push.services.mozilla.com",
        "push.apple.com",
        "notify.windows.com",
    ],
)

# --- Security ------------------------------------------------------------------------------------
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY") else None
# Addresses or networks of the reverse proxies in front of the app: X-Forwarded-For is believed only on a
# request whose peer is one of them (accounts.throttle.client_address); anyone else's header is ignored.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(f"TRUSTED_PROXIES: {_proxy!r} is not an address or a network") from None
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# HTTPS: redirect plain HTTP (off by default: a proxy usually does it) and HSTS (seconds; 0 = off).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
# Content-Security-Policy (django-csp): scripts only from our own static files, never inline, no eval.
# Styles may still be inline: the ruleset sheet templates carry <style> blocks (to move into each
# ruleset's static CSS), and posts render table alignment as style attributes. Images may come from any
# https host, as posts may embed them. The API docs pages add a worker for ReDoc (tintero/api/urls.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "https:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 5 * 1024 * 1024)
# The one limit of an imported campaign archive (page and API alike): the upload is spooled to a temporary
# file, then decoded whole, so the import holds several times this in memory (README: "Import").
ARCHIVE_IMPORT_MAX_BYTES = env_int("ARCHIVE_IMPORT_MAX_BYTES", 32 * 1024 * 1024)

# One line per request: Django's default config gives the "django" logger its own console handler and
# lets it propagate to the root one as well, so every line printed twice. The access line (daphne's
# "django.channels.server") already shows a 404, so "django.request" only reports errors.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
    "loggers": {
        "django": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO"), "propagate": False},
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
    },
}

# Tintero-specific knobs.
POSTS_PER_PAGE = 25
