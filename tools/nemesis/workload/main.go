// The nemesis workload (tools/nemesis/README.md): Jepsen's Kafka queue workload with franz-go.
//
// One idempotent acks=all producer sends unique values (0, 1, 2, ...) to every partition of a
// topic in turn, at a steady rate; consumers in two groups (the classic protocol and KIP-848's)
// poll and commit; after --seconds the producer flushes, the consumers stop, and a final reader
// assigned every partition reads each from the start to its end offset. Every send, ack, poll,
// assignment and commit is a JSON line of the history file, stamped with the wall clock in ns
// (the harness stamps its faults with the same clock).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	brokers    = flag.String("brokers", "", "comma-separated bootstrap addresses")
	topic      = flag.String("topic", "nemesis", "the topic (created with RF 3, min.insync.replicas=2)")
	partitions = flag.Int("partitions", 4, "partitions of the topic")
	seconds    = flag.Int("seconds", 86400, "the longest the producer sends")
	rate       = flag.Int("rate", 200, "records a second")
	history    = flag.String("history", "history.jsonl", "the history file")
	drain      = flag.Int("drain-seconds", 90, "the limit for flushing, the groups' catching up and the final read")
	stopFile   = flag.String("stop-file", "", "the producer stops early once this file exists")
	txn        = flag.Bool("txn", false, "also run the transactional workload (txn.go)")
)

// History is the JSON-lines history; each line is one operation or its completion.
type History struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (h *History) log(op map[string]any) {
	op["time"] = time.Now().UnixNano()
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.enc.Encode(op); err != nil {
		fmt.Fprintf(os.Stderr, "workload: history write failed: %v\n", err)
		os.Exit(3)
	}
}

func main() {
	flag.Parse()
	file, err := os.Create(*history)
	if err != nil {
		fatal("create history: %v", err)
	}
	defer file.Close()
	h := &History{enc: json.NewEncoder(file)}
	seeds := strings.Split(*brokers, ",")
	base := []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.RequestTimeoutOverhead(5 * time.Second),
		kgo.RetryTimeout(30 * time.Second), kgo.DialTimeout(3 * time.Second), kgo.MetadataMinAge(250 * time.Millisecond)}
	createTopicNamed(base, *topic)
	var txnStop atomic.Bool
	txnDone := make(chan error, 1)
	if *txn {
		go func() { txnDone <- txnWorkload(h, base, &txnStop) }()
	}

	var stop atomic.Bool
	var groups sync.WaitGroup
	for i, spec := range []struct {
		group string
		opts  []kgo.Opt
	}{
		{"nemesis-classic", nil}, {"nemesis-classic", nil},
		{"nemesis-consumer", []kgo.Opt{kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer())}},
		{"nemesis-consumer", []kgo.Opt{kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer())}},
	} {
		groups.Add(1)
		go func() {
			defer groups.Done()
			consume(h, fmt.Sprintf("c%d", i), spec.group, base, spec.opts, &stop)
		}()
	}

	produce(h, base)
	txnStop.Store(true)
	// The groups catch up for a while after the last ack, then leave; the final reader is the
	// one that must see everything.
	time.Sleep(5 * time.Second)
	stop.Store(true)
	groups.Wait()
	if err := finalRead(h, base); err != nil {
		fatal("final read: %v", err)
	}
	if *txn {
		if err := <-txnDone; err != nil {
			fatal("transactional workload: %v", err)
		}
	}
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "workload: "+format+"\n", args...)
	os.Exit(1)
}

