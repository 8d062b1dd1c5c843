// kafkajs 2.2.4 (pure JS, older API versions): admin topics, producer sends with acks -1 and gzip,
// idempotent sends, and reading offsets back with fetchTopicOffsets / fetchTopicOffsetsByTimestamp.
//
// kafkajs can only consume through a consumer group, and groups are issue 5: the group consumer
// test (subscribe, read every record produced here, commit, resume after a restart of the
// consumer) is to be added here with that issue.
'use strict'

const { after, before, test } = require('node:test')
const assert = require('node:assert/strict')
const { CompressionTypes, Kafka, Partitioners, logLevel } = require('kafkajs')
const { start, NODE_ID } = require('./broker')
const { WAIT_MS, name, eventually, createTopic } = require('./support')


let broker
let kafka
let admin

before(async () => {
  broker = await start('node')
  kafka = new Kafka({
    clientId: 'compat-node',
    brokers: [broker.bootstrap],
    connectionTimeout: 3000,
    requestTimeout: 5000,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 },
    logLevel: logLevel.ERROR
  })
  admin = kafka.admin()
  await admin.connect()
})

after(async () => {
  if (admin) await admin.disconnect()
  if (broker) await broker.stop()
})

function producer (options = {}) {
  return kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, ...options })
}

test('admin createTopics, fetchTopicMetadata, createPartitions, deleteTopics', async () => {
  const topic = name('kjs-admin')
  await createTopic(admin, topic, 3, [{ name: 'retention.ms', value: '3600000' }])
  assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], timeout: WAIT_MS }), false,
    'createTopics on an existing topic resolves false (TOPIC_ALREADY_EXISTS)')

  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] })
  assert.equal(topics.length, 1)
  const partitions = [...topics[0].partitions].sort((a, b) => a.partitionId - b.partitionId)
  assert.deepEqual(partitions.map((p) => [p.partitionId, p.leader, p.replicas, p.isr, p.partitionErrorCode]),
    [0, 1, 2].map((id) => [id, NODE_ID, [NODE_ID], [NODE_ID], 0]))
  assert.ok((await admin.listTopics()).includes(topic))

  const { brokers, clusterId } = await admin.describeCluster()
  assert.deepEqual(brokers.map((b) => [b.nodeId, b.host, b.port]), [[NODE_ID, '127.0.0.1', broker.port]])
  assert.equal(clusterId.length, 22)

  await admin.createPartitions({ topicPartitions: [{ topic, count: 5 }], timeout: WAIT_MS })
  await eventually('5 partitions listed', async () =>
    (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0].partitions.length === 5)
  await assert.rejects(admin.createPartitions({ topicPartitions: [{ topic, count: 2 }], timeout: WAIT_MS }),
    (e) => e.type === 'INVALID_PARTITIONS' || e.errors?.[0]?.type === 'INVALID_PARTITIONS')

  await admin.deleteTopics({ topics: [topic], timeout: WAIT_MS })
  await eventually(`${topic} no longer listed`, async () => !(await admin.listTopics()).includes(topic))
})

test('producer send with acks -1 and gzip; fetchTopicOffsets counts the records', async () => {
  const topic = name('kjs-gzip')
  await createTopic(admin, topic)
  const p = producer()
  await p.connect()
  try {
    for (let round = 0; round < 2; round++) {
      const messages = Array.from({ length: 10 }, (_, i) => ({
        key: `k${i}`, value: `kafkajs gzip ${round}/${i} `.repeat(20), headers: { i: String(i) }, partition: 0
      }))
      const metadata = await p.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages })
      assert.deepEqual(metadata.map((m) => [m.topicName, m.partition, m.errorCode, m.baseOffset]),
        [[topic, 0, 0, String(10 * round)]])
    }
    const acksOne = await p.send({ topic, acks: 1, messages: [{ value: 'acks 1', partition: 0 }] })
    assert.equal(acksOne[0].baseOffset, '20')
  } finally {
    await p.disconnect()
  }
  assert.deepEqual(await admin.fetchTopicOffsets(topic), [{ partition: 0, offset: '21', high: '21', low: '0' }])
})

test('idempotent producer: sequential sends are stored once each', async () => {
  const topic = name('kjs-idempotent')
  await createTopic(admin, topic, 2)
  const p = producer({ idempotent: true, maxInFlightRequests: 1 })
  await p.connect()
  try {
    for (let i = 0; i < 6; i++) {
      const metadata = await p.send({ topic, acks: -1, messages: [{ value: `once ${i}`, partition: i % 2 }] })
      assert.deepEqual(metadata.map((m) => [m.partition, m.errorCode, m.baseOffset]), [[i % 2, 0, String(Math.floor(i / 2))]])
    }
  } finally {
    await p.disconnect()
  }
  const offsets = (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition)
  assert.deepEqual(offsets.map((o) => [o.partition, o.low, o.high]), [[0, '0', '3'], [1, '0', '3']])
})

test('fetchTopicOffsetsByTimestamp finds the first record of the last hour', async () => {
  const topic = name('kjs-times')
  await createTopic(admin, topic)
  const now = Date.now()
  const agesMs = [3 * 3600e3, 2 * 3600e3, 61 * 60e3, 59 * 60e3, 10 * 60e3]
  const p = producer()
  await p.connect()
  try {
    await p.send({
      topic,
      acks: -1,
      messages: agesMs.map((age, i) => ({ value: `t${i}`, timestamp: String(now - age), partition: 0 }))
    })
  } finally {
    await p.disconnect()
  }
  assert.deepEqual(await admin.fetchTopicOffsetsByTimestamp(topic, now - 3600e3), [{ partition: 0, offset: '3' }])
  assert.deepEqual(await admin.fetchTopicOffsetsByTimestamp(topic, now - 4 * 3600e3), [{ partition: 0, offset: '0' }])
  // No record at or after the timestamp: kafkajs reports the high watermark.
  assert.deepEqual(await admin.fetchTopicOffsetsByTimestamp(topic, now + 3600e3), [{ partition: 0, offset: '5' }])
})
