"""Strand's web console in a real browser (headless chromium through chromedriver) against a
three-node cluster: every page opened and screenshotted; a topic created and deleted from the
console; records produced from the console to each partition (two of them led by other nodes than
the one serving the console), browsed by offset and by timestamp, filtered and shown as JSON and
hex; a key holding <script> shown as text; the live tail receiving a record kafka-python
produces; a group's offsets reset to the earliest offset, an offset and a time, checked with
kafka-python's admin client; the metric charts drawn from /metrics."""

import json
import time
import uuid

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition

TOPIC = f"console-orders-{uuid.uuid4().hex[:6]}"
GROUP = f"console-group-{uuid.uuid4().hex[:6]}"
# Timestamps of the dated records: ahead of the console's own records (within Kafka 4's
# message.timestamp.after.max.ms, one hour), so a time between them picks a known offset.
NOW_MS = int(time.time() * 1000)
DATED_MS = [NOW_MS + 10 * 60_000, NOW_MS + 20 * 60_000, NOW_MS + 21 * 60_000]
BETWEEN_MS = NOW_MS + 15 * 60_000


def utc(ms):
    """A time as the console's datetime-local inputs take it (UTC, seconds)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000))


def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def console(cluster):
    """The console of node 1."""
    return cluster.nodes[0].http_url


def rows(browser, table):
    """The text of each cell of each body row of the table with this class."""
    return browser.script(
        "return [...document.querySelectorAll(arguments[0] + ' tbody tr')]"
        ".filter(r => !r.querySelector('td.none')).map(r => [...r.cells].map(c => c.innerText));",
        f"table.{table}")


def submit(browser, form):
    """Submits the form and waits for the page it posts to: a notice left on the page before
    (the previous reset's) must not satisfy the caller's next wait."""
    browser.script("window.__strand_before_submit = true;")
    browser.find(f"form#{form} button[type=submit]").click()
    browser.wait_for(f"the page after submitting {form}",
                     lambda: browser.script("return document.readyState === 'complete' && !window.__strand_before_submit;"))


def test_overview(cluster, browser, shots):
    browser.go(console(cluster) + "/")
    assert browser.title() == "Cluster overview · Strand"
    browser.wait_for("three brokers", lambda: browser.text("#broker-count") == "3")
    brokers = rows(browser, "brokers")
    assert [r[0] for r in brokers] == ["1", "2", "3"]
    assert [r[1] for r in brokers] == [f"127.0.0.1:{n.port}" for n in cluster.nodes]
    quorum = rows(browser, "quorum")
    assert sorted(r[0] for r in quorum) == ["1", "2", "3"]
    assert sum(r[1] == "leader" for r in quorum) == 1
    assert browser.text("#quorum-leader") in ("1", "2", "3")
    assert browser.text("#under-replicated") == "0" and browser.text("#offline") == "0"
    browser.screenshot(shots / "01-overview.png")


def test_create_topic(cluster, browser, shots):
    browser.go(console(cluster) + "/topics")
    browser.find("form#create-topic input[name=name]").type(TOPIC)
    browser.find("form#create-topic input[name=partitions]").type("3")
    browser.find("form#create-topic input[name=replication_factor]").type("3")
    browser.find("form#create-topic textarea[name=configs]").fill("retention.ms=86400000\nmax.message.bytes=200000")
    submit(browser, "create-topic")
    browser.wait_for("the topic's page", lambda: browser.url().endswith(f"/topics/{TOPIC}?created=1"))
    assert f"Topic {TOPIC} created." in browser.text(".notice")

    def partitions_served():
        # The leaders host their partitions a moment after the controller committed the topic;
        # until then the page says "error" for their offsets.
        found = rows(browser, "partitions")
        if all(r[4:6] == ["0", "0"] for r in found):
            return found
        browser.go(f"{console(cluster)}/topics/{TOPIC}")
        return None

    partitions = browser.wait_for("every partition's offsets", partitions_served)
    assert [r[0] for r in partitions] == ["0", "1", "2"]
    assert len({r[1] for r in partitions}) >= 2, "leaders on several nodes: the console reaches the others"
    for r in partitions:
        assert sorted(r[2].split(", ")) == ["1", "2", "3"]
        assert r[4:6] == ["0", "0"], r
    configs = {r[0]: (r[1], r[2]) for r in rows(browser, "configs")}
    assert configs["retention.ms"] == ("86400000", "topic")
    assert configs["max.message.bytes"] == ("200000", "topic")
    assert configs["min.insync.replicas"][0] == "2"
    browser.screenshot(shots / "03-topic.png")
    browser.go(console(cluster) + "/topics")
    listed = {r[0]: r for r in rows(browser, "topics")}
    assert listed[TOPIC][1:3] == ["3", "3"]
    browser.screenshot(shots / "02-topics.png")


def test_produce_from_the_console_to_every_partition(cluster, browser, shots):
    for partition in range(3):
        browser.go(f"{console(cluster)}/topics/{TOPIC}/messages?partition={partition}")
        browser.find("form#produce select[name=partition]").select(str(partition))
        browser.find("form#produce input[name=key]").type(f"order-{partition}")
        browser.find("form#produce textarea[name=value]").fill(json.dumps({"id": partition, "items": ["a", "b"]}))
        browser.find("form#produce textarea[name=headers]").fill("source: console\ntrace: t-%d" % partition)
        submit(browser, "produce")
        browser.wait_for("the produced notice", lambda: browser.find_all("#produced"))
        assert browser.text("#produced") == f"Produced at offset 0 of partition {partition}."
        shown = rows(browser, "records")
        assert len(shown) == 1, shown
        assert shown[0][:2] == [str(partition), "0"] and shown[0][3] == f"order-{partition}"
        assert json.loads(shown[0][4]) == {"id": partition, "items": ["a", "b"]}
        assert "source" in shown[0][5] and f"t-{partition}" in shown[0][5]
    # What the console wrote, as a Kafka client reads it.
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap, consumer_timeout_ms=10000)
    consumer.assign([TopicPartition(TOPIC, p) for p in range(3)])
    consumer.seek_to_beginning()
    read = {}
    while len(read) < 3:
        batch = consumer.poll(timeout_ms=10000)
        assert batch, f"only {read} read"
        for records in batch.values():
            for r in records:
                read[r.partition] = (r.key, json.loads(r.value), dict(r.headers))
    consumer.close()
    assert read[1] == (b"order-1", {"id": 1, "items": ["a", "b"]}, {"source": b"console", "trace": b"t-1"})


def test_a_script_key_is_shown_as_text(cluster, browser, shots):
    browser.go(f"{console(cluster)}/topics/{TOPIC}/messages?partition=0")
    browser.find("form#produce select[name=partition]").select("0")
    browser.find("form#produce input[name=key]").type("<script>document.title='owned'</script>")
    browser.find("form#produce textarea[name=value]").fill("<img src=x onerror=\"document.title='owned'\">")
    submit(browser, "produce")
    browser.wait_for("the produced notice", lambda: browser.find_all("#produced"))
    assert browser.title() == f"Messages of {TOPIC} · Strand"
    shown = rows(browser, "records")
    assert shown[0][3] == "<script>document.title='owned'</script>"
    assert shown[0][4] == "<img src=x onerror=\"document.title='owned'\">"
    assert browser.script("return document.querySelectorAll('table.records script, table.records img').length") == 0


def test_browse_by_offset_timestamp_and_filters(cluster, browser, shots):
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all")
    for i, stamp in enumerate(DATED_MS):
        value = json.dumps({"n": i, "kind": "dated"}).encode()
        producer.send(TOPIC, key=f"dated-{i}".encode(), value=value, partition=2, timestamp_ms=stamp,
                      headers=[("color", b"red" if i % 2 == 0 else b"blue")]).get(timeout=30)
    producer.close()
    base = f"{console(cluster)}/topics/{TOPIC}/messages?partition=2"
    browser.go(base + "&from=offset&offset=1&limit=10")
    assert [r[1] for r in rows(browser, "records")] == ["1", "2", "3"]
    browser.go(base)
    browser.find("form#browse select[name=from]").select("timestamp")
    browser.find("form#browse input[name=timestamp]").fill(utc(BETWEEN_MS))
    submit(browser, "browse")
    browser.wait_for("the browse by time", lambda: "from=timestamp" in browser.url())
    shown = rows(browser, "records")
    assert [r[3] for r in shown] == ["dated-1", "dated-2"], shown
    assert shown[0][2] == iso(DATED_MS[1])
    browser.screenshot(shots / "04-messages-by-time.png")
    browser.go(base + "&from=offset&offset=0&header=color%3Dred")
    assert [r[3] for r in rows(browser, "records")] == ["dated-0", "dated-2"]
    browser.go(base + "&from=offset&offset=0&value=%22n%22%3A%201&format=json")
    shown = rows(browser, "records")
    assert [r[3] for r in shown] == ["dated-1"]
    assert shown[0][4] == '{\n  "n": 1,\n  "kind": "dated"\n}', "pretty, in the record's own order"
    browser.go(base + "&from=offset&offset=0&key=dated-0&format=hex")
    assert rows(browser, "records")[0][3] == "64 61 74 65 64 2d 30"
    browser.go(base + "&limit=2")
    assert [r[1] for r in rows(browser, "records")] == ["2", "3"], "the newest two"
    browser.screenshot(shots / "05-messages.png")


def test_live_tail_receives_a_kafka_client_record(cluster, browser, shots):
    browser.go(f"{console(cluster)}/topics/{TOPIC}/messages")
    browser.find("#tail-toggle").click()
    browser.wait_for("the tail to start", lambda: browser.text("#tail-status").startswith("live"))
    marker = f"tail-{uuid.uuid4().hex}"
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all")
    producer.send(TOPIC, key=b"from-kafka-python", value=marker.encode(), partition=1).get(timeout=30)
    producer.close()
    tail = browser.wait_for("the record in the tail", lambda: [r for r in rows(browser, "tail") if r[4] == marker])
    assert tail[0][0] == "1" and tail[0][3] == "from-kafka-python"
    assert browser.text("#tail-status").startswith("live · 1 received")
    browser.screenshot(shots / "06-live-tail.png")
    browser.find("#tail-toggle").click()


def committed(admin):
    offsets = admin.list_group_offsets({GROUP: None})[GROUP]
    return {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == TOPIC}


def test_groups_and_offset_resets(cluster, browser, shots):
    consumer = KafkaConsumer(TOPIC, bootstrap_servers=cluster.bootstrap, group_id=GROUP,
                             auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=15000)
    total = 0
    while total < 8:
        batch = consumer.poll(timeout_ms=15000)
        assert batch, f"read {total} of 8"
        total += sum(len(r) for r in batch.values())
    consumer.commit()
    browser.go(console(cluster) + f"/groups/{GROUP}")
    assert browser.text("#group-state") == "Stable"
    members = rows(browser, "members")
    assert len(members) == 1 and all(f"{TOPIC}-{p}" in members[0][3] for p in range(3))
    assert browser.find_all("#reset-unavailable"), "no reset while the group is active"
    browser.screenshot(shots / "08-group-active.png")
    consumer.close()

    def listed_empty():
        browser.go(console(cluster) + "/groups")
        return {r[0]: r for r in rows(browser, "groups")}.get(GROUP, [""] * 4)[3] == "Empty"

    browser.wait_for("the group listed Empty", listed_empty)
    browser.screenshot(shots / "07-groups.png")
    browser.go(console(cluster) + f"/groups/{GROUP}")
    lag = {r[1]: r for r in rows(browser, "lag")}
    assert {p: (r[2], r[3], r[4]) for p, r in lag.items()} == {"0": ("2", "2", "0"), "1": ("2", "2", "0"), "2": ("4", "4", "0")}
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap)
    assert committed(admin) == {0: 2, 1: 2, 2: 4}

    browser.find("form#reset select[name=topic]").select(TOPIC)
    browser.find("form#reset select[name=to]").select("earliest")
    submit(browser, "reset")
    browser.wait_for("the reset notice", lambda: browser.find_all("#reset-done"))
    assert committed(admin) == {0: 0, 1: 0, 2: 0}
    assert browser.text("#total-lag") == "8"
    browser.screenshot(shots / "09-group-reset.png")

    browser.find("form#reset select[name=to]").select("offset")
    browser.find("form#reset input[name=offset]").type("3")
    submit(browser, "reset")
    browser.wait_for("the reset notice", lambda: browser.find_all("#reset-done"))
    assert committed(admin) == {0: 2, 1: 2, 2: 3}, "an offset past a partition's end is moved to it"

    browser.find("form#reset select[name=to]").select("datetime")
    browser.find("form#reset input[name=datetime]").fill(utc(BETWEEN_MS))
    submit(browser, "reset")
    browser.wait_for("the reset notice", lambda: browser.find_all("#reset-done"))
    assert committed(admin) == {0: 2, 1: 2, 2: 2}, "the first record at or after the time, else the end"
    admin.close()


def test_charts(cluster, browser, shots):
    # Records in, counted on the node serving the console: to a partition it leads.
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap)
    described = admin.describe_topics([TOPIC])[0]["partitions"]
    admin.close()
    led = next(p["partition_index"] for p in described if p["leader_id"] == 1)
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all")
    browser.go(console(cluster) + "/charts")
    browser.wait_for("a first sample", lambda: browser.text("#charts-status").startswith("updated"))
    for i in range(50):
        producer.send(TOPIC, value=b"x" * 100, partition=led)
    producer.flush()
    series = "kafka_server_brokertopicmetrics_messagesin_total"
    browser.wait_for("a drawn rate", lambda: browser.script(
        "const f = document.querySelector(`figure[data-series='${arguments[0]}']`);"
        "const l = f.querySelector('polyline'); return l && l.getAttribute('points').split(' ').length >= 2 &&"
        "!f.querySelector('.latest').textContent.startsWith('0 /s (max 0');", series))
    producer.close()
    assert len(browser.find_all("figure.chart svg polyline")) == 8
    browser.screenshot(shots / "10-charts.png")


def test_delete_topic_with_confirmation(cluster, browser, shots):
    doomed = f"console-doomed-{uuid.uuid4().hex[:6]}"
    browser.go(console(cluster) + "/topics")
    browser.find("form#create-topic input[name=name]").type(doomed)
    submit(browser, "create-topic")
    browser.wait_for("the topic's page", lambda: f"/topics/{doomed}" in browser.url())
    browser.find("form#delete-topic input[name=confirm]").type("not-the-name")
    submit(browser, "delete-topic")
    browser.wait_for("the refusal", lambda: browser.title() == "Error 400 · Strand")
    assert "type the topic's name" in browser.text(".error")
    browser.go(f"{console(cluster)}/topics/{doomed}")
    browser.find("form#delete-topic input[name=confirm]").type(doomed)
    submit(browser, "delete-topic")
    browser.wait_for("the topic list", lambda: browser.url().endswith("/topics"))
    assert doomed not in [r[0] for r in rows(browser, "topics")]
    assert TOPIC in [r[0] for r in rows(browser, "topics")]
