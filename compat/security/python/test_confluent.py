"""confluent-kafka (librdkafka) over SSL, mTLS (a PKCS12 keystore), SASL_SSL SCRAM-SHA-512,
SASL_PLAINTEXT PLAIN and OAUTHBEARER (librdkafka's unsecured JWT, and signed tokens checked
against a JWK set), and the ways each must fail.

librdkafka reports why a connection failed through error_cb (served by poll) with a local error
code: _AUTHENTICATION for the broker's SASL_AUTHENTICATION_FAILED, _SSL for a certificate the
client rejects, _TRANSPORT for a TLS alert from the broker; the request itself only fails with
_TRANSPORT once its timeout passes.
"""

import json
import logging
import re
import time

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from conftest import RECORDS, jwks_token, unsecured_jwt

CLIENT = "confluent-kafka"


def _ssl(sec, **extra):
    return {"security.protocol": "SSL", "ssl.ca.location": sec.certs["ca.pem"],
            "ssl.endpoint.identification.algorithm": "https", **extra}


def _mtls(sec, p12="client.p12"):
    return _ssl(sec, **{"ssl.keystore.location": sec.certs[p12], "ssl.keystore.password": sec.certs["password"]})


def _scram(sec, password=None, mechanism="SCRAM-SHA-512"):
    user = sec.users["scram"]
    return {"security.protocol": "SASL_SSL", "ssl.ca.location": sec.certs["ca.pem"],
            "sasl.mechanisms": mechanism, "sasl.username": user["user"],
            "sasl.password": password or user["password"]}


def _plain(sec, password=None):
    user = sec.users["plain"]
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": user["user"],
            "sasl.password": password or user["password"]}


def round_trip(bootstrap, topic, security):
    errors = []
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "error_cb": errors.append, **security})
    delivered = []
    for value in RECORDS:
        producer.produce(topic, value, partition=0, on_delivery=lambda err, msg: delivered.append(err or msg.offset()))
    assert producer.flush(30) == 0, f"undelivered; client errors: {errors}"
    assert delivered == [0, 1, 2], delivered
    # librdkafka needs a group.id even for assign(); this consumer never subscribes or commits.
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"unused-{topic}", "enable.auto.commit": False,
                         "error_cb": errors.append, **security})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        got = []
        deadline = time.monotonic() + 30
        while len(got) < len(RECORDS) and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None:
                assert msg.error() is None, msg.error()
                got.append(msg.value())
        assert got == RECORDS, f"client errors: {errors}"
    finally:
        consumer.close()


def refused(bootstrap, security, code, pattern):
    """A Metadata request fails, and error_cb reported code with a message matching pattern."""
    errors = []
    admin = AdminClient({"bootstrap.servers": bootstrap, "error_cb": errors.append, "log_level": 0, **security})
    with pytest.raises(KafkaException) as failed:
        admin.list_topics(timeout=4)
    assert failed.value.args[0].code() == KafkaError._TRANSPORT
    admin.poll(1)
    matching = [e for e in errors if e.code() == code and re.search(pattern, e.str())]
    assert matching, f"no error {code} matching {pattern!r}; got {[(e.name(), e.str()) for e in errors]}"


def test_ssl(sec, topic):
    round_trip(sec.listener("tls", "SSL"), topic, _ssl(sec))


def test_mtls(sec, topic):
    round_trip(sec.listener("tls", "MTLS"), topic, _mtls(sec))


def test_scram_sha_512(sec, topic):
    round_trip(sec.listener("sasl", "SASL_SSL"), topic, _scram(sec))


def test_scram_sha_256(sec, topic):
    round_trip(sec.listener("sasl", "SASL_SSL"), topic, _scram(sec, mechanism="SCRAM-SHA-256"))


def test_plain(sec, topic):
    round_trip(sec.listener("sasl", "SASL_PLAINTEXT"), topic, _plain(sec))


