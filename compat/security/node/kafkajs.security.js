// kafkajs over SSL, mTLS (a PKCS12 keystore), SASL_SSL SCRAM-SHA-512, SASL_PLAINTEXT PLAIN and
// OAUTHBEARER (an unsecured token, and signed tokens checked against a JWK set), and the ways
// each must fail. Run by ../run.py with `node --test` against the brokers STRAND_SEC_CONFIG
// describes; kafkajs comes from the node suite's node_modules (compat/node, installed by
// run.sh). Each test appends its outcome to the runner's results file.
'use strict'

const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const { test } = require('node:test')

const { Kafka, logLevel } = require(path.join(__dirname, '../../node/node_modules/kafkajs'))

const CLIENT = 'kafkajs'
const RECORDS = ['secured-0', 'secured-1', 'secured-2']
const config = JSON.parse(fs.readFileSync(process.env.STRAND_SEC_CONFIG, 'utf8'))
const certs = config.certs
const read = (name) => fs.readFileSync(certs[name])

function listener (group, name) {
  const g = config.groups[group]
  if (g.error) {
    const e = new Error(`the ${group} group's broker did not start: ${g.error_line}`)
    e.stack = `${e.message}\n${g.error}`
    throw e
  }
  return g.listeners[name]
}

// A node:test test whose outcome also goes to the matrix as kafkajs/<name>.
function matrixTest (name, fn) {
  test(name, async () => {
    let outcome = 'PASS'
    let detail = ''
    try {
      await fn()
    } catch (e) {
      outcome = 'FAIL'
      detail = String(e.message).split('\n')[0].slice(0, 300)
      throw e
    } finally {
      fs.appendFileSync(config.results, `${CLIENT}\t${name}\t${outcome}\t${detail}\n`)
    }
  })
}

// An unsecured token (alg none) as Kafka's unsecured validator accepts, expired if lifetimeS < 0.
function unsecuredJwt (subject, lifetimeS = 3600) {
  const b64 = (obj) => Buffer.from(JSON.stringify(obj)).toString('base64url')
  const now = Math.floor(Date.now() / 1000)
  return `${b64({ alg: 'none' })}.${b64({ sub: subject, iat: now + Math.min(lifetimeS, 0) - 60, exp: now + lifetimeS })}.`
}

const ssl = (extra = {}) => ({ ca: [read('ca.pem')], ...extra })
const scram = (password, mechanism = 'scram-sha-512') => ({ mechanism, username: config.users.scram.user, password })
const plain = (password) => ({ mechanism: 'plain', username: config.users.plain.user, password })

function kafka (broker, security, extra = {}) {
  return new Kafka({
    clientId: 'strand-security',
    brokers: [broker],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5000,
    ...security,
    ...extra
  })
}

