"""Apache Kafka's kafka-configs (ConfigCommand, 4.4.0) with users' SCRAM credentials (KIP-554):
a credential added, described (all users and by name), deleted, deleted again and refused;
compared with Kafka 4.4.0's own output (golden/scram-*.txt, recorded as test_kafka_tools.py
describes; the tool reports errors on stderr, where the exception and Kafka's message are
checked). The steps of one session, in file order, on the user `alice`.
"""

from test_kafka_tools import check, eventually

CONFIGS = "org.apache.kafka.tools.ConfigCommand"


def users(tool, *args):
    return tool(CONFIGS, "--entity-type", "users", *args)


def test_scram_credentials_round_trip(tool):
    """--alter --add-config 'SCRAM-SHA-512=[iterations=8192,password=...]', --describe of every user
    and of alice, --delete-config, then alice described (not found) and deleted again (refused)."""
    check("scram-add", users(tool, "--entity-name", "alice", "--alter", "--add-config",
                             "SCRAM-SHA-512=[iterations=8192,password=alice-secret]"))
    described = eventually("alice's credential is described", lambda: (
        lambda done: done if "alice" in done.stdout else None)(users(tool, "--describe")))
    check("scram-describe-all", described)
    check("scram-describe-alice", users(tool, "--entity-name", "alice", "--describe"))
    check("scram-delete", users(tool, "--entity-name", "alice", "--alter", "--delete-config", "SCRAM-SHA-512"))
    described = eventually("alice's credential is gone", lambda: (
        lambda done: done if "alice" not in done.stdout else None)(users(tool, "--describe")))
    check("scram-describe-all-after-delete", described)
    check("scram-describe-alice-after-delete", users(tool, "--entity-name", "alice", "--describe"))
    again = users(tool, "--entity-name", "alice", "--alter", "--delete-config", "SCRAM-SHA-512")
    check("scram-delete-again", again)
    assert "ResourceNotFoundException: Attempt to delete a user credential that does not exist" in again.stderr, \
        again.stderr


def test_scram_iterations_out_of_range(tool):
    """Too many iterations is the controller's UNACCEPTABLE_CREDENTIAL (too few, the tool refuses
    itself); nothing is stored."""
    refused = users(tool, "--entity-name", "bob", "--alter", "--add-config",
                    "SCRAM-SHA-256=[iterations=20000,password=b]")
    check("scram-too-many-iterations", refused)
    assert "UnacceptableCredentialException: Too many iterations" in refused.stderr, refused.stderr
    check("scram-describe-bob", users(tool, "--entity-name", "bob", "--describe"))
