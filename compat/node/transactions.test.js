// kafkajs 2.2.4 transactions (transactions V1 with older API versions): producer.transaction()
// committing and aborting, as readUncommitted: false (read_committed, kafkajs's default) and
// readUncommitted: true consumers and fetchTopicOffsets (ListOffsets, read_committed: the last stable
// offset) see them; an open transaction holding a read_committed consumer at its first offset until it
// commits; consume-transform-produce with transaction.sendOffsets, its first processor killed
// midway; zombie fencing by a second producer with the same transactionalId. This file starts a
// broker of its own (node --test runs each file in a process of its own, one file at a time).
'use strict'

const { after, before, test } = require('node:test')
const assert = require('node:assert/strict')
const { Kafka, logLevel } = require('kafkajs')
const { start } = require('./broker')
const { sleep, name, eventually, createTopic } = require('./support')


let broker
let kafka
let admin
const connected = []

before(async () => {
  broker = await start('node-txn')
  kafka = new Kafka({
    clientId: 'compat-node-txn',
    brokers: [broker.bootstrap],
    connectionTimeout: 3000,
    requestTimeout: 5000,
    retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 1000 },
    logLevel: logLevel.NOTHING
  })
  admin = kafka.admin()
  await admin.connect()
})

after(async () => {
  for (const client of connected) await client.disconnect().catch(() => {})
  if (admin) await admin.disconnect()
  if (broker) await broker.stop()
})

async function connect (client) {
  await client.connect()
  connected.push(client)
  return client
}

async function disconnect (client) {
  await client.disconnect()
  connected.splice(connected.indexOf(client), 1)
}

// A transactional producer (kafkajs requires idempotence and one request in flight).
async function transactional (transactionalId) {
  return connect(kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 30000 }))
}

// The last stable offset per partition: kafkajs's ListOffsets asks for read_committed.
async function stableOffsets (topic) {
  const offsets = await admin.fetchTopicOffsets(topic)
  return Object.fromEntries(offsets.map((p) => [p.partition, p.high]))
}

async function awaitStableOffsets (topic, want) {
  let last
  await eventually(`last stable offsets ${JSON.stringify(want)} (last ${JSON.stringify(last)})`, async () => {
    last = await stableOffsets(topic)
    return JSON.stringify(last) === JSON.stringify(want)
  })
}

// A group consumer reading topic from the beginning; `got` collects "partition@offset value".
async function reader (topic, { readUncommitted }) {
  const consumer = await connect(kafka.consumer({ groupId: name('kjs-txn-reader'), readUncommitted, maxWaitTimeInMs: 100, heartbeatInterval: 200 }))
  const state = { consumer, got: [] }
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => { state.got.push(`${partition}@${message.offset} ${message.value}`) }
  })
  return state
}

// Waits until exactly `count` messages have arrived, then a moment more to check no others do.
async function receive (state, count) {
  await eventually(`${count} messages (have ${state.got.length})`, () => state.got.length >= count)
  await sleep(300)
  assert.equal(state.got.length, count, `received ${JSON.stringify(state.got)}`)
  return [...state.got].sort()
}

async function readAll (topic, readUncommitted, count) {
  const state = await reader(topic, { readUncommitted })
  try {
    return await receive(state, count)
  } finally {
    await disconnect(state.consumer)
  }
}

const values = (prefix, partition, n) => Array.from({ length: n }, (_, i) => ({ partition, value: `${prefix}-${partition}-${i}` }))

test('commit is visible to read_committed, abort is not; the LSO counts the markers', async () => {
  const topic = name('kjs-txn')
  await createTopic(admin, topic, 2)
  const producer = await transactional(name('kjs-txn'))

  const committed = await producer.transaction()
  await committed.send({ topic, messages: [...values('committed', 0, 5), ...values('committed', 1, 5)] })
  await committed.commit()

  const aborted = await producer.transaction()
  await aborted.send({ topic, messages: [...values('aborted', 0, 5), ...values('aborted', 1, 5)] })
  // Open: the LSO is past the 5 records and the commit marker.
  await awaitStableOffsets(topic, { 0: '6', 1: '6' })
  await aborted.abort()
  await awaitStableOffsets(topic, { 0: '12', 1: '12' })
  await disconnect(producer)

  const want = [0, 1].flatMap((p) => [0, 1, 2, 3, 4].map((i) => `${p}@${i} committed-${p}-${i}`))
  assert.deepEqual(await readAll(topic, false, 10), want.sort())
  const all = [0, 1].flatMap((p) => [0, 1, 2, 3, 4].flatMap((i) => [`${p}@${i} committed-${p}-${i}`, `${p}@${i + 6} aborted-${p}-${i}`]))
  assert.deepEqual(await readAll(topic, true, 20), all.sort())
})

