"""Kafka 4.4.0's own tools (kafka-topics, kafka-console-producer, kafka-console-consumer,
kafka-configs, kafka-delegation-tokens, from target/kafka-libs) over SASL_SSL SCRAM-SHA-512 with
--command-config, a SCRAM user made with kafka-configs, a delegation token's life with
kafka-delegation-tokens, kafka-topics refused with a wrong password, and the SSL listener's
key store changed at run time with kafka-configs."""

import ssl
import subprocess
import time
import uuid

from compat_broker import NODE_ID, java_command

CLIENT = "kafka-tools"
TOPICS = "org.apache.kafka.tools.TopicCommand"
PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
CONFIGS = "org.apache.kafka.tools.ConfigCommand"
TOKENS = "org.apache.kafka.tools.DelegationTokenCommand"


def _command_config(sec, tmp_path, password=None, username=None):
    user = sec.users["scram"]
    path = tmp_path / f"client-{username or user['user']}.properties"
    path.write_text(
        "security.protocol=SASL_SSL\n"
        "sasl.mechanism=SCRAM-SHA-512\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="{username or user["user"]}" password="{password or user["password"]}";\n'
        "ssl.truststore.type=PKCS12\n"
        f"ssl.truststore.location={sec.certs['truststore.p12']}\n"
        f"ssl.truststore.password={sec.certs['password']}\n"
        "request.timeout.ms=5000\n"
        "default.api.timeout.ms=10000\n")
    return str(path)


def tool(tool_class, bootstrap, *args, input=None):
    command = java_command(short_lived=True) + [tool_class, "--bootstrap-server", bootstrap, *args]
    return subprocess.run(command, input=input, capture_output=True, text=True, timeout=60,
                          stdin=None if input is not None else subprocess.DEVNULL)


def test_scram_sha_512(sec, topic, tmp_path):
    bootstrap = sec.listener("sasl", "SASL_SSL")
    config = _command_config(sec, tmp_path)
    created = tool(TOPICS, bootstrap, "--command-config", config, "--create", "--topic", topic, "--partitions", "1")
    assert (created.returncode, created.stdout) == (0, f"Created topic {topic}.\n"), created.stderr
    listed = tool(TOPICS, bootstrap, "--command-config", config, "--list")
    assert listed.returncode == 0 and topic in listed.stdout.split(), listed.stderr
    produced = tool(PRODUCER, bootstrap, "--command-config", config, "--topic", topic, input="one\ntwo\nthree\n")
    assert produced.returncode == 0, produced.stderr
    consumed = tool(CONSUMER, bootstrap, "--command-config", config, "--topic", topic, "--partition", "0",
                    "--offset", "earliest", "--max-messages", "3", "--timeout-ms", "20000")
    assert (consumed.returncode, consumed.stdout) == (0, "one\ntwo\nthree\n"), consumed.stderr


def test_scram_wrong_password(sec, tmp_path):
    listed = tool(TOPICS, sec.listener("sasl", "SASL_SSL"), "--command-config",
                  _command_config(sec, tmp_path, password="wrong"), "--list")
    assert listed.returncode == 1, (listed.stdout, listed.stderr)
    assert ("org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed during "
            "authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512") in listed.stderr, listed.stderr


def test_scram_configs_user(sec, tmp_path):
    """kafka-configs adds a SCRAM-SHA-512 user (AlterUserScramCredentials), describes it, and the
    user can then authenticate (once the credential has reached the broker's metadata)."""
    bootstrap = sec.listener("sasl", "SASL_SSL")
    admin = _command_config(sec, tmp_path)
    carol = f"carol-{uuid.uuid4().hex[:8]}"
    added = tool(CONFIGS, bootstrap, "--command-config", admin, "--alter", "--entity-type", "users",
                 "--entity-name", carol, "--add-config", "SCRAM-SHA-512=[iterations=8192,password=carol-secret]")
    assert (added.returncode, added.stdout) == (0, f"Completed updating config for user {carol}.\n"), added.stderr
    described = tool(CONFIGS, bootstrap, "--command-config", admin, "--describe", "--entity-type", "users",
                     "--entity-name", carol)
    assert (described.returncode, described.stdout) == (
        0, f"SCRAM credential configs for user-principal '{carol}' are SCRAM-SHA-512=iterations=8192\n"), described.stderr
    as_carol = _command_config(sec, tmp_path, password="carol-secret", username=carol)
    deadline = time.monotonic() + 20
    while True:
        listed = tool(TOPICS, bootstrap, "--command-config", as_carol, "--list")
        if listed.returncode == 0 or time.monotonic() > deadline:
            break
    assert listed.returncode == 0, listed.stderr


