// Broker-side compression (issue 19): a topic whose compression.type differs from the producer's
// codec stores the batches recompressed, and kafkajs reads them back. kafkajs has gzip only; the
// other codecs are registered here for reading, from pure-JS decoders (kafkajs-snappy, lz4js,
// fzstd). Each codec's decompress counts its calls, which shows the codec the broker wrote.
'use strict'

const { after, before, test } = require('node:test')
const assert = require('node:assert/strict')
const { CompressionCodecs, CompressionTypes, Kafka, logLevel } = require('kafkajs')
const SnappyCodec = require('kafkajs-snappy')
const lz4js = require('lz4js')
const fzstd = require('fzstd')
const { start } = require('./broker')
const { name, eventually, createTopic } = require('./support')

const COUNT = 20
const decompressed = { [CompressionTypes.GZIP]: 0, [CompressionTypes.Snappy]: 0, [CompressionTypes.LZ4]: 0, [CompressionTypes.ZSTD]: 0 }

// A reading codec: `decode` turns a stored batch's records region into its plain bytes.
function reader (type, decode) {
  return () => ({
    async compress () { throw new Error(`this suite never produces codec ${type}`) },
    async decompress (buffer) {
      decompressed[type] += 1
      return decode(buffer)
    }
  })
}

const gzip = CompressionCodecs[CompressionTypes.GZIP]()
CompressionCodecs[CompressionTypes.GZIP] = () => ({
  compress: (encoder) => gzip.compress(encoder),
  async decompress (buffer) {
    decompressed[CompressionTypes.GZIP] += 1
    return gzip.decompress(buffer)
  }
})
const snappy = SnappyCodec()
CompressionCodecs[CompressionTypes.Snappy] = reader(CompressionTypes.Snappy, (b) => snappy.decompress(b))
CompressionCodecs[CompressionTypes.LZ4] = reader(CompressionTypes.LZ4, (b) => Buffer.from(lz4js.decompress(b)))
CompressionCodecs[CompressionTypes.ZSTD] = reader(CompressionTypes.ZSTD, (b) => Buffer.from(fzstd.decompress(b)))

let broker
let kafka
let admin
const running = []

before(async () => {
  broker = await start('node-compression')
  kafka = new Kafka({
    clientId: 'compat-node-compression',
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

const TYPES = { uncompressed: null, gzip: CompressionTypes.GZIP, snappy: CompressionTypes.Snappy, lz4: CompressionTypes.LZ4, zstd: CompressionTypes.ZSTD }

for (const target of Object.keys(TYPES)) {
  test(`topic compression.type=${target}: recompressed batches read back`, async () => {
    const topic = name(`kjs-recompress-${target}`)
    await createTopic(admin, topic, 1, [{ name: 'compression.type', value: target }])
    const messages = Array.from({ length: COUNT }, (_, i) => ({
      key: i % 4 === 0 ? null : `k${i}`,
      value: `${target} value ${i} `.repeat(100),
      headers: { target },
      partition: 0
    }))
    const producer = kafka.producer()
    await producer.connect()
    try {
      // One batch in a codec other than the topic's: none, or gzip for an uncompressed topic.
      const compression = target === 'uncompressed' ? CompressionTypes.GZIP : CompressionTypes.None
      await producer.send({ topic, acks: -1, compression, messages })
    } finally {
      await producer.disconnect()
    }

    const before = { ...decompressed }
    const got = []
    const consumer = kafka.consumer({ groupId: `${topic}-reader`, maxWaitTimeInMs: 100 })
    await consumer.connect()
    running.push(consumer)
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await consumer.run({ eachMessage: async ({ message }) => { got.push(message) } })
    await eventually(`${COUNT} messages (have ${got.length})`, () => got.length >= COUNT)
    await consumer.disconnect()
    running.splice(running.indexOf(consumer), 1)

    assert.deepEqual(got.map((m) => [m.offset, m.key && m.key.toString(), m.value.toString(), m.headers.target.toString()]),
      messages.map((m, i) => [String(i), m.key, m.value, target]))
    const used = Object.keys(decompressed).filter((type) => decompressed[type] > before[type]).map(Number)
    assert.deepEqual(used, TYPES[target] === null ? [] : [TYPES[target]], `codecs decompressed: ${used}`)
  })
}
