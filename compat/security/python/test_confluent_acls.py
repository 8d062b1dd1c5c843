"""The ACL matrix (issue 18) with confluent-kafka (librdkafka), as ../java/AclMatrix.java does it
with kafka-clients: alice is granted what each API group needs, bob nothing; the error code each
gets, what Metadata leaves out, PREFIXED, LITERAL `*` and `User:*` bindings, a DENY beating an
ALLOW, the super user admin, and allow.everyone.if.no.acl.found both ways (the acl group's broker
false, aclopen's true). Resources are named py-*. librdkafka has no DescribeLogDirs or
ListPartitionReassignments: those are the Java and Go matrices'.
"""

import time

import pytest
from confluent_kafka import (Consumer, ElectionType, KafkaError, KafkaException,
                             Producer, TopicPartition, TopicCollection)
from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, AlterConfigOpType,
                                   ConfigEntry, ConfigResource, NewPartitions, NewTopic, ResourcePatternType,
                                   ResourceType, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion)

CLIENT = "confluent-kafka"
P = "py"
A = f"{P}-a-1"
TIMEOUT_S = 30


def _as(sec, group, user, **extra):
    return {"bootstrap.servers": sec.listener(group, "SASL_PLAINTEXT"), "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "PLAIN", "sasl.username": user, "sasl.password": sec.config["acl_users"][user], **extra}


def _admin(sec, user, group="acl"):
    return AdminClient(_as(sec, group, user))


def _code(future):
    """The Kafka error a future failed with (KafkaError.NO_ERROR if it did not)."""
    try:
        future.result(TIMEOUT_S)
        return KafkaError.NO_ERROR
    except KafkaException as e:
        return e.args[0].code()


def _codes(futures):
    return [_code(f) for f in futures.values()]


def _set_up(sec, group):
    admin = _admin(sec, "admin", group)
    names = [f"{P}-a-1", f"{P}-a-denied", f"{P}-b-1", f"{P}-open-1"]
    for code in _codes(admin.create_topics([NewTopic(n, 1, 1) for n in names])):
        assert code in (KafkaError.NO_ERROR, KafkaError.TOPIC_ALREADY_EXISTS), code
    allow, deny = AclPermissionType.ALLOW, AclPermissionType.DENY
    prefixed, literal = ResourcePatternType.PREFIXED, ResourcePatternType.LITERAL
    bindings = [
        AclBinding(ResourceType.TOPIC, f"{P}-a", prefixed, "User:alice", "*", AclOperation.ALL, allow),
        AclBinding(ResourceType.TOPIC, f"{P}-a-denied", literal, "User:alice", "*", AclOperation.WRITE, deny),
        AclBinding(ResourceType.TOPIC, f"{P}-open", prefixed, "User:*", "*", AclOperation.READ, allow),
        AclBinding(ResourceType.GROUP, "*", literal, "User:alice", "*", AclOperation.READ, allow),
        AclBinding(ResourceType.TRANSACTIONAL_ID, f"{P}-tx", prefixed, "User:alice", "*", AclOperation.WRITE, allow),
    ] + [AclBinding(ResourceType.BROKER, "kafka-cluster", literal, "User:alice", "*", op, allow)
         for op in (AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.ALTER_CONFIGS, AclOperation.DESCRIBE_CONFIGS)]
    assert set(_codes(admin.create_acls(bindings))) == {KafkaError.NO_ERROR}
    alice = _admin(sec, "alice", group)
    deadline = time.monotonic() + 20
    while A not in alice.list_topics(timeout=TIMEOUT_S).topics:
        assert time.monotonic() < deadline, "alice never saw py-a-1"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def acl(sec):
    _set_up(sec, "acl")
    return sec


def _produce(sec, user, topic, group="acl"):
    """One record, not idempotent; the delivery error's code."""
    producer = Producer(_as(sec, group, user, **{"enable.idempotence": False, "acks": "all",
                                                 "message.timeout.ms": 15000}))
    result = []
    producer.produce(topic, b"by-" + user.encode(), partition=0,
                     on_delivery=lambda err, msg: result.append(err.code() if err else KafkaError.NO_ERROR))
    producer.flush(TIMEOUT_S)
    assert result, "no delivery report"
    return result[0]


def test_acl_produce(acl):
    assert _produce(acl, "alice", A) == KafkaError.NO_ERROR
    assert _produce(acl, "bob", A) == KafkaError.TOPIC_AUTHORIZATION_FAILED


def test_acl_produce_deny_beats_allow(acl):
    assert _produce(acl, "alice", f"{P}-a-denied") == KafkaError.TOPIC_AUTHORIZATION_FAILED


def _consume_error(sec, user, topic):
    """Subscribes in group py-g and polls: the first error's code, or NO_ERROR once a record came."""
    consumer = Consumer(_as(sec, "acl", user, **{"group.id": f"{P}-g", "auto.offset.reset": "earliest",
                                                  "enable.auto.commit": False}))
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                continue
            return message.error().code() if message.error() else KafkaError.NO_ERROR
        pytest.fail(f"{user} neither read nor failed on {topic}")
    finally:
        consumer.close()


def test_acl_consume_group(acl):
    assert _consume_error(acl, "alice", A) == KafkaError.NO_ERROR
    # librdkafka asks for the group's coordinator first (also for an assigned partition: the
    # Java and Go matrices fetch without a group).
    assert _consume_error(acl, "bob", A) == KafkaError.GROUP_AUTHORIZATION_FAILED
    assert _consume_error(acl, "bob", f"{P}-open-1") == KafkaError.GROUP_AUTHORIZATION_FAILED


def _mine(admin):
    return {t for t in admin.list_topics(timeout=TIMEOUT_S).topics if t.startswith(f"{P}-")}


def test_acl_metadata(acl):
    alice, bob = _admin(acl, "alice"), _admin(acl, "bob")
    seen = _mine(alice)
    assert {A, f"{P}-open-1"} <= seen and f"{P}-b-1" not in seen, seen
    assert _mine(bob) == {f"{P}-open-1"}
    for name in (f"{P}-b-1", f"{P}-nowhere"):
        described = bob.describe_topics(TopicCollection([name]))
        assert _codes(described) == [KafkaError.TOPIC_AUTHORIZATION_FAILED], name


def test_acl_topic_admin(acl):
    alice, bob = _admin(acl, "alice"), _admin(acl, "bob")
    fresh = f"{P}-a-new"
    assert _codes(alice.create_topics([NewTopic(fresh, 1, 1)])) == [KafkaError.NO_ERROR]
    assert _codes(bob.create_topics([NewTopic(f"{P}-b-new", 1, 1)])) == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    assert _codes(alice.create_partitions([NewPartitions(fresh, 2)])) == [KafkaError.NO_ERROR]
    assert _codes(bob.create_partitions([NewPartitions(fresh, 3)])) == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    assert _codes(bob.delete_topics([fresh])) == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    assert _codes(alice.delete_topics([fresh])) == [KafkaError.NO_ERROR]


def test_acl_configs(acl):
    alice, bob = _admin(acl, "alice"), _admin(acl, "bob")
    topic = ConfigResource(ResourceType.TOPIC, A)
    broker = ConfigResource(ResourceType.BROKER, "1")
    assert _codes(alice.describe_configs([topic, broker])) == [KafkaError.NO_ERROR] * 2
    retention = ConfigResource(ResourceType.TOPIC, A, incremental_configs=[
        ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)])
    assert _codes(alice.incremental_alter_configs([retention])) == [KafkaError.NO_ERROR]
    assert _codes(bob.describe_configs([topic])) == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    assert _codes(bob.incremental_alter_configs([retention])) == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    assert _codes(bob.describe_configs([broker])) == [KafkaError.CLUSTER_AUTHORIZATION_FAILED]