async function roundTrip (broker, security) {
  const topic = `sec-${crypto.randomBytes(5).toString('hex')}`
  const client = kafka(broker, security)
  const producer = client.producer({ allowAutoTopicCreation: true })
  await producer.connect()
  try {
    for (const value of RECORDS) {
      await producer.send({ topic, acks: -1, messages: [{ value, partition: 0 }] })
    }
  } finally {
    await producer.disconnect()
  }
  const consumer = client.consumer({ groupId: `unused-${topic}`, maxWaitTimeInMs: 200 })
  await consumer.connect()
  try {
    await consumer.subscribe({ topic, fromBeginning: true })
    const got = []
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read back ${JSON.stringify(got)} within 30 s`)), 30000)
      consumer.run({
        autoCommit: false,
        eachMessage: async ({ message }) => {
          got.push(message.value.toString())
          if (got.length >= RECORDS.length) {
            clearTimeout(timer)
            resolve()
          }
        }
      }).catch(reject)
    })
    assert.deepEqual(got, RECORDS)
  } finally {
    await consumer.disconnect()
  }
}

// KIP-368 on the REAUTH listener (sessions of reauth_ms): for 8 s after the first record
// arrives, a producer sends a record every 250 ms (each acknowledged before the next) while a
// consumer reads them. Every record arrives in order, never a session's length apart, and no
// connection was opened after the first record: kafkajs re-authenticates on its connections
// (before a request, once less than reauthenticationThreshold is left of the session) instead of
// being disconnected by the broker and reconnecting; it logs every authentication at debug level,
// so there are at least three more of those than connections.
async function reauth () {
  const topic = `sec-${crypto.randomBytes(5).toString('hex')}`
  let opened = 0
  let authentications = 0
  const sockets = require(path.join(__dirname, '../../node/node_modules/kafkajs/src/network/socketFactory'))()
  const client = kafka(listener('sasl', 'REAUTH'), { ssl: ssl(), sasl: scram(config.users.scram.password) }, {
    reauthenticationThreshold: 1000,
    logLevel: logLevel.DEBUG,
    logCreator: () => ({ log }) => {
      if (/^SASL SCRAM \S+ authentication successful/.test(log.message)) authentications++
    },
    socketFactory: (options) => { opened++; return sockets(options) }
  })
  const producer = client.producer({ allowAutoTopicCreation: true })
  const consumer = client.consumer({ groupId: `unused-${topic}`, maxWaitTimeInMs: 100 })
  const sent = []
  const send = async () => {
    const value = `reauth-${sent.length}`
    await producer.send({ topic, acks: -1, messages: [{ value, partition: 0 }] })
    sent.push(value)
  }
  await producer.connect()
  await consumer.connect()
  try {
    await send()
    await consumer.subscribe({ topic, fromBeginning: true })
    const got = []
    let last = null
    let longest = 0
    let firstArrived
    const first = new Promise((resolve) => { firstArrived = resolve })
    let failed
    const consuming = new Promise((resolve, reject) => { failed = reject })
    consumer.run({
      autoCommit: false,
      eachMessage: async ({ message }) => {
        const now = Date.now()
        if (last === null) firstArrived(opened)
        else longest = Math.max(longest, now - last)
        last = now
        got.push(message.value.toString())
      }
    }).catch(failed)
    const atStart = await Promise.race([first, consuming])
    const end = Date.now() + 8000
    while (Date.now() < end) {
      await Promise.race([send(), consuming])
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    const deadline = Date.now() + 10000
    while (got.length < sent.length && Date.now() < deadline) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), consuming])
    }
    assert.deepEqual(got, sent)
    assert.ok(longest < config.reauth_ms, `no record for ${longest} ms`)
    assert.equal(opened, atStart, `connections opened: ${atStart} at the first record, ${opened} at the end`)
    assert.ok(authentications >= opened + 3, `${authentications} authentications on ${opened} connections`)
    console.log(`${CLIENT} reauth: ${got.length} records, longest gap ${longest} ms, ${opened} connections, ` +
      `${authentications} authentications`)
  } finally {
    await consumer.disconnect()
    await producer.disconnect()
  }
}

// admin.describeCluster (a Metadata request) fails with an error of class errorName (itself or,
// when kafkajs wraps it in KafkaJSNumberOfRetriesExceeded, its cause) and pattern matches the
// messages of the chain.
async function refused (broker, security, errorName, pattern) {
  const admin = kafka(broker, security, { retry: { retries: 0 }, requestTimeout: 3000 }).admin()
  let error
  try {
    await admin.connect()
    await admin.describeCluster()
  } catch (e) {
    error = e
  } finally {
    await admin.disconnect()
  }
  assert.ok(error, 'describeCluster succeeded')
  const chain = []
  for (let e = error; e; e = e.cause || e.originalError) chain.push(e)
  const text = chain.map((e) => `${e.name}: ${e.message}${e.code ? ` [${e.code}]` : ''}`).join(' caused by ')
  console.log(`${CLIENT} refused with ${text}`)
  const named = (e) => (errorName instanceof RegExp ? errorName.test(e.name) : e.name === errorName)
  assert.ok(chain.some(named), `${errorName} in ${text}`)
  assert.match(text, pattern)
}

matrixTest('ssl', () => roundTrip(listener('tls', 'SSL'), { ssl: ssl() }))

matrixTest('mtls', () => roundTrip(listener('tls', 'MTLS'),
  { ssl: ssl({ pfx: read('client.p12'), passphrase: certs.password }) }))

matrixTest('scram-sha-512', () => roundTrip(listener('sasl', 'SASL_SSL'),
  { ssl: ssl(), sasl: scram(config.users.scram.password) }))

matrixTest('scram-sha-256', () => roundTrip(listener('sasl', 'SASL_SSL'),
  { ssl: ssl(), sasl: scram(config.users.scram.password, 'scram-sha-256') }))

matrixTest('reauth', reauth)

matrixTest('plain', () => roundTrip(listener('sasl', 'SASL_PLAINTEXT'), { sasl: plain(config.users.plain.password) }))

matrixTest('oauthbearer', () => roundTrip(listener('oauth', 'SASL_PLAINTEXT'), {
  sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: unsecuredJwt(config.users.oauth.user) }) }
}))

// Kafka answers an invalid token with a challenge holding {"status":"invalid_token"} (RFC 7628
// 3.2.2). kafkajs takes that for success and sends Metadata, which Kafka answers with its
// SaslAuthenticate failure: kafkajs reads an empty Metadata response and finds no broker.
matrixTest('oauthbearer-expired-token', () => refused(listener('oauth', 'SASL_PLAINTEXT'), {
  sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: unsecuredJwt(config.users.oauth.user, -60) }) }
}, /KafkaJSBrokerNotFound|KafkaJSSASLAuthenticationError|KafkaJSConnectionClosedError/,
/No brokers in the broker pool|invalid_token|Closed connection/))

// The jwks group: tokens the runner's identity provider signed, checked against its JWK set.
const bearer = (kind) => ({ mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: config.jwks_tokens[kind] }) })

matrixTest('jwks', () => roundTrip(listener('jwks', 'SASL_PLAINTEXT'), { sasl: bearer('valid') }))

for (const kind of ['expired-token', 'untrusted-key']) {
  matrixTest(`jwks-${kind}`, () => refused(listener('jwks', 'SASL_PLAINTEXT'),
    { sasl: bearer(kind === 'expired-token' ? 'expired' : kind) },
    /KafkaJSBrokerNotFound|KafkaJSSASLAuthenticationError|KafkaJSConnectionClosedError/,
    /No brokers in the broker pool|invalid_token|Closed connection/))
}

matrixTest('scram-wrong-password', () => refused(listener('sasl', 'SASL_SSL'), { ssl: ssl(), sasl: scram('wrong') },
  'KafkaJSSASLAuthenticationError',
  /SASL SCRAM SHA512 authentication failed: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512/))

matrixTest('plain-wrong-password', () => refused(listener('sasl', 'SASL_PLAINTEXT'), { sasl: plain('wrong') },
  'KafkaJSSASLAuthenticationError', /SASL PLAIN authentication failed: Authentication failed: Invalid username or password/))

matrixTest('untrusted-server', () => refused(listener('tls', 'SSL'), { ssl: { ca: [read('untrusted-ca.pem')] } },
  'KafkaJSConnectionError', /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify|self-signed certificate/))

matrixTest('no-client-cert', () => refused(listener('tls', 'MTLS'), { ssl: ssl() },
  'KafkaJSConnectionError', /alert (bad certificate|certificate required)|ALERT_BAD_CERTIFICATE|ALERT_CERTIFICATE_REQUIRED/))

matrixTest('untrusted-client-cert', () => refused(listener('tls', 'MTLS'),
  { ssl: ssl({ pfx: read('untrusted-client.p12'), passphrase: certs.password }) },
  'KafkaJSConnectionError', /alert (bad certificate|certificate unknown|unknown ca)|ALERT_BAD_CERTIFICATE|ALERT_CERTIFICATE_UNKNOWN|ALERT_UNKNOWN_CA/))

// Kafka's TLS listener answers with a TLS alert and closes the connection.
matrixTest('plaintext-on-tls-port', () => refused(listener('tls', 'SSL'), {}, 'KafkaJSConnectionClosedError',
  /Closed connection/))