def test_oauthbearer(sec, topic):
    round_trip(sec.listener("oauth", "SASL_PLAINTEXT"), topic, {
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER",
        "enable.sasl.oauthbearer.unsecure.jwt": True, "sasl.oauthbearer.config": "principal=alice"})


def test_oauthbearer_expired_token(sec):
    # Kafka answers an invalid token with a challenge holding {"status":"invalid_token"}; librdkafka
    # replies 0x01 and Kafka fails the authentication with that JSON as the message.
    expired = unsecured_jwt(sec.users["oauth"]["user"], lifetime_s=-60)
    refused(sec.listener("oauth", "SASL_PLAINTEXT"), {
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER",
        "oauth_cb": lambda _config: (expired, time.time() + 3600, sec.users["oauth"]["user"])},
        KafkaError._AUTHENTICATION, r"invalid_token")


def _bearer(token, sec):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER",
            "oauth_cb": lambda _config: (token, time.time() + 3600, sec.users["oauth"]["user"])}


def test_jwks(sec, topic):
    round_trip(sec.listener("jwks", "SASL_PLAINTEXT"), topic, _bearer(jwks_token("valid"), sec))


def test_jwks_expired_token(sec):
    refused(sec.listener("jwks", "SASL_PLAINTEXT"), _bearer(jwks_token("expired"), sec),
            KafkaError._AUTHENTICATION, r"invalid_token")


def test_jwks_untrusted_key(sec):
    refused(sec.listener("jwks", "SASL_PLAINTEXT"), _bearer(jwks_token("untrusted-key"), sec),
            KafkaError._AUTHENTICATION, r"invalid_token")


def test_jwks_wrong_audience(sec):
    refused(sec.listener("jwks", "SASL_PLAINTEXT"), _bearer(jwks_token("wrong-audience"), sec),
            KafkaError._AUTHENTICATION, r"invalid_token")


def test_scram_wrong_password(sec):
    refused(sec.listener("sasl", "SASL_SSL"), _scram(sec, password="wrong"), KafkaError._AUTHENTICATION,
            r"SASL authentication error: Authentication failed during authentication due to invalid credentials "
            r"with SASL mechanism SCRAM-SHA-512")


def test_plain_wrong_password(sec):
    refused(sec.listener("sasl", "SASL_PLAINTEXT"), _plain(sec, password="wrong"), KafkaError._AUTHENTICATION,
            r"SASL authentication error: Authentication failed: Invalid username or password")


def test_untrusted_server(sec):
    refused(sec.listener("tls", "SSL"), _ssl(sec, **{"ssl.ca.location": sec.certs["untrusted-ca.pem"]}),
            KafkaError._SSL, r"SSL handshake failed: .*certificate verify failed")


def test_no_client_cert(sec):
    # Kafka (JSSE) sends alert 42 bad_certificate; TLS 1.3 also defines 116 certificate_required.
    refused(sec.listener("tls", "MTLS"), _ssl(sec), KafkaError._TRANSPORT,
            r"(ssl/tls|tlsv13) alert (bad certificate|certificate required)")


def test_untrusted_client_cert(sec):
    refused(sec.listener("tls", "MTLS"), _mtls(sec, "untrusted-client.p12"), KafkaError._TRANSPORT,
            r"(ssl/tls|tlsv1) alert (bad certificate|certificate unknown|unknown ca)")


def test_plaintext_on_tls_port(sec):
    # Kafka closes the connection during ApiVersions; librdkafka logs each disconnect at info
    # level and reports only that all brokers are down.
    refused(sec.listener("tls", "SSL"), {}, KafkaError._ALL_BROKERS_DOWN, r"brokers are down")


