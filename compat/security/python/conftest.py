"""pytest fixtures for the security suite's Python clients (kafka-python, confluent-kafka) and
Kafka's own tools: the brokers are the runner's (../run.py), described by STRAND_SEC_CONFIG.

Each test module names its client (CLIENT); each test's name after `test_` is its case. The
outcome of every test is appended to the runner's results file for the matrix.
"""

import base64
import json
import os
import signal
import sys
import time
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

RECORDS = [b"secured-0", b"secured-1", b"secured-2"]


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


signal.signal(signal.SIGTERM, _interrupt)


def _config():
    path = os.environ.get("STRAND_SEC_CONFIG")
    if not path:
        pytest.exit("STRAND_SEC_CONFIG is not set: run this through compat/run.sh security", returncode=2)
    with open(path) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def sec():
    return Security(_config())


class Security:
    """The runner's brokers, certificates and users."""

    def __init__(self, config):
        self.config = config
        self.certs = config["certs"]
        self.users = config["users"]

    def listener(self, group, name):
        """host:port of a group's listener; fails the test with the broker's startup error."""
        g = self.config["groups"][group]
        if g["error"]:
            pytest.fail(f"the {group} group's broker did not start: {g['error_line']}\n{g['error']}", pytrace=False)
        return g["listeners"][name]


@pytest.fixture
def topic():
    return f"sec-{uuid.uuid4().hex[:10]}"


def unsecured_jwt(subject, lifetime_s=3600):
    """An unsecured JWS (alg none) as Kafka's OAuthBearerUnsecuredValidatorCallbackHandler accepts
    (expired if lifetime_s is negative)."""
    def b64(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
    now = int(time.time())
    claims = {"sub": subject, "iat": now + min(lifetime_s, 0) - 60, "exp": now + lifetime_s}
    return f"{b64({'alg': 'none'})}.{b64(claims)}."


def jwks_token(kind):
    """A token the runner's identity provider signed for the jwks group: `valid`, `expired`,
    `untrusted-key` (signed by a key outside the JWK set) or `wrong-audience`."""
    return _config()["jwks_tokens"][kind]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or (report.when == "setup" and not report.passed):
        client = getattr(item.module, "CLIENT", item.module.__name__)
        case = item.originalname.removeprefix("test_").replace("_", "-")
        detail = ""
        if not report.passed:
            lines = str(call.excinfo.value).strip().splitlines() if call.excinfo else []
            detail = (lines[0] if lines else report.outcome)[:300]
        with open(_config()["results"], "a") as f:
            f.write(f"{client}\t{case}\t{'PASS' if report.passed else 'FAIL'}\t{detail}\n")
