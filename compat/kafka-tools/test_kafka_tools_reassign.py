"""Apache Kafka's kafka-reassign-partitions (ReassignPartitionsCommand, 4.4.0) on a three-node
cluster of its own (compat/python/compat_cluster.py): --list, --generate, --execute then --verify
until the moves complete (clearing the throttles), a throttled --execute held in progress (1 B/s
over 3 MB) that --list shows, --verify reports, a second --execute refuses and --cancel undoes,
and the refusals of bad plans and command lines. Each step's exit status and stdout are compared
with golden/reassign-*.txt, Kafka 4.4.0's output against Kafka (recorded as test_kafka_tools.py
describes), after masking what differs between runs: each replica's log dir (a temporary path)
and the Java stack trace Kafka prints after an `Error: ` line (Strand prints the exception's
first line in its place).

--generate proposes a random placement in Kafka (its striped placer starts at random): its
proposal is masked in the golden file and checked for validity instead (every partition of the
topic, at the topic's replication factor, on distinct brokers of --broker-list).

test_strand_reassign.py runs the same steps with `strand reassign-partitions`.
"""

import json
import re
import subprocess

import pytest

from compat_broker import BrokerNotReady
from compat_cluster import Cluster
from conftest import Tool
from test_kafka_tools import TOPICS, check, eventually

REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
# 3 MB for the throttled move: more than a follower's first fetch takes before the throttle bites.
SLOW_RECORDS = 3000
SLOW_RECORD_BYTES = 1000


def running_cluster(name):
    try:
        started = Cluster.start(name)
    except BrokerNotReady as e:
        pytest.exit(str(e), returncode=1)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def cluster():
    yield from running_cluster("reassign")


@pytest.fixture(scope="module")
def tool(cluster):
    return Tool(cluster)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Writes a JSON document to a file of the module's directory; returns its path."""
    directory = tmp_path_factory.mktemp("reassign")

    def write(name, document):
        path = directory / f"{name}.json"
        path.write_text(json.dumps(document))
        return str(path)

    return write


def masked(done):
    """Log dirs masked; after an `Error: ` line, the stack trace replaced by <STACK_TRACE>."""
    stdout = re.sub(r'"log_dirs":\[[^]]*\]', '"log_dirs":[<LOG_DIR>]', done.stdout)
    lines = stdout.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("Error: "):
            stdout = "".join(lines[:i + 1]) + "<STACK_TRACE>\n"
            break
    return subprocess.CompletedProcess(done.args, done.returncode, stdout, done.stderr)


def plan(*partitions):
    return {"version": 1, "partitions": [{"topic": t, "partition": p, "replicas": r} for t, p, r in partitions]}


def test_setup(tool):
    """Topic `moves` (partitions on 1,2 and 2,3) and topic `slow` (on 1, holding 3 MB)."""
    check("reassign-create-moves", tool(TOPICS, "--create", "--topic", "moves", "--replica-assignment", "1:2,2:3"))
    check("reassign-create-slow", tool(TOPICS, "--create", "--topic", "slow", "--replica-assignment", "1"))
    lines = "".join(f"{i:0{SLOW_RECORD_BYTES}d}\n" for i in range(SLOW_RECORDS))
    done = tool(PRODUCER, "--topic", "slow", input=lines, timeout=120)
    assert done.returncode == 0, done.stderr


def test_list_none(tool):
    check("reassign-list-none", tool(REASSIGN, "--list"))