test('an open transaction holds a read_committed consumer at its first offset until it commits', async () => {
  const topic = name('kjs-lso')
  await createTopic(admin, topic, 1)
  const plain = await connect(kafka.producer())
  await plain.send({ topic, acks: -1, messages: values('before', 0, 3) })
  const producer = await transactional(name('kjs-lso'))
  const txn = await producer.transaction()
  await txn.send({ topic, messages: values('txn', 0, 2) })
  await plain.send({ topic, acks: -1, messages: values('after', 0, 2) })
  await awaitStableOffsets(topic, { 0: '3' })

  const state = await reader(topic, { readUncommitted: false })
  assert.deepEqual(await receive(state, 3), ['0@0 before-0-0', '0@1 before-0-1', '0@2 before-0-2'])
  // Still held a second later: nothing past the LSO arrives while the transaction is open.
  await sleep(1000)
  assert.equal(state.got.length, 3, `received ${JSON.stringify(state.got)}`)

  await txn.commit()
  assert.deepEqual(await receive(state, 7), ['0@0 before-0-0', '0@1 before-0-1', '0@2 before-0-2',
    '0@3 txn-0-0', '0@4 txn-0-1', '0@5 after-0-0', '0@6 after-0-1'])
  await awaitStableOffsets(topic, { 0: '8' })
  await disconnect(state.consumer)
  await disconnect(producer)
  await disconnect(plain)
})

// A consume-transform-produce processor: each batch (at most 15 messages) is copied to output and
// its offsets committed in one transaction (sendOffsets). Once `abandonAfter` messages are committed,
// the next batch's transaction is written and its offsets sent but never ended, and the processor
// stops consuming (pause): it is dead, to be disconnected.
async function processor (groupId, transactionalId, input, output, abandonAfter = Infinity) {
  const producer = await transactional(transactionalId)
  // kafkajs gets its producer id with the first transaction: do that now, fencing a predecessor
  // (and aborting its open transaction) before this processor reads any offsets.
  await (await producer.transaction()).abort()
  const consumer = await connect(kafka.consumer({ groupId, readUncommitted: false, sessionTimeout: 10000, heartbeatInterval: 200, maxWaitTimeInMs: 100 }))
  const state = { producer, consumer, committed: 0, abandoned: 0 }
  await consumer.subscribe({ topics: [input], fromBeginning: true })
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, pause }) => {
      if (state.abandoned > 0) {
        pause()
        return
      }
      const messages = batch.messages.slice(0, 15)
      const txn = await producer.transaction()
      await txn.send({ topic: output, messages: messages.map((m) => ({ partition: batch.partition, key: m.key, value: `out:${m.value}` })) })
      const next = String(Number(messages[messages.length - 1].offset) + 1)
      await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: input, partitions: [{ partition: batch.partition, offset: next }] }] })
      if (state.committed >= abandonAfter) {
        state.abandoned = messages.length
        pause()
        return
      }
      await txn.commit()
      for (const m of messages) resolveOffset(m.offset)
      state.committed += messages.length
    }
  })
  return state
}

async function groupOffsets (groupId, topic) {
  const [{ partitions }] = await admin.fetchOffsets({ groupId, topics: [topic] })
  return Object.fromEntries(partitions.map((p) => [p.partition, p.offset]))
}

test('consume-transform-produce with sendOffsets: every input record once after a killed processor', async () => {
  const input = name('kjs-ctp-in')
  const output = name('kjs-ctp-out')
  await createTopic(admin, input, 2)
  await createTopic(admin, output, 2)
  const plain = await connect(kafka.producer())
  await plain.send({ topic: input, acks: -1, messages: [...values('in', 0, 50), ...values('in', 1, 50)] })
  await disconnect(plain)
  const groupId = name('kjs-ctp-g')
  const transactionalId = name('kjs-ctp')

  const first = await processor(groupId, transactionalId, input, output, 50)
  await eventually(`the first processor abandons a transaction (committed ${first.committed})`, () => first.abandoned > 0)
  await disconnect(first.consumer)
  await disconnect(first.producer)

  const second = await processor(groupId, transactionalId, input, output)
  let last
  await eventually(`the group's offsets at the input's end (last ${JSON.stringify(last)})`, async () => {
    last = await groupOffsets(groupId, input)
    return last[0] === '50' && last[1] === '50'
  })
  await disconnect(second.consumer)
  await disconnect(second.producer)

  const got = (await readAll(output, false, 100)).map((s) => s.replace(/@\d+/, '')).sort()
  const want = [0, 1].flatMap((p) => Array.from({ length: 50 }, (_, i) => `${p} out:in-${p}-${i}`)).sort()
  assert.deepEqual(got, want)
  await readAll(output, true, 100 + first.abandoned)
})

test('a second producer with the same transactionalId fences the first', async () => {
  const topic = name('kjs-zombie')
  await createTopic(admin, topic, 1)
  const transactionalId = name('kjs-zombie')
  const zombie = await transactional(transactionalId)
  const open = await zombie.transaction()
  await open.send({ topic, messages: values('zombie', 0, 5) })

  const successor = await transactional(transactionalId)
  const live = await successor.transaction() // its producer id: the zombie is fenced and its transaction aborted
  const fenced = (e) => ['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH'].includes(e.type)
  await assert.rejects(open.send({ topic, messages: values('zombie-late', 0, 1) }), fenced)
  await assert.rejects(open.commit(), fenced)

  await live.send({ topic, messages: values('live', 0, 3) })
  await live.commit()
  await disconnect(successor)
  await disconnect(zombie)

  assert.deepEqual(await readAll(topic, false, 3), ['0@6 live-0-0', '0@7 live-0-1', '0@8 live-0-2'])
  assert.deepEqual((await readAll(topic, true, 8)).map((s) => s.split(' ')[1]),
    ['zombie-0-0', 'zombie-0-1', 'zombie-0-2', 'zombie-0-3', 'zombie-0-4', 'live-0-0', 'live-0-1', 'live-0-2'])
})
