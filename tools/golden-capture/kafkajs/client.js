#!/usr/bin/env node
// Drives kafkajs against a broker so that the golden-capture recording proxy in
// front of it sees kafkajs's frames.
//
// Usage: node client.js <bootstrap>
'use strict'

const { Kafka, CompressionTypes, Partitioners, logLevel } = require('kafkajs')

const TOPIC = 'golden-kafkajs'
const GROUP = 'golden-kafkajs-group'
const N_RECORDS = 20

const log = (msg) => console.log(`[kafkajs] ${msg}`)

function record(i) {
  const headers = { client: 'kafkajs', seq: String(i) }
  if (i % 4 === 0) headers.multi = ['a', 'b'] // repeated header key
  return {
    key: i % 8 === 7 ? null : `kafkajs-key-${i}`,
    value: `kafkajs value ${i}`,
    partition: i % 3,
    headers,
  }
}

async function withTimeout(promise, ms, what) {
  let timer
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

async function main(bootstrap) {
  const kafka = new Kafka({
    clientId: 'golden-kafkajs',
    brokers: [bootstrap],
    logLevel: logLevel.WARN,
    connectionTimeout: 5000,
    requestTimeout: 10000,
    retry: { initialRetryTime: 100, maxRetryTime: 1000, retries: 10 },
  })

  const admin = kafka.admin()
  await admin.connect()
  const created = await admin.createTopics({
    topics: [{ topic: TOPIC, numPartitions: 3, replicationFactor: 1 }],
    waitForLeaders: true,
  })
  log(`created topic ${TOPIC}: ${created}`)
  log(`topics: ${(await admin.listTopics()).length}`)
  const md = await admin.fetchTopicMetadata({ topics: [TOPIC] })
  log(`describe: ${md.topics[0].partitions.length} partitions`)
  const cluster = await admin.describeCluster()
  log(`cluster ${cluster.clusterId}, ${cluster.brokers.length} brokers`)

  const producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()
  const half = N_RECORDS / 2
  await producer.send({
    topic: TOPIC,
    compression: CompressionTypes.GZIP,
    acks: -1,
    messages: Array.from({ length: half }, (_, i) => record(i)),
  })
  await producer.send({
    topic: TOPIC,
    compression: CompressionTypes.None,
    acks: 1,
    messages: Array.from({ length: half }, (_, i) => record(half + i)),
  })
  await producer.disconnect()
  log(`produced ${N_RECORDS} records (${half} gzip, ${half} uncompressed)`)

  const consumer = kafka.consumer({
    groupId: GROUP,
    sessionTimeout: 6000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 200,
    retry: { initialRetryTime: 100, retries: 10 },
  })
  await consumer.connect()
  await consumer.subscribe({ topics: [TOPIC], fromBeginning: true })
  let seen = 0
  const next = {} // partition -> next offset
  await withTimeout(
    new Promise((resolve, reject) => {
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            seen++
            next[partition] = (BigInt(message.offset) + 1n).toString()
            if (seen === N_RECORDS) resolve()
          },
        })
        .catch(reject)
    }),
    40000,
    'consume'
  )
  await consumer.commitOffsets(
    Object.entries(next).map(([partition, offset]) => ({ topic: TOPIC, partition: Number(partition), offset }))
  )
  log(`consumed ${seen} records, committed ${JSON.stringify(next)}`)
  await consumer.disconnect()

  const offsets = await admin.fetchTopicOffsets(TOPIC)
  log(`topic offsets ${JSON.stringify(offsets.map((o) => [o.partition, o.low, o.high]))}`)
  const byTime = await admin.fetchTopicOffsetsByTimestamp(TOPIC, 0)
  log(`offsets for time 0 ${JSON.stringify(byTime)}`)
  const groups = await admin.listGroups()
  log(`groups: ${groups.groups.map((g) => g.groupId).sort().join(', ')}`)
  const described = await admin.describeGroups([GROUP])
  for (const g of described.groups) log(`group ${g.groupId} state=${g.state} protocol=${g.protocol}`)
  const committed = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] })
  log(`committed ${JSON.stringify(committed)}`)
  await admin.disconnect()
}

if (process.argv.length !== 3) {
  console.error('usage: node client.js <bootstrap>')
  process.exit(2)
}
main(process.argv[2]).then(
  () => {
    log('done')
    process.exit(0)
  },
  (err) => {
    console.error(`[kafkajs] failed: ${err.stack || err}`)
    process.exit(1)
  }
)
