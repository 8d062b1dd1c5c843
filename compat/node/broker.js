// Starts and stops the broker the Node compatibility suite runs against, as compat/README.md
// ("The launcher contract") says: Strand (STRAND_COMPAT_BROKER=strand, the default) or Apache Kafka
// 4.4.0 from target/kafka-libs (kafka), on free loopback ports, with a fresh temporary run directory
// holding its data dir and its stdout/stderr.
//
// start() resolves once the port accepts connections and a Metadata request lists a broker, or
// rejects with the broker's stderr; stop() sends SIGTERM, then SIGKILL after 15 s, and deletes the
// run directory. The process is also killed if Node exits without calling stop().
'use strict'

const { spawn, spawnSync } = require('node:child_process')
const crypto = require('node:crypto')
const fs = require('node:fs')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')
const { Kafka, logLevel } = require('kafkajs')

const NODE_ID = 1
const REPO = path.resolve(__dirname, '..', '..')
const STOP_GRACE_MS = 15000
const TAIL_LINES = 60

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function fromRepo (p) {
  return path.isAbsolute(p) ? p : path.join(REPO, p)
}

function freePort () {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

function accepts (port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    const done = (ok) => { socket.destroy(); resolve(ok) }
    socket.setTimeout(200, () => done(false))
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

// A random Kafka Uuid in base64; like Kafka's Uuid.randomUuid, never starting with '-'.
function clusterId () {
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

function javaCommand () {
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java'
  const libs = fromRepo(process.env.STRAND_KAFKA_LIBS || 'target/kafka-libs')
  return [java, '-Xms256m', '-Xmx1g',
    `-Dlog4j2.configurationFile=${path.join(REPO, 'compat/kafka/log4j2.properties')}`, '-cp', `${libs}/*`]
}

class Broker {
  constructor (kind, port, runDir) {
    this.kind = kind
    this.port = port
    this.runDir = runDir
    this.command = []
    this.child = null
    this.exit = null // { code, signal } once the process has exited
  }

  get bootstrap () {
    return `127.0.0.1:${this.port}`
  }

  strandCommand (dataDir) {
    const bin = fromRepo(process.env.STRAND_BIN || 'target/release/strand')
    const listener = `PLAINTEXT://127.0.0.1:${this.port}`
    return [bin, 'server',
      '--override', `node.id=${NODE_ID}`,
      '--override', `listeners=${listener}`,
      '--override', `advertised.listeners=${listener}`,
      '--override', `log.dirs=${dataDir}`,
      '--override', 'group.initial.rebalance.delay.ms=0',
      '--override', 'group.consumer.heartbeat.interval.ms=500',
      '--override', 'http.listeners=',
      '--override', 'group.consumer.min.heartbeat.interval.ms=500']
  }

  // Writes server.properties from the shared template and formats the data dir.
  async kafkaCommand (dataDir) {
    let controllerPort = await freePort()
    while (controllerPort === this.port) controllerPort = await freePort()
    const template = fs.readFileSync(path.join(REPO, 'compat/broker/kafka-server.properties'), 'utf8')
    const properties = path.join(this.runDir, 'server.properties')
    fs.writeFileSync(properties, template.replaceAll('@PORT@', String(this.port))
      .replaceAll('@CONTROLLER_PORT@', String(controllerPort)).replaceAll('@LOG_DIRS@', dataDir))
    const java = javaCommand()
    const format = [...java, 'kafka.tools.StorageTool', 'format', '-t', clusterId(), '-c', properties]
    const done = spawnSync(format[0], format.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60000, encoding: 'utf8' })
    if (done.status !== 0) {
      throw new Error(`compat: formatting Kafka's storage failed: ${format.join(' ')}\n${done.stdout}${done.stderr}${done.error || ''}`)
    }
    return [...java, 'kafka.Kafka', properties]
  }

  launch () {
    const out = fs.openSync(path.join(this.runDir, 'broker.stdout'), 'w')
    const err = fs.openSync(path.join(this.runDir, 'broker.stderr'), 'w')
    this.child = spawn(this.command[0], this.command.slice(1), { stdio: ['ignore', out, err] })
    fs.closeSync(out)
    fs.closeSync(err)
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => { this.exit = { code, signal }; resolve() })
      this.child.once('error', (error) => { this.exit = { code: null, signal: null, error }; resolve() })
    })
    // Never leave the broker behind, whatever ends this process.
    const child = this.child
    process.once('exit', () => { if (this.exit === null) child.kill('SIGKILL') })
  }

  checkAlive () {
    if (this.exit !== null) {
      const how = this.exit.error ? `could not be started (${this.exit.error.message})`
        : `exited with ${this.exit.signal ? 'signal ' + this.exit.signal : 'status ' + this.exit.code} before it was ready`
      throw this.notReady(how)
    }
  }

  async awaitReady (timeoutMs) {
    const deadline = Date.now() + timeoutMs
    await sleep(0) // let a failed spawn report its error first
    while (!(await accepts(this.port))) {
      this.checkAlive()
      if (Date.now() > deadline) throw this.notReady(`was not ready after ${timeoutMs / 1000} s (its port never accepted a connection)`)
      await sleep(100)
    }
    let lastError = null
    while (Date.now() < deadline) {
      this.checkAlive()
      const admin = new Kafka({
        clientId: 'compat-launcher',
        brokers: [this.bootstrap],
        connectionTimeout: 2000,
        requestTimeout: 3000,
        retry: { retries: 0 },
        logLevel: logLevel.NOTHING
      }).admin()
      try {
        await admin.connect()
        const cluster = await admin.describeCluster() // a Metadata request in kafkajs
        if (cluster.brokers.length > 0) return
        lastError = new Error('Metadata listed no broker')
      } catch (e) {
        lastError = e
      } finally {
        await admin.disconnect().catch(() => {})
      }
      await sleep(100)
    }
    throw this.notReady(`was not ready after ${timeoutMs / 1000} s (port open, Metadata failed: ${lastError})`)
  }

  notReady (what) {
    return new Error(`compat: ${this.kind} broker ${what}\ncommand: ${this.command.join(' ')}\n` +
      `--- last ${TAIL_LINES} lines of its stderr ---\n${this.tail('broker.stderr')}` +
      `--- last ${TAIL_LINES} lines of its stdout ---\n${this.tail('broker.stdout')}`)
  }

  tail (name) {
    try {
      const lines = fs.readFileSync(path.join(this.runDir, name), 'utf8').split('\n')
      return lines.slice(-TAIL_LINES - 1).join('\n')
    } catch (e) {
      return `(unreadable: ${e.message})\n`
    }
  }

  // Stops the broker and deletes the run directory (kept with STRAND_COMPAT_KEEP_DIR=1). Idempotent.
  async stop () {
    if (this.child && this.exit === null) {
      this.child.kill('SIGTERM')
      let timer
      const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), STOP_GRACE_MS) })
      const outcome = await Promise.race([this.exited, timeout])
      clearTimeout(timer)
      if (outcome === 'timeout') {
        console.error(`compat: broker did not stop within ${STOP_GRACE_MS / 1000} s of SIGTERM; killing it`)
        this.child.kill('SIGKILL')
        await this.exited
      }
    }
    if (process.env.STRAND_COMPAT_KEEP_DIR === '1') {
      console.error(`compat: broker run directory kept: ${this.runDir}`)
    } else {
      fs.rmSync(this.runDir, { recursive: true, force: true })
    }
  }
}