def test_acl_transactions(acl):
    alice = Producer(_as(acl, "acl", "alice", **{"transactional.id": f"{P}-tx-1"}))
    alice.init_transactions(TIMEOUT_S)
    alice.begin_transaction()
    alice.produce(A, b"txn", partition=0)
    alice.commit_transaction(TIMEOUT_S)
    bob = Producer(_as(acl, "acl", "bob", **{"transactional.id": f"{P}-tx-2"}))
    with pytest.raises(KafkaException) as refused:
        bob.init_transactions(TIMEOUT_S)
    assert refused.value.args[0].code() == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, refused.value


def test_acl_delete_records(acl):
    # Each client kept referenced until its futures are done (librdkafka destroys the handle).
    alice, bob = _admin(acl, "alice"), _admin(acl, "bob")
    first = [TopicPartition(A, 0, 1)]
    assert _codes(alice.delete_records(first)) == [KafkaError.NO_ERROR]
    # librdkafka refuses it itself: the partition is not in bob's Metadata, which refused the topic.
    assert _codes(bob.delete_records(first)) == [KafkaError._NOENT]


def test_acl_elections(acl):
    alice, bob = _admin(acl, "alice"), _admin(acl, "bob")
    partition = [TopicPartition(A, 0)]
    elected = alice.elect_leaders(ElectionType.PREFERRED, partition).result(TIMEOUT_S)
    assert [e.code() for e in elected.values()] == [KafkaError.ELECTION_NOT_NEEDED], elected
    with pytest.raises(KafkaException) as refused:
        bob.elect_leaders(ElectionType.PREFERRED, partition).result(TIMEOUT_S)
    assert refused.value.args[0].code() == KafkaError.CLUSTER_AUTHORIZATION_FAILED


def test_acl_describe_cluster(acl):
    alice, bob = _admin(acl, "alice"), _admin(acl, "bob")
    ops = alice.describe_cluster(include_authorized_operations=True).result(TIMEOUT_S).authorized_operations
    assert {AclOperation.ALTER, AclOperation.DESCRIBE} <= set(ops), ops
    ops = bob.describe_cluster(include_authorized_operations=True).result(TIMEOUT_S).authorized_operations
    assert not ops, ops


def test_acl_scram_credentials(acl):
    alice, bob = _admin(acl, "alice"), _admin(acl, "bob")
    alice.describe_user_scram_credentials().result(TIMEOUT_S)
    # Bob's DescribeUserScramCredentials is not asked: librdkafka 2.16 aborts the process on
    # Kafka 4.4's refusal (kafka-clients gets CLUSTER_AUTHORIZATION_FAILED; see AclMatrix.java).
    upsert = UserScramCredentialUpsertion("carol", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192),
                                          b"carol-secret")
    assert _codes(bob.alter_user_scram_credentials([upsert])) == [KafkaError.CLUSTER_AUTHORIZATION_FAILED]


def test_acl_super_user(acl):
    assert _produce(acl, "admin", f"{P}-b-1") == KafkaError.NO_ERROR
    assert _produce(acl, "alice", f"{P}-b-1") == KafkaError.TOPIC_AUTHORIZATION_FAILED


def test_acl_allow_everyone_if_no_acl(sec):
    _set_up(sec, "aclopen")
    assert _produce(sec, "bob", f"{P}-b-1", "aclopen") == KafkaError.NO_ERROR
    assert _produce(sec, "bob", A, "aclopen") == KafkaError.TOPIC_AUTHORIZATION_FAILED
