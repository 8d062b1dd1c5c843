// The transactional workload (--txn): transactional producers write unique values to several
// partitions of TOPIC-txn-in in each transaction, committing most and aborting some on purpose;
// a consume-transform-produce chain (a GroupTransactSession group of two) copies each value it
// reads from TOPIC-txn-in partition p to TOPIC-txn-out partition p, with its input offsets
// committed in the same transaction; at the end a final reader reads both topics from the start,
// read_committed, up to a sentinel transaction's values. Every transaction (its writes with their
// offsets, its outcome) and every read_committed poll is a history line (see the checker's txn
// module for the anomalies it looks for).
package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	txnProducers  = 2
	txnChain      = 2
	txnMaxWrites  = 4
	txnAbortShare = 4 // one transaction in this many is aborted on purpose
	txnTimeout    = 15 * time.Second
	txnOpTimeout  = 30 * time.Second
)

// txnValues hands out unique values for the transactional topic.
var txnValues atomic.Int64

func txnTopics() (string, string) { return *topic + "-txn-in", *topic + "-txn-out" }

// txnWorkload runs the transactional producers until stop, then a sentinel transaction, then the
// final read; the chain runs until the final reader has seen every sentinel in the output.
func txnWorkload(h *History, base []kgo.Opt, stop *atomic.Bool) error {
	in, out := txnTopics()
	createTopicNamed(base, in)
	createTopicNamed(base, out)
	var chainStop atomic.Bool
	var chains sync.WaitGroup
	for i := range txnChain {
		chains.Add(1)
		go func() {
			defer chains.Done()
			chain(h, fmt.Sprintf("x%d", i), base, &chainStop)
		}()
	}
	var producers sync.WaitGroup
	for i := range txnProducers {
		producers.Add(1)
		go func() {
			defer producers.Done()
			txnProduce(h, fmt.Sprintf("t%d", i), base, stop)
		}()
	}
	producers.Wait()
	sentinels, err := sentinel(h, base)
	if err == nil {
		err = finalTxnRead(h, base, sentinels)
	}
	chainStop.Store(true)
	chains.Wait()
	return err
}

// txnClient is a transactional producer with the workload's settings.
func txnClient(base []kgo.Opt, id string) (*kgo.Client, error) {
	return kgo.NewClient(append(base,
		kgo.TransactionalID(id), kgo.TransactionTimeout(txnTimeout),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RecordDeliveryTimeout(txnOpTimeout),
		kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }))...)
}

// txnProduce runs transactions until stop: each writes 1-4 values to random partitions.
func txnProduce(h *History, process string, base []kgo.Opt, stop *atomic.Bool) {
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	in, _ := txnTopics()
	var client *kgo.Client
	defer func() {
		if client != nil {
			client.Close()
		}
	}()
	for n := 0; !stop.Load(); n++ {
		if client == nil {
			c, err := txnClient(base, "nemesis-"+process)
			if err != nil {
				fatal("transactional producer %s: %v", process, err)
			}
			client = c
		}
		var writes [][2]int64
		for range 1 + rng.Intn(txnMaxWrites) {
			writes = append(writes, [2]int64{int64(rng.Intn(*partitions)), txnValues.Add(1)})
		}
		abort := rng.Intn(txnAbortShare) == 0
		if !runTxn(h, client, fmt.Sprintf("%s-%d", process, n), process, in, writes, abort) {
			client.Close()
			client = nil
		}
		time.Sleep(time.Duration(50+rng.Intn(50)) * time.Millisecond)
	}
}

// sentinel commits one transaction writing a fresh value to every partition (retrying until one
// commits) and returns those values: once the final reader has read them all, read_committed, it
// has read every transaction decided before.
func sentinel(h *History, base []kgo.Opt) (map[int32]int64, error) {
	in, _ := txnTopics()
	deadline := time.Now().Add(time.Duration(*drain) * time.Second)
	for n := 0; time.Now().Before(deadline); n++ {
		client, err := txnClient(base, "nemesis-sentinel")
		if err != nil {
			return nil, err
		}
		values := map[int32]int64{}
		var writes [][2]int64
		for p := range int32(*partitions) {
			values[p] = txnValues.Add(1)
			writes = append(writes, [2]int64{int64(p), values[p]})
		}
		committed := runTxn(h, client, fmt.Sprintf("sentinel-%d", n), "sentinel", in, writes, false)
		client.Close()
		if committed {
			return values, nil
		}
	}
	return nil, errors.New("no sentinel transaction committed in time")
}

