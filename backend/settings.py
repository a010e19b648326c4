"""Django settings. Every value from outside comes through `backend.env` and is listed in deploy/env.example."""

from __future__ import annotations

import re
from pathlib import Path

from backend import env
from backend.accounts.sso import group_roles

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = env.var_dir()
# This host's name in the queue of the uploads it receives (backend/core/host_queues.py); default: the machine's.
HOST_NAME = env.get_str("TANKODROM_HOST_NAME", "")

DEBUG = env.get_bool("DJANGO_DEBUG", False)
# The local stack runs without a configured secret; production must set one (check --deploy says so).
SECRET_KEY = env.get_str("DJANGO_SECRET_KEY", "insecure-local-development-key-change-me-in-production-0123456789")
ALLOWED_HOSTS = env.get_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.get_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
PUBLIC_URL = env.get_str("TANKODROM_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "backend.core",
    "backend.projects",
    "backend.loadtests",
    "backend.tankapi",
    "backend.uploads",
    "backend.reports",
    "backend.compare",
    "backend.diagnosis",
    "backend.regressions",
    "backend.notify",
    "backend.accounts",
    "backend.sharing",
    "backend.retention",
    "backend.web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Outermost of ours: sees every answer, the shared ones too (backend/core/cache_scope.py).
    "backend.core.cache_scope.CacheScopeMiddleware",
    # Before anything reads the body: an oversized request is refused from its Content-Length alone.
    "backend.core.body_limit.BodySizeLimitMiddleware",
    # NUL in the URL, a body without a length: refused before any view (backend/core/middleware.py).
    "backend.core.middleware.RequestShapeMiddleware",
    "backend.core.middleware.ContentSecurityPolicyMiddleware",
    # Anonymous reads of a finished public test's report answers, from memory after a one-row version check.
    "backend.fastpaths.shared_answers.SharedAnswersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# The tank posts to `.../edit.json` and `/<id>`: never redirect to add a slash (requests turns POST into GET).
APPEND_SLASH = False

ROOT_URLCONF = "backend.urls"
WSGI_APPLICATION = "backend.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "backend" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

_db = env.parse_database_url(env.get_str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tankodrom"))
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "HOST": _db.host,
        "PORT": _db.port,
        "NAME": _db.name,
        "USER": _db.user,
        "PASSWORD": _db.password,
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.get_str("REDIS_URL", "redis://127.0.0.1:6379/0")
# Rate-limit counters and rendered chat previews; shared by every web worker, hence Redis.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}

CLICKHOUSE = {
    "host": env.get_str("CLICKHOUSE_HOST", "127.0.0.1"),
    "port": env.get_int("CLICKHOUSE_PORT", 9000),
    "user": env.get_str("CLICKHOUSE_USER", "default"),
    "password": env.clickhouse_password(VAR_DIR),
    "database": env.get_str("CLICKHOUSE_DATABASE", "tankodrom"),
    # The cluster of the servers' <remote_servers> that holds the schema; empty: one server (docs/scaling.md).
    "cluster": env.get_str("CLICKHOUSE_CLUSTER", ""),
    # Other nodes to connect to when CLICKHOUSE_HOST does not answer ("host:port,host:port").
    "alt_hosts": env.get_str("CLICKHOUSE_ALT_HOSTS", ""),
}

CELERY_BROKER_URL = env.get_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = env.get_str("CELERY_RESULT_BACKEND", REDIS_URL)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
# Named queues: ingestion work must not wait behind a long comparison, and vice versa. Routing lives here, in
# one table keyed by task name, so a task lands on its queue however it is sent: `.delay()` from the code, or
# beat's schedule below.
CELERY_TASK_ROUTES = {
    "backend.tankapi.tasks.flush_buffer": {"queue": "ingest"},
    "backend.tankapi.tasks.finish_test": {"queue": "ingest"},
    "backend.tankapi.tasks.close_silent_tests": {"queue": "default"},
    # Phout ingestion on a queue of its own, served by workers of its own: an upload of minutes must never hold
    # back the tank's flush (which runs every second on `ingest`).
    "backend.uploads.tasks.ingest_upload": {"queue": "uploads"},
    "backend.uploads.tasks.follow_upload": {"queue": "uploads"},
    "backend.uploads.tasks.expire_abandoned_uploads": {"queue": "default"},
    "backend.uploads.tasks.resume_stalled_uploads": {"queue": "default"},
    "backend.reports.tasks.postprocess_test": {"queue": "analysis"},
    "backend.diagnosis.tasks.diagnose_test": {"queue": "analysis"},
    "backend.compare.tasks.compute_comparison": {"queue": "analysis"},
    "backend.notify.tasks.notify_test": {"queue": "default"},
    # Calls to the outside (URLs users configure) on a queue of their own, served by a worker pool of their own: a
    # target that never answers must not hold back the tank stream or an upload (issue 29).
    "backend.notify.tasks.deliver": {"queue": "outbound"},
    "backend.notify.tasks.announce_failures": {"queue": "default"},
    "backend.retention.tasks.start_scheduled_job": {"queue": "default"},
    "backend.retention.tasks.run_job": {"queue": "default"},
}
CELERY_TASK_ALWAYS_EAGER = env.get_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TIMEZONE = "UTC"


def _every(task: str, seconds: float, queue: str, expires_s: int | None = None) -> dict[str, object]:
    """A beat entry: `task` every `seconds` on `queue`; with `expires_s`, a run still queued that long is dropped
    (the next one does the same work)."""
    options: dict[str, object] = {"queue": queue} if expires_s is None else {"queue": queue, "expires": expires_s}
    return {"task": task, "schedule": seconds, "options": options}


# The tank stream's buffer is drained every second; silent tests are closed once a minute (backend/tankapi).
CELERY_BEAT_SCHEDULE = {
    "tankapi-flush-buffer": _every("backend.tankapi.tasks.flush_buffer", 1.0, "ingest", expires_s=5),
    "tankapi-close-silent": _every("backend.tankapi.tasks.close_silent_tests", 60.0, "default"),
    "uploads-expire-abandoned": _every("backend.uploads.tasks.expire_abandoned_uploads", 600.0, "default"),
    "uploads-resume-stalled": _every("backend.uploads.tasks.resume_stalled_uploads", 60.0, "default", expires_s=60),
    "notify-announce-failures": _every("backend.notify.tasks.announce_failures", 120.0, "default"),
    # Maintenance: expire what the retention policy says is too old (backend/retention), once an hour.
    "retention-expire": _every("backend.retention.tasks.start_scheduled_job", 3600.0, "default", expires_s=3600),
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
FRONTEND_DIST = BASE_DIR / "frontend" / "dist"
STATICFILES_DIRS = [FRONTEND_DIST] if FRONTEND_DIST.is_dir() else []
WHITENOISE_MAX_AGE = 3600
# Vite names every built asset after its content (assets/<name>-<8-character hash>.<ext>): a new build is a new
# URL, so browsers and proxies keep these a year without asking again (Cache-Control: max-age=315360000, immutable).
WHITENOISE_IMMUTABLE_FILE_TEST = rf"^{re.escape(STATIC_URL)}assets/[^/]+-[A-Za-z0-9_-]{{8}}\.[a-z0-9]+$"
# collectstatic writes a gzip copy of each file beside it, which WhiteNoise serves to browsers that accept it: the
# chart chunk is 1.1 MB plain, ~0.35 MB gzipped, fetched by everyone who opens a report with an empty cache.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Never NaN or Infinity on the wire (backend/core/renderers.py).
    "DEFAULT_RENDERER_CLASSES": ["backend.core.renderers.FiniteJSONRenderer"],
    # JSON only (a form's text values would need coercing back to the schema's types), with a nesting limit and no
    # NUL or lone surrogates in its text (backend/core/parsers.py).
    "DEFAULT_PARSER_CLASSES": ["backend.core.parsers.CheckedJSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "backend.loadtests.auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "EXCEPTION_HANDLER": "backend.core.errors.json_exception_handler",
    # Writes only, per authenticated user (see backend/accounts/throttling.py).
    "DEFAULT_THROTTLE_CLASSES": ["backend.accounts.throttling.WriteRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "write": env.get_str("TANKODROM_WRITE_RATE", "600/min"),
        "login": env.get_str("TANKODROM_LOGIN_RATE", "10/min"),
        # Report reads of a window of one's own (not the cached default view) by anonymous clients, per address.
        "anon_read": env.get_str("TANKODROM_ANON_READ_RATE", "120/min"),
    },
}
# The request header (as Django's META names it) that holds the client's address for the per-address limits
# (backend/accounts/throttling.py); "" = the connection's own address. settings_prod.py names the proxy's header.
TANKODROM_CLIENT_ADDRESS_HEADER = ""
# A NaN or Infinity in a JSON answer is rendered as null and logged (backend/core/renderers.py); True raises instead
# (settings_test.py: the test that made one fails).
TANKODROM_JSON_NONFINITE_RAISES = False

SPECTACULAR_SETTINGS = {
    "TITLE": "Tankodrom API",
    "DESCRIPTION": "Load-test results: upload, report, compare. Yandex.Tank's Overload protocol is served too.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Error answers and text-parameter rules every operation shares (backend/core/schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "backend.core.schema.add_common_errors",
    ],
    # Several answers have a `status`, each with its own set: each set named for what it is the status of, not by
    # drf-spectacular's guess (which renames a set when another field of the same name appears).
    "ENUM_NAME_OVERRIDES": {
        "TestStatusEnum": "backend.loadtests.models.TestStatus",
        "UploadStatusEnum": "backend.loadtests.models.UploadStatus",
        "AnalysisStatusEnum": "backend.diagnosis.models.AnalysisStatus",
    },
    # Swagger UI and ReDoc from drf-spectacular-sidecar's static files, not a CDN: the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# A tank that dies without calling close.json is closed after this much silence.
TANKODROM_ONLINE_SILENCE_S = env.get_int("TANKODROM_ONLINE_SILENCE_S", 600)
# Private instance: reading any page or API needs a login (writing always needs a token or session).
TANKODROM_PRIVATE_INSTANCE = env.get_bool("TANKODROM_PRIVATE_INSTANCE", False)
# The role a new account gets in the default project: viewer, uploader, maintainer, admin, or none.
TANKODROM_DEFAULT_PROJECT_ROLE = env.get_str("TANKODROM_DEFAULT_PROJECT_ROLE", "uploader")

# Retention (backend/retention): a finished test's raw samples are deleted this many days after it was created, its
# per-second aggregates and monitoring after the second figure; 0 keeps them forever. The test, its stored figures,
# notes and tags are kept; baselines (current and past) and starred tests are never expired.
TANKODROM_RETENTION_RAW_DAYS = env.get_int("TANKODROM_RETENTION_RAW_DAYS", 0)
TANKODROM_RETENTION_AGGREGATES_DAYS = env.get_int("TANKODROM_RETENTION_AGGREGATES_DAYS", 0)
# Tests whose rows one step of the retention job deletes (one mutation per table per step).
TANKODROM_RETENTION_BATCH = env.get_int("TANKODROM_RETENTION_BATCH", 50)
# Bytes on disk the stored tests may take (backend/loadtests/quota.py); past it, new uploads and tank streams get 507.
# 0: no quota.
TANKODROM_QUOTA_BYTES = env.get_int("TANKODROM_QUOTA_BYTES", 0)
# Tank pushes waiting in the Redis buffer for ClickHouse (backend/tankapi/buffer.py); past it pushes get 503 and the
# tank retries (overload protection).
TANKODROM_TANK_BUFFER_MAX_ENTRIES = env.get_int("TANKODROM_TANK_BUFFER_MAX_ENTRIES", 500_000)
# Seconds a comparison's request waits for its task (backend/compare/views.py) before answering 202 "pending".
TANKODROM_COMPARE_WAIT_S = env.get_int("TANKODROM_COMPARE_WAIT_S", 25)

LOGIN_URL = "/login"
LOGIN_REDIRECT_URL = "/"

# Sign-on (backend/accounts/sso/; README "Single sign-on"). Password login to local accounts can be turned off: the
# form then only serves the directory (LDAP), or disappears when there is none.
TANKODROM_LOCAL_LOGIN = env.get_bool("TANKODROM_LOCAL_LOGIN", True)
# OpenID Connect: on when an issuer is set; discovery from <issuer>/.well-known/openid-configuration.
TANKODROM_OIDC = {
    "issuer": env.get_str("TANKODROM_OIDC_ISSUER", ""),
    "client_id": env.get_str("TANKODROM_OIDC_CLIENT_ID", ""),
    "client_secret": env.get_str("TANKODROM_OIDC_CLIENT_SECRET", ""),
    "scopes": env.get_str("TANKODROM_OIDC_SCOPES", "openid profile email"),
    "groups_claim": env.get_str("TANKODROM_OIDC_GROUPS_CLAIM", "groups"),
    "username_claim": env.get_str("TANKODROM_OIDC_USERNAME_CLAIM", "preferred_username"),
    "label": env.get_str("TANKODROM_OIDC_LABEL", "OpenID Connect"),
}
# LDAP / Active Directory: on when a server URI is set. The user search filter names the login as %(user)s.
TANKODROM_LDAP = {
    "uri": env.get_str("TANKODROM_LDAP_URI", ""),
    "start_tls": env.get_bool("TANKODROM_LDAP_START_TLS", False),
    "bind_dn": env.get_str("TANKODROM_LDAP_BIND_DN", ""),
    "bind_password": env.get_str("TANKODROM_LDAP_BIND_PASSWORD", ""),
    "user_base": env.get_str("TANKODROM_LDAP_USER_BASE", ""),
    "user_filter": env.get_str("TANKODROM_LDAP_USER_FILTER", "(uid=%(user)s)"),
    "group_base": env.get_str("TANKODROM_LDAP_GROUP_BASE", ""),
    "group_filter": env.get_str("TANKODROM_LDAP_GROUP_FILTER", "(objectClass=groupOfNames)"),
    "group_type": env.get_str("TANKODROM_LDAP_GROUP_TYPE", "groupOfNames"),
    "label": env.get_str("TANKODROM_LDAP_LABEL", "Directory"),
}
# Groups (an OIDC claim's values, LDAP group DNs) -> project roles, applied at every sign-on:
# "GROUP=PROJECT:ROLE; ..." (backend/accounts/sso/group_roles.py).
TANKODROM_SSO_GROUP_ROLES = group_roles.parse(env.get_str("TANKODROM_SSO_GROUP_ROLES", ""))
# Password login (local accounts, then the directory) and the sessions of every kind of sign-on.
AUTHENTICATION_BACKENDS = [
    "backend.accounts.sso.backends.LocalPasswordBackend",
    "backend.accounts.sso.ldap.DirectoryBackend",
    "backend.accounts.sso.backends.SignOnSessionBackend",
]
# Size limits (backend/core/body_limit.py): any request body, and a phout upload (PUT .../phout), in bytes.
TANKODROM_MAX_BODY_BYTES = env.get_int("TANKODROM_MAX_BODY_BYTES", 32 * 1024 * 1024)
TANKODROM_MAX_UPLOAD_BYTES = env.get_int("TANKODROM_MAX_UPLOAD_BYTES", 50 * 1024**3)
TANKODROM_UPLOAD_ABANDON_S = env.get_int("TANKODROM_UPLOAD_ABANDON_S", 24 * 3600)
# A gzipped phout upload may inflate to this many times its size (at least 256 MB), and never beyond the bytes.
TANKODROM_MAX_INFLATE_RATIO = env.get_int("TANKODROM_MAX_INFLATE_RATIO", 100)
TANKODROM_MAX_INFLATED_BYTES = env.get_int("TANKODROM_MAX_INFLATED_BYTES", 200 * 1024**3)
DATA_UPLOAD_MAX_MEMORY_SIZE = TANKODROM_MAX_BODY_BYTES

# Notifications (backend/notify): targets' secrets are encrypted with a key derived from this (or SECRET_KEY);
# a delivery waits this long for an answer, and one that fails is retried with backoff × 2^attempt.
TANKODROM_NOTIFY_KEY = env.get_str("TANKODROM_NOTIFY_KEY", "")
TANKODROM_NOTIFY_TIMEOUT_S = env.get_int("TANKODROM_NOTIFY_TIMEOUT_S", 10)
TANKODROM_NOTIFY_RETRIES = env.get_int("TANKODROM_NOTIFY_RETRIES", 6)
TANKODROM_NOTIFY_BACKOFF_S = env.get_int("TANKODROM_NOTIFY_BACKOFF_S", 30)
TANKODROM_TELEGRAM_API_URL = env.get_str("TANKODROM_TELEGRAM_API_URL", "https://api.telegram.org")

# Calls to the outside (backend/core/egress.py) reach only public addresses: loopback, private, link-local,
# multicast, reserved and metadata addresses are refused unless listed here (comma-separated host names and
# networks, e.g. "chat.corp.example,10.20.0.0/16"); at most this many bytes of an answer are read.
TANKODROM_EGRESS_ALLOW = env.get_str("TANKODROM_EGRESS_ALLOW", "")
TANKODROM_EGRESS_MAX_BYTES = env.get_int("TANKODROM_EGRESS_MAX_BYTES", 64 * 1024)
# Deliveries to one target running at once (across all outbound workers), and how long one that finds its target
# busy waits before trying again (no attempt spent).
TANKODROM_OUTBOUND_PER_TARGET = env.get_int("TANKODROM_OUTBOUND_PER_TARGET", 1)
TANKODROM_OUTBOUND_BUSY_S = env.get_int("TANKODROM_OUTBOUND_BUSY_S", 5)

# Cardinality of a result file (README "Limits"; analytics.phout.BatchParser): a case name (label, tag) longer than
# this many characters is cut there and ends in "…"; a test keeps its first this many distinct cases, and the
# samples of every later one are counted under the case "(other cases)". The upload's note says how many.
TANKODROM_LABEL_MAX_CHARS = env.get_int("TANKODROM_LABEL_MAX_CHARS", 200)
TANKODROM_CASES_MAX = env.get_int("TANKODROM_CASES_MAX", 1000)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.get_str("LOG_LEVEL", "INFO")},
}
