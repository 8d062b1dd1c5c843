// kafkajs 2.2.4 consumer groups (issue 5): consumer.run with eachMessage reads what was produced,
// commits (auto-commit, then commitOffsets), and a new consumer of the group resumes at the committed
// offsets; two consumers of one group split a topic's partitions; the admin client lists, describes,
// resets and deletes the group. This file starts a broker of its own (node --test runs each file in a
// process of its own, one file at a time).
'use strict'

const { after, before, test } = require('node:test')
const assert = require('node:assert/strict')
const { Kafka, logLevel } = require('kafkajs')
const { start } = require('./broker')
const { sleep, name, eventually, createTopic } = require('./support')


let broker
let kafka
let admin
const running = []

before(async () => {
  broker = await start('node-groups')
  kafka = new Kafka({
    clientId: 'compat-node-groups',
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
  for (const consumer of running) await consumer.disconnect().catch(() => {})
  if (admin) await admin.disconnect()
  if (broker) await broker.stop()
})

// Writes values to one partition; checks they land at consecutive offsets from `from`.
async function produce (topic, partition, values, from) {
  const producer = kafka.producer()
  await producer.connect()
  try {
    const [result] = await producer.send({ topic, acks: -1, messages: values.map((value) => ({ value, partition })) })
    assert.equal(result.baseOffset, String(from))
  } finally {
    await producer.disconnect()
  }
}

// A group member: heartbeats every 0.2 s (kafkajs heartbeats from its fetch loop) so a rebalance
// is noticed at once. `got` collects "partition@offset value" as eachMessage sees them.
async function member (groupId, topic, { fromBeginning = true, autoCommit = true } = {}) {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 200, maxWaitTimeInMs: 100, retry: { retries: 5 } })
  const state = { consumer, got: [], assignment: null }
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    state.assignment = [...(payload.memberAssignment[topic] || [])].sort((a, b) => a - b)
  })
  await consumer.connect()
  running.push(consumer)
  await consumer.subscribe({ topics: [topic], fromBeginning })
  await consumer.run({
    autoCommit,
    eachMessage: async ({ partition, message }) => {
      state.got.push(`${partition}@${message.offset} ${message.value.toString()}`)
    }
  })
  return state
}

async function stop (state) {
  await state.consumer.disconnect()
  running.splice(running.indexOf(state.consumer), 1)
}

// Waits until exactly `count` messages have arrived, then a moment more to check no others do.
async function receive (state, count) {
  await eventually(`${count} messages (have ${state.got.length})`, () => state.got.length >= count)
  await sleep(300)
  assert.equal(state.got.length, count, `received ${JSON.stringify(state.got)}`)
  return [...state.got].sort()
}

async function committed (groupId, topic) {
  const [{ partitions }] = await admin.fetchOffsets({ groupId, topics: [topic] })
  return Object.fromEntries(partitions.map((p) => [p.partition, p.offset]))
}

test('run with eachMessage reads every record, commits, and a new consumer of the group resumes', async () => {
  const topic = name('kjs-group')
  const groupId = name('kjs-g')
  await createTopic(admin, topic, 2)
  for (const p of [0, 1]) await produce(topic, p, [0, 1, 2, 3, 4].map((i) => `p${p}-${i}`), 0)

  const first = await member(groupId, topic)
  assert.deepEqual(await receive(first, 10), [0, 1].flatMap((p) => [0, 1, 2, 3, 4].map((i) => `${p}@${i} p${p}-${i}`)))
  // Auto-commit: kafkajs commits the resolved offsets after each batch.
  await eventually('auto-committed offsets 5 and 5', async () => {
    const offsets = await committed(groupId, topic)
    return offsets[0] === '5' && offsets[1] === '5'
  })
  await stop(first)

  for (const p of [0, 1]) await produce(topic, p, [`p${p}-5`, `p${p}-6`], 5)
  // fromBeginning: false would start at the end: only the commit places this member at offset 5.
  const second = await member(groupId, topic, { fromBeginning: false, autoCommit: false })
  assert.deepEqual(await receive(second, 4), ['0@5 p0-5', '0@6 p0-6', '1@5 p1-5', '1@6 p1-6'])
  await second.consumer.commitOffsets([{ topic, partition: 0, offset: '7' }, { topic, partition: 1, offset: '6' }])
  assert.deepEqual(await committed(groupId, topic), { 0: '7', 1: '6' })
  await stop(second)

  const third = await member(groupId, topic, { fromBeginning: false })
  assert.deepEqual(await receive(third, 1), ['1@6 p1-6'])
  await stop(third)
})