def test_generate(tool, files):
    """The current assignment (with log dirs) and a valid proposal on brokers 1,2,3."""
    topics = files("topics", {"topics": [{"topic": "moves"}], "version": 1})
    done = tool(REASSIGN, "--generate", "--topics-to-move-json-file", topics, "--broker-list", "1,2,3")
    lines = done.stdout.splitlines()
    assert lines[-2] == "Proposed partition reassignment configuration", done.stdout
    proposed = json.loads(lines[-1])
    assert proposed["version"] == 1
    assert [(p["topic"], p["partition"]) for p in proposed["partitions"]] == [("moves", 0), ("moves", 1)]
    for partition in proposed["partitions"]:
        assert len(partition["replicas"]) == 2 and len(set(partition["replicas"])) == 2, proposed
        assert set(partition["replicas"]) <= {1, 2, 3}, proposed
        assert partition["log_dirs"] == ["any", "any"], proposed
    done.stdout = "\n".join(lines[:-1] + ["<PROPOSED>"]) + "\n"
    check("reassign-generate", masked(done))
    check("reassign-generate-too-few-brokers",
          masked(tool(REASSIGN, "--generate", "--topics-to-move-json-file", topics, "--broker-list", "3")))
    check("reassign-generate-duplicate-brokers",
          masked(tool(REASSIGN, "--generate", "--topics-to-move-json-file", topics, "--broker-list", "1,2,1")))
    unknown = files("unknown-topics", {"topics": [{"topic": "nope"}], "version": 1})
    check("reassign-generate-unknown-topic",
          masked(tool(REASSIGN, "--generate", "--topics-to-move-json-file", unknown, "--broker-list", "1,2,3")))


def test_execute_then_verify(tool, files):
    """Both partitions of `moves` move; --verify reports them completed and clears throttles."""
    moves = files("moves", plan(("moves", 0, [2, 3]), ("moves", 1, [3, 1])))
    check("reassign-execute", masked(tool(REASSIGN, "--execute", "--reassignment-json-file", moves)))
    verified = eventually("the moves complete", lambda: (
        lambda done: done if "in progress" not in done.stdout else None)(
            tool(REASSIGN, "--verify", "--reassignment-json-file", moves)))
    check("reassign-verify-completed", verified)


def test_throttled_move_then_cancel(tool, files):
    """A move throttled to 1 B/s stays in progress: listed, verified as such, refused a second
    --execute, then cancelled, after which its replicas are back as they were."""
    slow = files("slow", plan(("slow", 0, [2])))
    check("reassign-execute-throttled",
          masked(tool(REASSIGN, "--execute", "--reassignment-json-file", slow, "--throttle", "1")))
    check("reassign-list-slow", tool(REASSIGN, "--list"))
    again = files("again", plan(("moves", 0, [1, 2])))
    check("reassign-execute-existing", masked(tool(REASSIGN, "--execute", "--reassignment-json-file", again)))
    check("reassign-verify-in-progress", tool(REASSIGN, "--verify", "--reassignment-json-file", slow))
    check("reassign-cancel", tool(REASSIGN, "--cancel", "--reassignment-json-file", slow))
    check("reassign-list-none", tool(REASSIGN, "--list"))
    check("reassign-verify-cancelled", tool(REASSIGN, "--verify", "--reassignment-json-file", slow))


def test_execute_refusals(tool, files):
    """Plans Kafka's tool refuses before or when it starts them."""
    cases = {
        "reassign-execute-unknown-broker": plan(("moves", 0, [1, 9])),
        "reassign-execute-unknown-topic": plan(("nope", 0, [1])),
        "reassign-execute-unknown-partition": plan(("moves", 7, [1])),
        "reassign-execute-duplicate-replicas": plan(("moves", 0, [1, 1])),
        "reassign-execute-empty": plan(),
    }
    for name, document in cases.items():
        check(name, masked(tool(REASSIGN, "--execute", "--reassignment-json-file", files(name, document))))


def test_command_line_refusals(tool, files):
    """A wrong command line: Kafka's reason first on stderr, nothing on stdout, exit 1."""
    slow = files("refusals", plan(("slow", 0, [1])))
    cases = [
        ((), "Command must include exactly one action: --generate, --execute, --verify, --cancel, --list"),
        (("--list", "--verify"), "Command must include exactly one action: --generate, --execute, --verify, "
                                 "--cancel, --list"),
        (("--verify",), 'Missing required argument "[reassignment-json-file]"'),
        (("--verify", "--reassignment-json-file", slow, "--throttle", "5"),
         'Option "[throttle]" can\'t be used with action "[verify]"'),
        (("--list", "--additional"), 'Option "[additional]" can\'t be used with action "[list]"'),
    ]
    for args, reason in cases:
        done = tool(REASSIGN, *args)
        assert (done.returncode, done.stdout) == (1, ""), (args, done.stdout, done.stderr)
        assert done.stderr.splitlines()[0] == reason, (args, done.stderr)
