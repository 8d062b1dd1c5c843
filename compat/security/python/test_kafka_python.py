"""kafka-python over SSL, mTLS, SASL_SSL SCRAM-SHA-512, SASL_PLAINTEXT PLAIN and OAUTHBEARER
(unsecured, and signed tokens checked against a JWK set), and the ways each must fail.

kafka-python 3 retries a failed bootstrap until its bootstrap timeout and then raises only
KafkaTimeoutError("Unable to bootstrap from ..."); the reason (the broker's SaslAuthenticate
error, the TLS alert) is what it logs for each attempt, so the failure tests assert on both.

Kafka answers a failed SaslAuthenticate about 300 ms later and closes the connection right after
its response; kafka-python 3.0.12 then often logs only "socket disconnected" (it loses the
response that arrived with the FIN; librdkafka and the Java client never do). So a SASL failure
test bootstraps again, up to SASL_FAIL_DEADLINE_S, until one attempt logged the broker's error.
"""

import logging
import re
import time

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import KafkaTimeoutError
from kafka.net.sasl.oauth import AbstractTokenProvider

from conftest import RECORDS, jwks_token, unsecured_jwt

CLIENT = "kafka-python"
FAIL_TIMEOUT_MS = 3000
SASL_FAIL_DEADLINE_S = 30