test('two consumers of one group split the partitions and read only their own', async () => {
  const topic = name('kjs-split')
  const groupId = name('kjs-g')
  await createTopic(admin, topic, 4)
  const members = [await member(groupId, topic), await member(groupId, topic)]
  await eventually('two partitions each', () => members.every((m) => m.assignment && m.assignment.length === 2))
  const shares = members.map((m) => m.assignment)
  assert.deepEqual([...shares[0], ...shares[1]].sort(), [0, 1, 2, 3], `shares ${JSON.stringify(shares)}`)

  for (const p of [0, 1, 2, 3]) await produce(topic, p, [`p${p}-0`, `p${p}-1`], 0)
  for (const [i, m] of members.entries()) {
    assert.deepEqual(await receive(m, 4), shares[i].flatMap((p) => [`${p}@0 p${p}-0`, `${p}@1 p${p}-1`]))
  }
  for (const m of members) await stop(m)
})

test('admin listGroups, describeGroups, fetchOffsets, resetOffsets, deleteGroups', async () => {
  const topic = name('kjs-admin-group')
  const groupId = name('kjs-g')
  await createTopic(admin, topic, 1)
  await produce(topic, 0, ['a', 'b', 'c'], 0)
  const m = await member(groupId, topic)
  await receive(m, 3)
  await eventually('auto-committed offset 3', async () => (await committed(groupId, topic))[0] === '3')

  const { groups } = await admin.listGroups()
  assert.deepEqual(groups.filter((g) => g.groupId === groupId), [{ groupId, protocolType: 'consumer' }])
  const described = (await admin.describeGroups([groupId])).groups
  assert.equal(described.length, 1)
  assert.equal(described[0].errorCode, 0)
  assert.equal(described[0].state, 'Stable')
  assert.equal(described[0].protocolType, 'consumer')
  assert.equal(described[0].members.length, 1)
  assert.equal(described[0].members[0].clientId, 'compat-node-groups')
  assert.equal(described[0].members[0].clientHost, '/127.0.0.1')
  await stop(m)

  const empty = (await admin.describeGroups([groupId])).groups[0]
  assert.equal(empty.state, 'Empty')
  assert.deepEqual(empty.members, [])
  // resetOffsets (setOffsets underneath: a consumer joins the group, seeks, commits and leaves; it
  // waits out kafkajs's 5 s maxWaitTime) commits the sentinel -2 itself, which Kafka stores as it
  // is. kafkajs takes a negative committed offset for none: the next member starts where
  // fromBeginning says, here at offset 0 (had the commit of 3 stood, it would read nothing).
  await admin.resetOffsets({ groupId, topic, earliest: true })
  assert.deepEqual(await committed(groupId, topic), { 0: '-2' })
  const again = await member(groupId, topic, { fromBeginning: true })
  assert.deepEqual(await receive(again, 3), ['0@0 a', '0@1 b', '0@2 c'])
  await eventually('auto-committed offset 3 again', async () => (await committed(groupId, topic))[0] === '3')
  await stop(again)

  const deleted = await admin.deleteGroups([groupId])
  assert.deepEqual(deleted.map((g) => [g.groupId, g.errorCode]), [[groupId, 0]])
  assert.ok(!(await admin.listGroups()).groups.some((g) => g.groupId === groupId), 'deleted group still listed')
  assert.deepEqual(await committed(groupId, topic), { 0: '-1' })
})