def _served_certificate(address):
    host, port = address.rsplit(":", 1)
    return ssl.get_server_certificate((host, int(port)))


def test_keystore_alter(sec, tmp_path):
    """kafka-configs changes broker 1's SSL listener key store (the per-broker dynamic
    listener.name.ssl.ssl.keystore.location): a renewed certificate is served by the next
    handshakes without a restart; a certificate with another subject is refused and changes
    nothing."""
    bootstrap = sec.listener("tls", "SSL")
    config = tmp_path / "ssl.properties"
    config.write_text("security.protocol=SSL\n"
                      "ssl.truststore.type=PEM\n"
                      f"ssl.truststore.location={sec.certs['ca.pem']}\n"
                      "request.timeout.ms=5000\n"
                      "default.api.timeout.ms=10000\n")
    key = "listener.name.ssl.ssl.keystore.location"

    def alter(keystore):
        return tool(CONFIGS, bootstrap, "--command-config", str(config), "--alter", "--entity-type", "brokers",
                    "--entity-name", str(NODE_ID), "--add-config", f"{key}={sec.certs[keystore]}")

    renewed = open(sec.certs["renewed.pem"]).read().strip()
    altered = alter("renewed-keystore.pem")
    assert (altered.returncode, altered.stdout) == (0, f"Completed updating config for broker {NODE_ID}.\n"), \
        altered.stderr
    deadline = time.monotonic() + 20
    while _served_certificate(bootstrap).strip() != renewed and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _served_certificate(bootstrap).strip() == renewed

    refused = alter("intruder-keystore.pem")
    assert refused.returncode == 1, (refused.stdout, refused.stderr)
    assert "InvalidRequestException" in refused.stderr, refused.stderr
    assert "DistinguishedName does not match" in refused.stderr, refused.stderr
    assert _served_certificate(bootstrap).strip() == renewed


def test_delegation_tokens(sec, tmp_path):
    """kafka-delegation-tokens --create (with a renewer), --describe by owner, --renew, --expire:
    each as Kafka 4.4's tool prints it; once expired the token is described no more."""
    bootstrap = sec.listener("sasl", "SASL_SSL")
    config = _command_config(sec, tmp_path)
    alice = f"User:{sec.users['scram']['user']}"
    created = tool(TOKENS, bootstrap, "--command-config", config, "--create", "--max-life-time-period", "-1",
                   "--renewer-principal", "User:bob")
    assert created.returncode == 0, created.stderr
    lines = created.stdout.splitlines()
    assert lines[0] == "Calling create token operation with renewers :[User:bob] , max-life-time-period :-1", lines
    token_id = lines[1].removeprefix("Created delegation token with tokenId : ")
    assert lines[3].split() == ["TOKENID", "HMAC", "OWNER", "REQUESTER", "RENEWERS", "ISSUEDATE", "EXPIRYDATE",
                                "MAXDATE"], lines
    row = lines[5].split()
    assert (row[0], row[2], row[3], row[4]) == (token_id, alice, alice, "[User:bob]"), lines
    hmac = row[1]

    def described():
        run = tool(TOKENS, bootstrap, "--command-config", config, "--describe", "--owner-principal", alice)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith(f"Calling describe token operation for owners: [{alice}]\n"), run.stdout
        # The calling line, "Total number of tokens : N", the table's header, then its rows.
        return [line.split()[0] for line in run.stdout.splitlines()[3:] if line.strip()]

    # Kafka's broker learns of the token a moment after its controller answers the creation.
    deadline = time.monotonic() + 20
    while token_id not in described() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert token_id in described()
    renewed = tool(TOKENS, bootstrap, "--command-config", config, "--renew", "--hmac", hmac,
                   "--renew-time-period", "60000")
    assert renewed.returncode == 0, renewed.stderr
    assert renewed.stdout.startswith("Calling renew token operation with hmac :"), renewed.stdout
    assert "Completed renew operation. New expiry date : " in renewed.stdout, renewed.stdout
    expired = tool(TOKENS, bootstrap, "--command-config", config, "--expire", "--hmac", hmac,
                   "--expiry-time-period", "-1")
    assert expired.returncode == 0, expired.stderr
    assert "Completed expire operation. New expiry date : " in expired.stdout, expired.stdout
    deadline = time.monotonic() + 20
    while token_id in described() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert token_id not in described()
