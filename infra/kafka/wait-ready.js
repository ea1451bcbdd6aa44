#!/usr/bin/env node
/*
 * Waits until a Kafka broker answers an admin describeCluster.
 *   node infra/kafka/wait-ready.js [brokers] [timeoutSeconds]
 * brokers defaults to $KAFKA_BROKERS or 127.0.0.1:9092; timeout to 90 s.
 * Optional: WAIT_READY_PID=<pid> makes it fail fast when that process dies meanwhile;
 * WAIT_READY_CLUSTER_ID=<id> accepts only a broker of that cluster (not another one that
 * happens to answer on the same port).
 * Exit 0 when ready (prints nothing), 1 with a clear message otherwise.
 */
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const brokers = (process.argv[2] || process.env.KAFKA_BROKERS || '127.0.0.1:9092')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const timeoutMs = Number(process.argv[3] || process.env.WAIT_READY_TIMEOUT || 90) * 1000;
const watchPid = process.env.WAIT_READY_PID ? Number(process.env.WAIT_READY_PID) : undefined;
const wantCluster = process.env.WAIT_READY_CLUSTER_ID || undefined;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function once() {
  const kafka = new Kafka({
    clientId: 'estate-wait-ready',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 3000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (!cluster.brokers || cluster.brokers.length === 0) throw new Error('no brokers in metadata');
    if (cluster.controller === null || cluster.controller === undefined || cluster.controller < 0) {
      throw new Error('no active controller yet');
    }
    if (wantCluster && cluster.clusterId !== wantCluster) {
      throw new Error(`a broker of another cluster (${cluster.clusterId}) answers on ${brokers.join(',')}`);
    }
    return cluster;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function main() {
  const started = Date.now();
  let last = 'no attempt';
  while (Date.now() - started < timeoutMs) {
    if (watchPid !== undefined && !alive(watchPid)) {
      process.stderr.write(`kafka: broker process ${watchPid} exited before it became ready\n`);
      process.exit(1);
    }
    try {
      await once();
      // The process we started must still be alive: it is the one that answered.
      if (watchPid === undefined || alive(watchPid)) process.exit(0);
      last = `process ${watchPid} exited`;
    } catch (err) {
      last = err && err.message ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  process.stderr.write(
    `kafka: broker at ${brokers.join(',')} not ready after ${Math.round(timeoutMs / 1000)} s (last error: ${last})\n`,
  );
  process.exit(1);
}

main();