func createTopicNamed(base []kgo.Opt, name string) {
	client, err := kgo.NewClient(base...)
	if err != nil {
		fatal("client: %v", err)
	}
	defer client.Close()
	adm := kadm.NewClient(client)
	configs := map[string]*string{"min.insync.replicas": ptr("2"), "unclean.leader.election.enable": ptr("false")}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		created, err := adm.CreateTopic(ctx, int32(*partitions), 3, configs, name)
		if err == nil {
			err = created.Err
		}
		if err == nil || strings.Contains(err.Error(), "TOPIC_ALREADY_EXISTS") {
			// Every partition led, with an ISR of 3.
			listed, lerr := adm.ListTopics(ctx, name)
			cancel()
			if lerr == nil && len(listed[name].Partitions) == *partitions && allInSync(listed[name]) {
				return
			}
			if lerr != nil {
				err = lerr
			} else {
				err = fmt.Errorf("partitions %+v (topic error %v)", listed[name].Partitions, listed[name].Err)
			}
		} else {
			cancel()
		}
		if time.Now().After(deadline) {
			fatal("topic %s not ready within 60 s (last: %v)", name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func allInSync(detail kadm.TopicDetail) bool {
	for _, p := range detail.Partitions {
		if p.Leader < 0 || len(p.ISR) != 3 {
			return false
		}
	}
	return true
}

func ptr(s string) *string { return &s }

func produce(h *History, base []kgo.Opt) {
	client, err := kgo.NewClient(append(base,
		kgo.RequiredAcks(kgo.AllISRAcks()), // idempotence is franz-go's default with acks=all
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RecordDeliveryTimeout(60*time.Second),
		kgo.ProducerLinger(5*time.Millisecond),
		kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }))...)
	if err != nil {
		fatal("producer: %v", err)
	}
	defer client.Close()
	tick := time.NewTicker(time.Second / time.Duration(*rate))
	defer tick.Stop()
	end := time.Now().Add(time.Duration(*seconds) * time.Second)
	for value := 0; time.Now().Before(end); value++ {
		<-tick.C
		if *stopFile != "" && value%50 == 0 {
			if _, err := os.Stat(*stopFile); err == nil {
				break
			}
		}
		partition := int32(value % *partitions)
		h.log(map[string]any{"process": "p0", "type": "invoke", "f": "send", "value": value, "partition": partition})
		record := &kgo.Record{Topic: *topic, Partition: partition, Value: []byte(strconv.Itoa(value))}
		client.Produce(context.Background(), record, func(r *kgo.Record, err error) {
			op := map[string]any{"process": "p0", "f": "send", "value": value, "partition": r.Partition}
			if err != nil {
				// Not known to have failed: an idempotent send that timed out may still be in the log.
				op["type"], op["error"] = "info", err.Error()
			} else {
				op["type"], op["offset"] = "ok", r.Offset
			}
			h.log(op)
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*drain)*time.Second)
	defer cancel()
	if err := client.Flush(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "workload: flush: %v\n", err)
	}
}

func consume(h *History, process, group string, base, opts []kgo.Opt, stop *atomic.Bool) {
	logPartitions := func(f string) func(context.Context, *kgo.Client, map[string][]int32) {
		return func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			h.log(map[string]any{"process": process, "type": "ok", "f": f, "partitions": m[*topic]})
		}
	}
	all := append(append(base,
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(*topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(),
		kgo.HeartbeatInterval(500*time.Millisecond), kgo.SessionTimeout(10*time.Second),
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.OnPartitionsAssigned(logPartitions("assign")),
		kgo.OnPartitionsRevoked(logPartitions("revoke")),
		kgo.OnPartitionsLost(logPartitions("lost"))), opts...)
	client, err := kgo.NewClient(all...)
	if err != nil {
		fatal("consumer %s: %v", process, err)
	}
	defer client.Close()
	for !stop.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fetches := client.PollFetches(ctx)
		cancel()
		fetches.EachError(func(t string, p int32, err error) {
			if err != context.DeadlineExceeded {
				h.log(map[string]any{"process": process, "type": "fail", "f": "poll", "partition": p, "error": err.Error()})
			}
		})
		var polled []*kgo.Record
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			if len(p.Records) == 0 {
				return
			}
			records := make([][2]int64, 0, len(p.Records))
			for _, r := range p.Records {
				value, _ := strconv.ParseInt(string(r.Value), 10, 64)
				records = append(records, [2]int64{r.Offset, value})
			}
			h.log(map[string]any{"process": process, "type": "ok", "f": "poll", "partition": p.Partition, "records": records})
			polled = append(polled, p.Records...)
		})
		if len(polled) > 0 {
			commitCtx, cancelCommit := context.WithTimeout(context.Background(), 10*time.Second)
			offsets := map[int32]int64{}
			for _, r := range polled {
				offsets[r.Partition] = max(offsets[r.Partition], r.Offset+1)
			}
			op := map[string]any{"process": process, "type": "ok", "f": "commit", "offsets": offsets}
			if err := client.CommitRecords(commitCtx, polled...); err != nil {
				op["type"], op["error"] = "fail", err.Error()
			}
			h.log(op)
			cancelCommit()
		}
		client.AllowRebalance()
	}
}

// finalRead reads every partition from the start to its end offset (taken once the producer is
// done) as process "final".
func finalRead(h *History, base []kgo.Opt) error {
	admClient, err := kgo.NewClient(base...)
	if err != nil {
		return err
	}
	defer admClient.Close()
	deadline := time.Now().Add(time.Duration(*drain) * time.Second)
	var ends kadm.ListedOffsets
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ends, err = kadm.NewClient(admClient).ListEndOffsets(ctx, *topic)
		cancel()
		if err == nil {
			err = ends.Error()
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("end offsets: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	want := map[int32]int64{}
	start := map[string]map[int32]kgo.Offset{*topic: {}}
	ends.Each(func(o kadm.ListedOffset) {
		want[o.Partition] = o.Offset
		start[*topic][o.Partition] = kgo.NewOffset().AtStart()
	})
	h.log(map[string]any{"process": "final", "type": "ok", "f": "end-offsets", "offsets": want})
	client, err := kgo.NewClient(append(base, kgo.ConsumePartitions(start), kgo.FetchMaxWait(200*time.Millisecond))...)
	if err != nil {
		return err
	}
	defer client.Close()
	reached := func() bool {
		for _, end := range want {
			if end > 0 {
				return false
			}
		}
		return true
	}
	for !reached() {
		if time.Now().After(deadline) {
			return fmt.Errorf("did not reach the end offsets %v in time", want)
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
				if r.Offset+1 >= want[p.Partition] {
					want[p.Partition] = 0
				}
			}
			h.log(map[string]any{"process": "final", "type": "ok", "f": "poll", "partition": p.Partition, "records": records})
		})
	}
	return nil
}
