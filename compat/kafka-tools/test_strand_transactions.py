"""`strand transactions` (Strand's kafka-transactions.sh) beside Apache Kafka's kafka-transactions
(TransactionsCommand, 4.4.0) against the same broker (Strand, or Apache Kafka 4.4.0 with
STRAND_COMPAT_BROKER=kafka), while a confluent-kafka producer holds a transaction open: `list`,
`describe` (its duration column masked: it is the time of the call), `describe-producers` and the
refusals compared with Kafka's tool's output byte for byte; then `strand transactions abort
--start-offset` ends the hanging transaction, which `describe-producers` no longer shows open.
"""

import re
import subprocess

import pytest
from confluent_kafka import Producer

from conftest import STRAND, Tool, running_broker

TOPICS = "org.apache.kafka.tools.TopicCommand"
TRANSACTIONS = "org.apache.kafka.tools.TransactionsCommand"


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("strand-transactions")


def both(broker, *args):
    """Kafka's tool and strand's, the same arguments, against the same broker."""
    kafka = Tool(broker)(TRANSACTIONS, *args)
    strand = subprocess.run([str(STRAND), "transactions", "--bootstrap-server", broker.bootstrap, *args],
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return kafka, strand


def same(kafka, strand, mask=lambda text: text):
    assert (strand.returncode, mask(strand.stdout)) == (kafka.returncode, mask(kafka.stdout)), \
        f"--- kafka\n{kafka.stdout}{kafka.stderr}\n--- strand\n{strand.stdout}{strand.stderr}"
    if kafka.returncode != 0:
        assert strand.stderr.splitlines()[0] == kafka.stderr.splitlines()[0], (kafka.stderr, strand.stderr)


def masked_duration(text):
    """describe's TransactionDurationMs (now minus the start) differs between two calls."""
    lines = text.splitlines()
    rows = [line.split("\t") for line in lines]
    for row in rows[1:]:
        row[7] = "<DURATION>"
    return "\n".join("\t".join(c.rstrip() for c in row) for row in rows)


def test_strand_transactions_prints_what_kafka_s_tool_prints(own_broker):
    done = Tool(own_broker)(TOPICS, "--create", "--topic", "txn", "--partitions", "1", "--replication-factor", "1")
    assert done.returncode == 0, done.stderr
    plain = Producer({"bootstrap.servers": own_broker.bootstrap})
    for i in range(3):
        plain.produce("txn", key=b"k", value=f"plain {i}".encode())
    assert plain.flush(30) == 0
    hanging = Producer({"bootstrap.servers": own_broker.bootstrap, "transactional.id": "hanging",
                        "transaction.timeout.ms": 600000})
    hanging.init_transactions(30)
    hanging.begin_transaction()
    hanging.produce("txn", key=b"k", value=b"never committed")
    assert hanging.flush(30) == 0

    same(*both(own_broker, "list"))
    same(*both(own_broker, "describe", "--transactional-id", "hanging"), masked_duration)
    same(*both(own_broker, "describe", "--transactional-id", "nobody"))
    same(*both(own_broker, "describe-producers", "--topic", "txn", "--partition", "0"))
    same(*both(own_broker, "abort", "--topic", "txn", "--partition", "0", "--start-offset", "1"))
    same(*both(own_broker, "abort", "--topic", "txn", "--partition", "0"))

    producers = both(own_broker, "describe-producers", "--topic", "txn", "--partition", "0")[1].stdout
    assert re.search(r"\t3\s*\t$", producers, re.M), f"the transaction starts at offset 3\n{producers}"
    aborted = subprocess.run([str(STRAND), "transactions", "--bootstrap-server", own_broker.bootstrap, "abort",
                              "--topic", "txn", "--partition", "0", "--start-offset", "3"],
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert aborted.returncode == 0, aborted.stderr
    kafka, strand = both(own_broker, "describe-producers", "--topic", "txn", "--partition", "0")
    same(kafka, strand)
    assert not re.search(r"\t3\s*\t$", strand.stdout, re.M), f"no transaction open at offset 3\n{strand.stdout}"
