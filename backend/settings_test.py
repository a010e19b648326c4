"""Settings for the test suite: the same services, separate databases, so tests never touch real data."""

from backend import env
from backend.settings import *  # noqa: F403
from backend.settings import CACHES, CLICKHOUSE, DATABASES

CLICKHOUSE["database"] = env.get_str("CLICKHOUSE_TEST_DATABASE", "tankodrom_test")
DATABASES["default"]["CONN_MAX_AGE"] = 0
REDIS_URL = env.get_str("REDIS_TEST_URL", "redis://127.0.0.1:6379/15")
CACHES["default"]["LOCATION"] = REDIS_URL  # rate-limit counters and previews stay in the test database
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
# Tasks run in the test process unless a test starts a real worker.
CELERY_TASK_ALWAYS_EAGER = env.get_bool("CELERY_TASK_ALWAYS_EAGER", True)
CELERY_TASK_EAGER_PROPAGATES = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests
# The notification tests' receivers on 127.0.0.1 stand in for chat servers inside a company's network, which an
# administrator allows this way; the SSRF tests set it empty (or to another address) and expect refusals.
TANKODROM_EGRESS_ALLOW = env.get_str("TANKODROM_EGRESS_ALLOW", "127.0.0.1/32")
# A NaN or Infinity in an answer fails the test that made it (production renders null and logs an error).
TANKODROM_JSON_NONFINITE_RAISES = True