// Starts the broker selected by the environment; suite names the run directory.
async function start (suite) {
  const kind = process.env.STRAND_COMPAT_BROKER || 'strand'
  if (kind !== 'strand' && kind !== 'kafka') {
    throw new Error(`STRAND_COMPAT_BROKER must be 'strand' or 'kafka', not '${kind}'`)
  }
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `strand-compat-${suite}-`))
  const dataDir = path.join(runDir, 'data')
  fs.mkdirSync(dataDir)
  const broker = new Broker(kind, await freePort(), runDir)
  // Ctrl-C or run.sh's timeout: kill the broker at once and delete its files, also mid-start.
  const onSignal = (signal) => {
    if (broker.child && broker.exit === null) broker.child.kill('SIGKILL')
    if (process.env.STRAND_COMPAT_KEEP_DIR !== '1') fs.rmSync(runDir, { recursive: true, force: true })
    console.error(`compat: ${signal}: broker killed`)
    process.exit(1)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  const timeoutMs = 1000 * Number(process.env.STRAND_COMPAT_START_TIMEOUT_S || (kind === 'strand' ? 20 : 90))
  try {
    broker.command = kind === 'strand' ? broker.strandCommand(dataDir) : await broker.kafkaCommand(dataDir)
    broker.launch()
    await broker.awaitReady(timeoutMs)
  } catch (e) {
    await broker.stop()
    throw e
  }
  return broker
}

module.exports = { start, NODE_ID }
