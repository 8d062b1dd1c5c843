"""Apache Kafka's kafka-configs (ConfigCommand, 4.4.0) with client quotas (KIP-546): quotas of a
user, a client id, a (user, client id) pair, the default user and an IP set with --add-config,
described one entity at a time and by entity type, one deleted, and values the controller refuses;
compared with Kafka 4.4.0's own output (golden/quotas-*.txt, recorded as test_kafka_tools.py
describes). Describes of several entities list them in the order the broker answers them (Kafka:
a hash map's), so those are compared with their lines sorted. The steps of one session, in file
order; the last removes every quota again, so later suites' user listings are as before.
"""

from test_kafka_tools import GOLDEN, UPDATE, check, eventually

CONFIGS = "org.apache.kafka.tools.ConfigCommand"


def configs(tool, *args):
    return tool(CONFIGS, *args)


def check_sorted(name, done):
    """check() on the output with its lines sorted (several entities, in no fixed order)."""
    done.stdout = "".join(sorted(done.stdout.splitlines(keepends=True)))
    check(name, done)


def described(tool, what, needle, *args):
    return eventually(what, lambda: (lambda done: done if needle in done.stdout else None)(configs(tool, *args)))


def test_user_and_client_quotas_round_trip(tool):
    """Quotas of carol, of client app, of (carol, app) and of the default user: added, described,
    one deleted."""
    check("quotas-user-add", configs(tool, "--entity-type", "users", "--entity-name", "carol", "--alter",
                                     "--add-config", "producer_byte_rate=1024,consumer_byte_rate=2048"))
    check("quotas-client-add", configs(tool, "--entity-type", "clients", "--entity-name", "app", "--alter",
                                       "--add-config", "request_percentage=50,controller_mutation_rate=10"))
    check("quotas-user-client-add", configs(tool, "--entity-type", "users", "--entity-name", "carol",
                                            "--entity-type", "clients", "--entity-name", "app", "--alter",
                                            "--add-config", "producer_byte_rate=512"))
    check("quotas-default-user-add", configs(tool, "--entity-type", "users", "--entity-default", "--alter",
                                             "--add-config", "consumer_byte_rate=100000"))
    check("quotas-user-describe", described(tool, "carol's quotas", "producer_byte_rate",
                                            "--entity-type", "users", "--entity-name", "carol", "--describe"))
    check("quotas-client-describe", configs(tool, "--entity-type", "clients", "--entity-name", "app", "--describe"))
    check("quotas-user-client-describe", configs(tool, "--entity-type", "users", "--entity-name", "carol",
                                                 "--entity-type", "clients", "--entity-name", "app", "--describe"))
    check("quotas-default-user-describe", configs(tool, "--entity-type", "users", "--entity-default",
                                                  "--describe"))
    check_sorted("quotas-users-describe", configs(tool, "--entity-type", "users", "--describe"))
    check_sorted("quotas-clients-describe", configs(tool, "--entity-type", "clients", "--describe"))
    check("quotas-user-delete", configs(tool, "--entity-type", "users", "--entity-name", "carol", "--alter",
                                        "--delete-config", "producer_byte_rate"))
    check("quotas-user-describe-after-delete", eventually("producer_byte_rate is gone", lambda: (
        lambda done: done if "producer_byte_rate" not in done.stdout else None)(
            configs(tool, "--entity-type", "users", "--entity-name", "carol", "--describe"))))


def test_ip_quotas(tool):
    """KIP-612: an IP's connection_creation_rate and the default IP's, described; a key users
    have is refused for an IP."""
    check("quotas-ip-add", configs(tool, "--entity-type", "ips", "--entity-name", "127.0.0.1", "--alter",
                                   "--add-config", "connection_creation_rate=100"))
    check("quotas-default-ip-add", configs(tool, "--entity-type", "ips", "--entity-default", "--alter",
                                           "--add-config", "connection_creation_rate=1000"))
    check("quotas-ip-describe", described(tool, "the ip's quota", "connection_creation_rate",
                                          "--entity-type", "ips", "--entity-name", "127.0.0.1", "--describe"))
    check_sorted("quotas-ips-describe", configs(tool, "--entity-type", "ips", "--describe"))
    check("quotas-ip-invalid-key", configs(tool, "--entity-type", "ips", "--entity-name", "127.0.0.1", "--alter",
                                           "--add-config", "producer_byte_rate=10"))


def test_invalid_values(tool):
    """Values the controller refuses: zero, a fraction of an integral quota."""
    zero = configs(tool, "--entity-type", "users", "--entity-name", "bob", "--alter",
                   "--add-config", "producer_byte_rate=0")
    check("quotas-zero", zero)
    fraction = configs(tool, "--entity-type", "clients", "--entity-name", "c", "--alter",
                       "--add-config", "consumer_byte_rate=1.5")
    check("quotas-fraction", fraction)
    if not UPDATE:
        stderr = "\n".join(line for line in zero.stderr.splitlines() if "Exception" in line)
        expected = (GOLDEN / "quotas-zero.stderr.txt").read_text().strip()
        assert expected in stderr, f"Kafka's error {expected!r} not in:\n{zero.stderr}"
    else:
        lines = [line for line in zero.stderr.splitlines() if "Exception" in line]
        (GOLDEN / "quotas-zero.stderr.txt").write_text((lines[0] if lines else "") + "\n")


def test_remove_every_quota(tool):
    """--delete-config of every quota still set: users, clients and ips then list none."""
    removals = [
        (["--entity-type", "users", "--entity-name", "carol"], "consumer_byte_rate"),
        (["--entity-type", "users", "--entity-default"], "consumer_byte_rate"),
        (["--entity-type", "users", "--entity-name", "carol", "--entity-type", "clients", "--entity-name", "app"],
         "producer_byte_rate"),
        (["--entity-type", "clients", "--entity-name", "app"], "request_percentage,controller_mutation_rate"),
        (["--entity-type", "ips", "--entity-name", "127.0.0.1"], "connection_creation_rate"),
        (["--entity-type", "ips", "--entity-default"], "connection_creation_rate"),
    ]
    for entity, keys in removals:
        done = configs(tool, *entity, "--alter", "--delete-config", keys)
        assert done.returncode == 0, f"{entity} {keys}: {done.stdout}{done.stderr}"
    for kind in ("users", "clients", "ips"):
        check(f"quotas-{kind}-describe-after-removal", configs(tool, "--entity-type", kind, "--describe"))