class _Stats:
    """A client's statistics (served by poll): (when, connections opened, connections lost)."""

    def __init__(self):
        self.samples = []

    def __call__(self, raw):
        brokers = json.loads(raw)["brokers"].values()
        self.samples.append((time.monotonic(), sum(b["connects"] for b in brokers),
                             sum(b["disconnects"] for b in brokers)))

    def since(self, start):
        """The first and last samples taken after start."""
        later = [s for s in self.samples if s[0] >= start]
        assert later, "no statistics"
        return later[0][1:], later[-1][1:]


class _Authentications(logging.Handler):
    """Counts librdkafka's "Authenticated as" debug lines."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record):
        self.count += "Authenticated as " in record.getMessage()

    def logger(self, name):
        log = logging.getLogger(f"librdkafka.{name}")
        log.setLevel(logging.DEBUG)
        log.propagate = False
        log.addHandler(self)
        return log


def test_reauth(sec, topic):
    # KIP-368 on the REAUTH listener (sessions of reauth_ms): for 8 s a producer sends a record
    # every 250 ms (each delivered before the next) while a consumer reads them. Every record
    # arrives, never a session's length apart, and neither client opened or lost a connection
    # after the first record: librdkafka re-authenticates on the connection it has (the broker
    # closes a connection whose session expired, and the client would reconnect). librdkafka logs
    # every authentication (debug "security"): at least three more of those than connections.
    bootstrap = sec.listener("sasl", "REAUTH")
    session_s = sec.config["reauth_ms"] / 1000
    errors = []
    authentications = _Authentications()
    common = {"bootstrap.servers": bootstrap, "error_cb": errors.append, "statistics.interval.ms": 200,
              "debug": "security", "logger": authentications.logger(topic), **_scram(sec)}
    producer_stats, consumer_stats = _Stats(), _Stats()
    producer = Producer({**common, "acks": "all", "linger.ms": 0, "stats_cb": producer_stats})
    consumer = Consumer({**common, "group.id": f"unused-{topic}", "enable.auto.commit": False,
                         "fetch.wait.max.ms": 100, "stats_cb": consumer_stats})
    try:
        sent, got, gaps = [], [], []

        def send():
            delivered = []
            value = f"reauth-{len(sent)}".encode()
            producer.produce(topic, value, partition=0, on_delivery=lambda err, msg: delivered.append(err))
            assert producer.flush(10) == 0 and delivered == [None], f"{delivered}; client errors: {errors}"
            sent.append(value)

        send()
        consumer.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + 30
        end = next_send = last = first = None
        while end is None or time.monotonic() < end or len(got) < len(sent):
            assert time.monotonic() < deadline, f"read {len(got)} of {len(sent)}; client errors: {errors}"
            msg = consumer.poll(0.1)
            if msg is not None:
                assert msg.error() is None, msg.error()
                now = time.monotonic()
                if last is None:
                    # Every connection is up: from the next statistics on, none may open or close
                    # (the first session expires 2 s after the first connection).
                    first = now
                    end, next_send = now + 8, now
                else:
                    gaps.append(now - last)
                last = now
                got.append(msg.value())
            if end is not None and time.monotonic() < end and time.monotonic() >= next_send:
                send()
                next_send = time.monotonic() + 0.25
        assert got == sent, f"client errors: {errors}"
        assert max(gaps) < session_s, f"no record for {max(gaps):.2f} s"
        assert not errors, errors
        time.sleep(0.3)
        producer.poll(0)
        assert consumer.poll(0) is None
        for name, stats in [("producer", producer_stats), ("consumer", consumer_stats)]:
            at_start, at_end = stats.since(first + 0.3)
            assert at_start == at_end, f"{name}'s (connects, disconnects) went from {at_start} to {at_end}"
        connects = producer_stats.samples[-1][1] + consumer_stats.samples[-1][1]
        assert authentications.count >= connects + 3, f"{authentications.count} authentications, {connects} connections"
        print(f"reauth: {len(got)} records, longest gap {max(gaps):.2f} s, {connects} connections, "
              f"{authentications.count} authentications")
    finally:
        consumer.close()
