"""kafka-python over SSL, mTLS, SASL_SSL SCRAM-SHA-512, SASL_PLAINTEXT PLAIN and OAUTHBEARER
(unsecured), and the ways each must fail.

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

from conftest import RECORDS, unsecured_jwt

CLIENT = "kafka-python"
FAIL_TIMEOUT_MS = 3000
SASL_FAIL_DEADLINE_S = 30


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


def test_plain(sec, topic):
    round_trip(sec.listener("sasl", "SASL_PLAINTEXT"), topic, **_plain(sec))


def test_oauthbearer(sec, topic):
    round_trip(sec.listener("oauth", "SASL_PLAINTEXT"), topic, security_protocol="SASL_PLAINTEXT",
               sasl_mechanism="OAUTHBEARER", sasl_oauth_token_provider=UnsecuredToken())


def test_oauthbearer_expired_token(sec, caplog):
    refused(caplog, sec.listener("oauth", "SASL_PLAINTEXT"), r"invalid_token", SASL_FAIL_DEADLINE_S,
            security_protocol="SASL_PLAINTEXT", sasl_mechanism="OAUTHBEARER",
            sasl_oauth_token_provider=UnsecuredToken(lifetime_s=-60))


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