class SignedToken(AbstractTokenProvider):
    """A token the runner's identity provider signed (conftest.jwks_token)."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def token(self):
        return jwks_token(self.kind)


class UnsecuredToken(AbstractTokenProvider):
    def __init__(self, lifetime_s=3600):
        super().__init__()
        self.lifetime_s = lifetime_s

    def token(self):
        return unsecured_jwt("alice", self.lifetime_s)


def _ssl(sec, **extra):
    return dict(security_protocol="SSL", ssl_cafile=sec.certs["ca.pem"], ssl_check_hostname=True, **extra)


def _scram(sec, password=None, mechanism="SCRAM-SHA-512"):
    user = sec.users["scram"]
    return dict(security_protocol="SASL_SSL", ssl_cafile=sec.certs["ca.pem"], sasl_mechanism=mechanism,
                sasl_plain_username=user["user"], sasl_plain_password=password or user["password"])


def _plain(sec, password=None):
    user = sec.users["plain"]
    return dict(security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                sasl_plain_username=user["user"], sasl_plain_password=password or user["password"])


def round_trip(bootstrap, topic, **security):
    """Produces RECORDS (the topic is auto-created) and reads them back from the beginning."""
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **security)
    try:
        for value in RECORDS:
            producer.send(topic, value, partition=0).get(timeout=30)
    finally:
        producer.close()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, **security)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        got = []
        for _ in range(60):
            for records in consumer.poll(timeout_ms=500).values():
                got += [r.value for r in records]
            if len(got) >= len(RECORDS):
                break
        assert got == RECORDS
    finally:
        consumer.close()


def refused(caplog, bootstrap, pattern, deadline_s=0, **security):
    """The client never bootstraps, and what it logged for its attempts matches pattern (trying
    again until deadline_s has passed since the first attempt)."""
    caplog.set_level(logging.WARNING, logger="kafka")
    deadline = time.monotonic() + deadline_s
    while True:
        with pytest.raises(KafkaTimeoutError, match="Unable to bootstrap"):
            KafkaAdminClient(bootstrap_servers=bootstrap, bootstrap_timeout_ms=FAIL_TIMEOUT_MS,
                             request_timeout_ms=FAIL_TIMEOUT_MS, **security)
        logged = "\n".join(r.getMessage() for r in caplog.records)
        if re.search(pattern, logged) or time.monotonic() > deadline:
            break
    assert re.search(pattern, logged), f"no log line matches {pattern!r}:\n{logged[-2000:]}"


def test_ssl(sec, topic):
    round_trip(sec.listener("tls", "SSL"), topic, **_ssl(sec))


def test_mtls(sec, topic):
    round_trip(sec.listener("tls", "MTLS"), topic,
               **_ssl(sec, ssl_certfile=sec.certs["client.pem"], ssl_keyfile=sec.certs["client.key"]))


def test_scram_sha_512(sec, topic):
    round_trip(sec.listener("sasl", "SASL_SSL"), topic, **_scram(sec))


def test_scram_sha_256(sec, topic):
    round_trip(sec.listener("sasl", "SASL_SSL"), topic, **_scram(sec, mechanism="SCRAM-SHA-256"))


def test_reauth(sec, topic, caplog):
    # KIP-368 on the REAUTH listener (sessions of reauth_ms): for 8 s after the first record
    # arrives, a producer sends a record every 250 ms (each acknowledged before the next) while a
    # consumer reads them. Every record arrives in order, never a session's length apart, both
    # clients re-authenticated (kafka-python logs each at debug level) and no connection was
    # opened or closed after the first record (the broker closes a connection that sends a request
    # on an expired session, and the client would reconnect).
    caplog.set_level(logging.DEBUG, logger="kafka.net.connection")
    bootstrap = sec.listener("sasl", "REAUTH")
    session_s = sec.config["reauth_ms"] / 1000
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **_scram(sec))
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, fetch_max_wait_ms=100,
                             **_scram(sec))
    try:
        sent, got, gaps = [], [], []

        def send():
            value = f"reauth-{len(sent)}".encode()
            producer.send(topic, value, partition=0).get(timeout=10)
            sent.append(value)

        def connections():
            messages = [r.getMessage() for r in caplog.records]
            return (sum(m.endswith(": Connected") for m in messages),
                    sum(m.endswith(": Connection closed") for m in messages))

        send()
        consumer.assign([TopicPartition(topic, 0)])
        consumer.seek_to_beginning()
        deadline = time.monotonic() + 30
        end = next_send = last = at_start = None
        while end is None or time.monotonic() < end or len(got) < len(sent):
            assert time.monotonic() < deadline, f"read {len(got)} of {len(sent)}"
            for records in consumer.poll(timeout_ms=100).values():
                for record in records:
                    now = time.monotonic()
                    if last is None:
                        # Every connection is up; the first session expires 2 s after it opened.
                        at_start = connections()
                        end, next_send = now + 8, now
                    else:
                        gaps.append(now - last)
                    last = now
                    got.append(record.value)
            if end is not None and time.monotonic() < end and time.monotonic() >= next_send:
                send()
                next_send = time.monotonic() + 0.25
        assert got == sent
        assert max(gaps) < session_s, f"no record for {max(gaps):.2f} s"
        assert connections() == at_start, f"(opened, closed) went from {at_start} to {connections()}"
        reauths = [r for r in caplog.records if "Beginning SASL re-authentication" in r.getMessage()]
        failures = [r.getMessage() for r in caplog.records if "re-authentication failed" in r.getMessage()]
        assert len(reauths) >= 3 and not failures, f"{len(reauths)} re-authentications; failures: {failures}"
        print(f"reauth: {len(got)} records, longest gap {max(gaps):.2f} s, {len(reauths)} re-authentications, "
              f"(opened, closed) {at_start}")
    finally:
        consumer.close()
        producer.close()


def test_reauth_expired(sec, topic, caplog, monkeypatch):
    # A client that does not re-authenticate (kafka-python with its re-authentication switched
    # off) on the REAUTH listener: the broker closes its connection at the first request after the
    # session expired (without a response), and the client reconnects and consumes on.
    from kafka.net.connection import SaslReauthenticator
    monkeypatch.setattr(SaslReauthenticator, "schedule", lambda self: None)
    caplog.set_level(logging.INFO, logger="kafka.net.connection")
    bootstrap = sec.listener("sasl", "REAUTH")
    session_s = sec.config["reauth_ms"] / 1000

    def produce(value):
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **_scram(sec))
        try:
            producer.send(topic, value, partition=0).get(timeout=10)
        finally:
            producer.close()

    def events(pattern):
        return [r.created for r in caplog.records
                if r.name == "kafka.net.connection" and re.search(pattern, r.getMessage())]

    produce(b"before")
    caplog.clear()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, fetch_max_wait_ms=100,
                             **_scram(sec))
    try:
        consumer.assign([TopicPartition(topic, 0)])
        consumer.seek_to_beginning()
        got = []
        started = time.monotonic()
        # Fetches go on for more than two sessions.
        while time.monotonic() < started + 2.5 * session_s:
            got += [r.value for records in consumer.poll(timeout_ms=100).values() for r in records]
        closed, connected = events(r": Connection lost: .*socket disconnected"), events(r": Connected$")
        assert closed, f"no connection closed; connected at {connected}"
        # No connection was closed before its session expired, and the client reconnected.
        assert min(closed) - min(connected) >= session_s * 0.95, (closed, connected)
        assert any(c > min(closed) for c in connected), (closed, connected)
        produce(b"after")
        deadline = time.monotonic() + 10
        while len(got) < 2 and time.monotonic() < deadline:
            got += [r.value for records in consumer.poll(timeout_ms=100).values() for r in records]
        assert got == [b"before", b"after"]
        print(f"reauth-expired: {len(closed)} connections closed, {len(connected)} opened in {2.5 * session_s} s")
    finally:
        consumer.close()


def test_plain(sec, topic):
    round_trip(sec.listener("sasl", "SASL_PLAINTEXT"), topic, **_plain(sec))


def test_oauthbearer(sec, topic):
    round_trip(sec.listener("oauth", "SASL_PLAINTEXT"), topic, security_protocol="SASL_PLAINTEXT",
               sasl_mechanism="OAUTHBEARER", sasl_oauth_token_provider=UnsecuredToken())


def test_oauthbearer_expired_token(sec, caplog):
    refused(caplog, sec.listener("oauth", "SASL_PLAINTEXT"), r"invalid_token", SASL_FAIL_DEADLINE_S,
            security_protocol="SASL_PLAINTEXT", sasl_mechanism="OAUTHBEARER",
            sasl_oauth_token_provider=UnsecuredToken(lifetime_s=-60))


def test_jwks(sec, topic):
    round_trip(sec.listener("jwks", "SASL_PLAINTEXT"), topic, security_protocol="SASL_PLAINTEXT",
               sasl_mechanism="OAUTHBEARER", sasl_oauth_token_provider=SignedToken("valid"))


def test_jwks_expired_token(sec, caplog):
    refused(caplog, sec.listener("jwks", "SASL_PLAINTEXT"), r"invalid_token", SASL_FAIL_DEADLINE_S,
            security_protocol="SASL_PLAINTEXT", sasl_mechanism="OAUTHBEARER",
            sasl_oauth_token_provider=SignedToken("expired"))


def test_jwks_untrusted_key(sec, caplog):
    refused(caplog, sec.listener("jwks", "SASL_PLAINTEXT"), r"invalid_token", SASL_FAIL_DEADLINE_S,
            security_protocol="SASL_PLAINTEXT", sasl_mechanism="OAUTHBEARER",
            sasl_oauth_token_provider=SignedToken("untrusted-key"))


def test_scram_wrong_password(sec, caplog):
    refused(caplog, sec.listener("sasl", "SASL_SSL"),
            r"\[Error 58\] SaslAuthenticationFailedError: .*Authentication failed during authentication due to "
            r"invalid credentials with SASL mechanism SCRAM-SHA-512", SASL_FAIL_DEADLINE_S,
            **_scram(sec, password="wrong"))


def test_plain_wrong_password(sec, caplog):
    refused(caplog, sec.listener("sasl", "SASL_PLAINTEXT"),
            r"\[Error 58\] SaslAuthenticationFailedError: .*Authentication failed: Invalid username or password",
            SASL_FAIL_DEADLINE_S, **_plain(sec, password="wrong"))


def test_untrusted_server(sec, caplog):
    refused(caplog, sec.listener("tls", "SSL"), r"CERTIFICATE_VERIFY_FAILED",
            **dict(_ssl(sec), ssl_cafile=sec.certs["untrusted-ca.pem"]))


def test_no_client_cert(sec, caplog):
    # Kafka (JSSE) answers with a bad_certificate alert; TLS 1.3 also has certificate_required.
    refused(caplog, sec.listener("tls", "MTLS"), r"SSLV3_ALERT_BAD_CERTIFICATE|CERTIFICATE_REQUIRED", **_ssl(sec))


def test_untrusted_client_cert(sec, caplog):
    refused(caplog, sec.listener("tls", "MTLS"), r"ALERT_CERTIFICATE_UNKNOWN|ALERT_BAD_CERTIFICATE|ALERT_UNKNOWN_CA",
            **_ssl(sec, ssl_certfile=sec.certs["untrusted-client.pem"], ssl_keyfile=sec.certs["untrusted-client.key"]))


def test_plaintext_on_tls_port(sec, caplog):
    # Kafka's SSL listener answers a plaintext ApiVersions with a TLS alert record (kafka-python
    # reads 0x15030300... as a frame length) or closes the connection.
    refused(caplog, sec.listener("tls", "SSL"), r"Invalid frame length|socket disconnected")