// runTxn runs one transaction of writes ([partition, value]) and logs it with its outcome: "ok"
// (committed, or aborted on purpose), "fail" (known aborted after an error) or "info" (unknown).
// It returns whether the client is still usable; for the sentinel, whether it committed.
func runTxn(h *History, client *kgo.Client, id, process, topicName string, writes [][2]int64, abort bool) bool {
	h.log(map[string]any{"process": process, "type": "invoke", "f": "txn", "txn": id})
	op := map[string]any{"process": process, "f": "txn", "txn": id}
	if err := client.BeginTransaction(); err != nil {
		op["type"], op["outcome"], op["error"], op["writes"] = "fail", "abort", err.Error(), [][3]int64{}
		h.log(op)
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), txnOpTimeout)
	defer cancel()
	done, produceErr, flushErr := produceAll(ctx, client, client, topicName, writes)
	op["writes"] = done
	if flushErr != nil && produceErr == nil {
		produceErr = flushErr
	}
	commit := !abort && produceErr == nil
	if commit {
		err := client.EndTransaction(ctx, kgo.TryCommit)
		if err == nil {
			op["type"], op["outcome"] = "ok", "commit"
			h.log(op)
			return true
		}
		op["error"] = err.Error()
		if !errors.Is(err, kerr.OperationNotAttempted) {
			// The commit may or may not have happened; abort what is left and record "unknown".
			op["type"] = "info"
			h.log(op)
			return client.EndTransaction(ctx, kgo.TryAbort) == nil && process != "sentinel"
		}
	}
	if produceErr != nil {
		op["error"] = produceErr.Error()
		_ = client.AbortBufferedRecords(ctx)
	}
	if err := client.EndTransaction(ctx, kgo.TryAbort); err != nil {
		op["type"], op["error"] = "info", err.Error()
		h.log(op)
		return false
	}
	op["type"], op["outcome"] = "ok", "abort"
	if !abort {
		op["type"] = "fail"
	}
	h.log(op)
	return process != "sentinel"
}

// chain copies TOPIC-txn-in to TOPIC-txn-out exactly once: each batch it polls becomes one
// transaction with the input offsets committed in it. It logs its polls ("tpoll", read_committed)
// and each transaction ("chain") with its inputs, outputs and outcome.
func chain(h *History, process string, base []kgo.Opt, stop *atomic.Bool) {
	in, out := txnTopics()
	logPartitions := func(f string) func(context.Context, *kgo.Client, map[string][]int32) {
		return func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			h.log(map[string]any{"process": process, "type": "ok", "f": f, "topic": "in", "partitions": m[in]})
		}
	}
	newSession := func() *kgo.GroupTransactSession {
		s, err := kgo.NewGroupTransactSession(append(base,
			kgo.TransactionalID("nemesis-chain-"+process), kgo.TransactionTimeout(txnTimeout),
			kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RecordDeliveryTimeout(txnOpTimeout),
			kgo.ConsumerGroup("nemesis-chain"), kgo.ConsumeTopics(in),
			kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.RequireStableFetchOffsets(),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.HeartbeatInterval(500*time.Millisecond), kgo.SessionTimeout(10*time.Second),
			kgo.FetchMaxWait(200*time.Millisecond),
			kgo.OnPartitionsAssigned(logPartitions("assign")),
			kgo.OnPartitionsRevoked(logPartitions("revoke")),
			kgo.OnPartitionsLost(logPartitions("lost")))...)
		if err != nil {
			fatal("chain %s: %v", process, err)
		}
		return s
	}
	session := newSession()
	defer func() { session.Close() }()
	for n := 0; !stop.Load(); n++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fetches := session.PollFetches(ctx)
		cancel()
		var inputs [][3]int64
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			if len(p.Records) == 0 {
				return
			}
			records := make([][2]int64, 0, len(p.Records))
			for _, r := range p.Records {
				value, _ := strconv.ParseInt(string(r.Value), 10, 64)
				records = append(records, [2]int64{r.Offset, value})
				inputs = append(inputs, [3]int64{int64(r.Partition), r.Offset, value})
			}
			h.log(map[string]any{"process": process, "type": "ok", "f": "tpoll", "topic": "in", "partition": p.Partition, "records": records})
		})
		if len(inputs) == 0 {
			continue
		}
		id := fmt.Sprintf("%s-%d", process, n)
		h.log(map[string]any{"process": process, "type": "invoke", "f": "chain", "txn": id})
		op := map[string]any{"process": process, "f": "chain", "txn": id, "inputs": inputs}
		outputs := make([][3]int64, len(inputs))
		committed := false
		err := session.Begin()
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), txnOpTimeout)
			copies := make([][2]int64, len(inputs))
			for i, input := range inputs {
				copies[i] = [2]int64{input[0], input[2]}
			}
			var produceErr error
			// End flushes before it commits; a copy that failed must abort the transaction
			// (franz-go leaves that to the caller, as its EOS example's AbortingFirstErrPromise).
			if outputs, produceErr, err = produceAll(ctx, session, session.Client(), out, copies); err == nil {
				try := kgo.TryCommit
				if produceErr != nil {
					op["produce_error"] = produceErr.Error()
					try = kgo.TryAbort
				}
				committed, err = session.End(ctx, try)
				if err == nil && committed && try == kgo.TryAbort {
					err = errors.New("End(TryAbort) reported a commit")
				}
			}
			cancel()
			op["outputs"] = outputs
			// Not committed with no error: aborted (a failed copy, a rebalance, a failed offset commit).
			op["type"] = map[bool]string{true: "ok", false: "fail"}[committed]
		}
		if err != nil {
			// No error End returns is retryable: the outcome is unknown and the session starts over.
			op["type"], op["error"] = "info", err.Error()
			h.log(op)
			session.Close()
			session = newSession()
			continue
		}
		h.log(op)
	}
}

