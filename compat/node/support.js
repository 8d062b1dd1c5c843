// What the kafkajs test files share besides the broker (broker.js): the patience of every wait,
// unique names, polling for a condition, and creating a topic.
'use strict'

const assert = require('node:assert/strict')
const crypto = require('node:crypto')

const WAIT_MS = 15000
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const name = (prefix) => `${prefix}-${crypto.randomBytes(4).toString('hex')}`

// Polls until the condition holds (a commit, a rebalance, a change the broker's metadata shows a
// moment after the controller commits it), failing after WAIT_MS.
async function eventually (what, condition) {
  const deadline = Date.now() + WAIT_MS
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `${what} within ${WAIT_MS} ms`)
    await sleep(50)
  }
}

// Creates a topic with replication factor 1 through the admin client and waits for its leaders.
async function createTopic (admin, topic, numPartitions = 1, configEntries = []) {
  const created = await admin.createTopics({
    topics: [{ topic, numPartitions, replicationFactor: 1, configEntries }],
    waitForLeaders: true,
    timeout: WAIT_MS
  })
  assert.equal(created, true, `createTopics created ${topic}`)
}

module.exports = { WAIT_MS, sleep, name, eventually, createTopic }