// finalTxnRead reads both transactional topics from the start, read_committed, as process
// "final", until it has read the sentinel's value in every partition of the input and the
// chain's copy of it in every partition of the output.
func finalTxnRead(h *History, base []kgo.Opt, sentinels map[int32]int64) error {
	in, out := txnTopics()
	start := map[string]map[int32]kgo.Offset{in: {}, out: {}}
	waiting := map[string]map[int32]int64{in: {}, out: {}}
	for p, v := range sentinels {
		start[in][p], start[out][p] = kgo.NewOffset().AtStart(), kgo.NewOffset().AtStart()
		waiting[in][p], waiting[out][p] = v, v
	}
	client, err := kgo.NewClient(append(base, kgo.ConsumePartitions(start),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(200*time.Millisecond))...)
	if err != nil {
		return err
	}
	defer client.Close()
	names := map[string]string{in: "in", out: "out"}
	deadline := time.Now().Add(time.Duration(*drain) * time.Second)
	for len(waiting[in])+len(waiting[out]) > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("did not read the sentinels %v in time (still waiting for %v)", sentinels, waiting)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fetches := client.PollFetches(ctx)
		cancel()
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			if len(p.Records) == 0 {
				return
			}
			records := make([][2]int64, 0, len(p.Records))
			for _, r := range p.Records {
				value, _ := strconv.ParseInt(string(r.Value), 10, 64)
				records = append(records, [2]int64{r.Offset, value})
				if want, ok := waiting[p.Topic][p.Partition]; ok && want == value {
					delete(waiting[p.Topic], p.Partition)
				}
			}
			h.log(map[string]any{"process": "final", "type": "ok", "f": "tpoll", "topic": names[p.Topic], "partition": p.Partition, "records": records})
		})
	}
	return nil
}

// producer is how a kgo.Client and a kgo.GroupTransactSession both produce.
type producer interface {
	Produce(ctx context.Context, r *kgo.Record, promise func(*kgo.Record, error))
}

// produceAll produces one record per (partition, value) of writes to topic within the open
// transaction, flushes and waits for every answer: (partition, value, offset) per write, the
// offset -1 where it failed; the first produce error; the flush's error.
func produceAll(ctx context.Context, p producer, client *kgo.Client, topic string, writes [][2]int64) ([][3]int64, error, error) {
	done := make([][3]int64, len(writes))
	var produceErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, w := range writes {
		done[i] = [3]int64{w[0], w[1], -1}
		wg.Add(1)
		record := &kgo.Record{Topic: topic, Partition: int32(w[0]), Value: []byte(strconv.FormatInt(w[1], 10))}
		p.Produce(ctx, record, func(r *kgo.Record, err error) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				done[i][2] = r.Offset
			} else if produceErr == nil {
				produceErr = err
			}
		})
	}
	flushErr := client.Flush(ctx)
	wg.Wait()
	return done, produceErr, flushErr
}
