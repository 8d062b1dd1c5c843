package compat

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"strand.dev/compat/go/internal/broker"
)

const (
	clusterNodes      = 3
	clusterPartitions = 3
	// clusterRecords are sent about one a millisecond, record i to partition i % 3.
	clusterRecords = 6000
	// clusterDeadline bounds what the cluster must do: a failover, the producer's flush, reading back.
	clusterDeadline = 30 * time.Second
)

// TestClusterIdempotentProducerSurvivesLeaderKill is issue 6's kill test with franz-go, on a
// three-node cluster of its own (internal/broker's Cluster: each node broker and controller, brokers
// fenced after 2 s without a heartbeat; Strand, or Kafka with STRAND_COMPAT_BROKER=kafka), not the
// suite's shared broker.
//
// A topic of 3 partitions, replication factor 3 and min.insync.replicas=2 gets clusterRecords
// records from a franz-go producer with acks=all and idempotent writes (its default, checked: it
// has a producer id), paced at about one a millisecond, record i to partition i % 3 (manual
// partitioner). Once a third are acknowledged, the leader of partition 0 is killed with SIGKILL and
// the producer keeps producing; every record must then be acknowledged (franz-go retries through
// the failover itself). A group-less franz-go consumer then reads every partition from the start
// to its end offset while the killed node is still down (every read served by the new leaders):
// each acknowledged record must be read exactly once, at the partition and offset it was
// acknowledged with, each partition's offsets 0 to the end in order and its records in send order.
// The figures (acknowledged, read, duplicates, lost, the failover time) are logged.
func TestClusterIdempotentProducerSurvivesLeaderKill(t *testing.T) {
	started := time.Now()
	cluster, err := broker.StartCluster(clusterNodes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	t.Logf("cluster: %d %s nodes serving after %d ms", clusterNodes, cluster.Kind, time.Since(started).Milliseconds())

	adm := kadm.NewClient(clusterClient(t, cluster))
	topic := topicName("cluster")
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	minISR := "2"
	created, err := adm.CreateTopic(ctx, clusterPartitions, clusterNodes, map[string]*string{"min.insync.replicas": &minISR}, topic)
	if err == nil {
		err = created.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	detail := awaitPartitions(t, cluster, adm, topic, "every partition with a leader and an ISR of 3", func(p kadm.PartitionDetail) bool {
		return p.Leader >= 0 && len(p.ISR) == clusterNodes && len(p.Replicas) == clusterNodes
	})
	if value := topicConfig(t, adm, topic, "min.insync.replicas"); value != "2" {
		t.Fatalf("the topic's min.insync.replicas is %q, want 2", value)
	}
	victim := int(detail.Partitions[0].Leader)

	// --- produce, killing partition 0's leader a third of the way -----------------------------------
	producer := clusterClient(t, cluster,
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RecordDeliveryTimeout(clusterDeadline),
		kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }),
		kgo.MetadataMinAge(100*time.Millisecond))
	if id, epoch, err := producer.ProducerID(ctx); err != nil || id < 0 {
		t.Fatalf("the producer has no producer id (id %d, epoch %d, %v): it is not idempotent", id, epoch, err)
	}
	type ack struct {
		partition int32
		offset    int64
		at        time.Time
		err       error
	}
	acks := make([]ack, clusterRecords)
	var acked atomic.Int64
	var pending sync.WaitGroup
	var killedAt time.Time
	ackedBeforeKill := int64(-1)
	produceStarted := time.Now()
	for i := 0; i < clusterRecords; i++ {
		record := &kgo.Record{Topic: topic, Partition: int32(i % clusterPartitions),
			Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(strconv.Itoa(i))}
		pending.Add(1)
		producer.Produce(context.Background(), record, func(r *kgo.Record, err error) {
			acks[i] = ack{partition: r.Partition, offset: r.Offset, at: time.Now(), err: err}
			if err == nil {
				acked.Add(1)
			}
			pending.Done()
		})
		if ackedBeforeKill < 0 && acked.Load() >= clusterRecords/3 {
			ackedBeforeKill = acked.Load()
			if killedAt, err = cluster.Kill(victim); err != nil {
				t.Fatal(err)
			}
		}
		if i%10 == 9 {
			time.Sleep(10 * time.Millisecond) // pacing: about a record a millisecond
		}
	}
	if ackedBeforeKill < 0 {
		t.Fatalf("only %d of %d records acknowledged while producing them all: the leader was never killed",
			acked.Load(), clusterRecords)
	}
	flushCtx, flushCancel := context.WithTimeout(context.Background(), clusterDeadline)
	defer flushCancel()
	if err := producer.Flush(flushCtx); err != nil {
		t.Fatalf("Flush: %v (%d of %d acknowledged)\n%s", err, acked.Load(), clusterRecords, cluster.Tails())
	}
	pending.Wait()
	var failures []string
	for i, a := range acks {
		if a.err != nil {
			failures = append(failures, fmt.Sprintf("record %d: %v", i, a.err))
		}
	}
	t.Logf("cluster: %d records sent, %d acknowledged, %d failed in %d ms; node %d (leader of partition 0) killed after %d acknowledgements",
		clusterRecords, acked.Load(), len(failures), time.Since(produceStarted).Milliseconds(), victim, ackedBeforeKill)
	if len(failures) > 0 {
		t.Fatalf("%d sends failed (an idempotent producer retries through a failover), first: %v\n%s",
			len(failures), failures[:min(len(failures), 20)], cluster.Tails())
	}
	// Each position acknowledged once.
	ackedAt := map[[2]int64]int{}
	for i, a := range acks {
		position := [2]int64{int64(a.partition), a.offset}
		if other, ok := ackedAt[position]; ok {
			t.Fatalf("records %d and %d both acknowledged at %d@%d", other, i, a.partition, a.offset)
		}
		ackedAt[position] = i
	}
	var firstAfterKill time.Time
	for _, a := range acks {
		if a.partition == 0 && a.at.After(killedAt) && (firstAfterKill.IsZero() || a.at.Before(firstAfterKill)) {
			firstAfterKill = a.at
		}
	}
	if firstAfterKill.IsZero() {
		t.Fatalf("no record acknowledged on partition 0 after its leader was killed")
	}
	t.Logf("cluster: first acknowledgement on partition 0 %d ms after its leader was killed (broker.session.timeout.ms %d)",
		firstAfterKill.Sub(killedAt).Milliseconds(), broker.SessionTimeoutMs)
	awaitPartitions(t, cluster, adm, topic, fmt.Sprintf("node %d out of every ISR and leading nothing", victim),
		func(p kadm.PartitionDetail) bool {
			return p.Leader >= 0 && int(p.Leader) != victim && !contains(p.ISR, int32(victim))
		})

	// --- read everything back, the killed node still down ------------------------------------------
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		t.Fatalf("ListEndOffsets: %v", err)
	}
	end := map[int32]int64{}
	starts := map[int32]kgo.Offset{}
	for p := int32(0); p < clusterPartitions; p++ {
		offset, ok := ends.Lookup(topic, p)
		if !ok {
			t.Fatalf("ListEndOffsets: no partition %d: %v", p, ends)
		}
		end[p] = offset.Offset
		starts[p] = kgo.NewOffset().AtStart()
	}
	consumer := clusterClient(t, cluster, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: starts}),
		kgo.FetchMaxWait(200*time.Millisecond))
	readCtx, readCancel := context.WithTimeout(context.Background(), clusterDeadline)
	defer readCancel()
	offsets := map[int32][]int64{}
	values := map[int32][]int{}
	readAt := map[int][][2]int64{}
	var unparsable []string
	readStarted := time.Now()
	reachedEnd := func() bool {
		for p, e := range end {
			if n := len(offsets[p]); e > 0 && (n == 0 || offsets[p][n-1] < e-1) {
				return false
			}
		}
		return true
	}
	for !reachedEnd() {
		fetches := consumer.PollFetches(readCtx)
		if readCtx.Err() != nil {
			t.Fatalf("could not read to the end offsets %v within %s; read up to %v\n%s", end, clusterDeadline, lastOffsets(offsets), cluster.Tails())
		}
		if errs := fetches.Errors(); len(errs) > 0 {
			t.Fatalf("fetch errors: %v", errs)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			i, err := strconv.Atoi(string(r.Value))
			if err != nil {
				unparsable = append(unparsable, fmt.Sprintf("%d@%d %q", r.Partition, r.Offset, r.Value))
				return
			}
			offsets[r.Partition] = append(offsets[r.Partition], r.Offset)
			values[r.Partition] = append(values[r.Partition], i)
			readAt[i] = append(readAt[i], [2]int64{int64(r.Partition), r.Offset})
		})
	}

	// --- what was read against what was acknowledged ----------------------------------------------
	var duplicates, lost, misplaced []string
	for i, a := range acks {
		switch at := readAt[i]; {
		case len(at) == 0:
			lost = append(lost, fmt.Sprintf("%d (acknowledged at %d@%d)", i, a.partition, a.offset))
		case len(at) > 1:
			duplicates = append(duplicates, fmt.Sprintf("%d read at %v", i, at))
		case at[0] != [2]int64{int64(a.partition), a.offset}:
			misplaced = append(misplaced, fmt.Sprintf("%d: acknowledged at %d@%d, read at %d@%d", i, a.partition, a.offset, at[0][0], at[0][1]))
		}
	}
	read := 0
	for _, o := range offsets {
		read += len(o)
	}
	t.Logf("cluster: read %d records in %d ms (end offsets %v): acked %d, consumed %d, duplicates %d, lost %d, at another offset %d, unparsable %d",
		read, time.Since(readStarted).Milliseconds(), end, acked.Load(), read, len(duplicates), len(lost), len(misplaced), len(unparsable))
	for what, list := range map[string][]string{"acknowledged records lost": lost, "records read more than once": duplicates,
		"acknowledged records read at another position": misplaced, "records whose value is not a record number": unparsable} {
		if len(list) > 0 {
			sort.Strings(list)
			t.Errorf("%s (%d): %v", what, len(list), list[:min(len(list), 20)])
		}
	}
	for p := int32(0); p < clusterPartitions; p++ {
		for i, o := range offsets[p] {
			if o != int64(i) {
				t.Fatalf("partition %d: offsets read are not 0..%d in order: the %dth is %d (around it: %v)",
					p, end[p], i, o, offsets[p][max(0, i-3):min(len(offsets[p]), i+4)])
			}
		}
		if int64(len(offsets[p])) != end[p] {
			t.Fatalf("partition %d: read %d records, its end offset is %d", p, len(offsets[p]), end[p])
		}
		for i := 1; i < len(values[p]); i++ {
			if values[p][i-1] >= values[p][i] {
				t.Fatalf("partition %d: record %d at offset %d before record %d at %d, out of send order",
					p, values[p][i-1], i-1, values[p][i], i)
			}
		}
	}
}

// clusterClient is a franz-go client seeded with every node of the cluster, closed when the test
// ends, its retry backoff lowered for a loopback cluster.
func clusterClient(t *testing.T, cluster *broker.Cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	base := []kgo.Opt{kgo.SeedBrokers(cluster.Bootstrap()...), kgo.RequestTimeoutOverhead(5 * time.Second),
		kgo.RetryTimeout(clusterDeadline), kgo.DialTimeout(2 * time.Second)}
	client, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(client.Close)
	return client
}

// awaitPartitions polls the topic's metadata until every partition satisfies done.
func awaitPartitions(t *testing.T, cluster *broker.Cluster, adm *kadm.Client, topic, what string,
	done func(kadm.PartitionDetail) bool) kadm.TopicDetail {
	t.Helper()
	deadline := time.Now().Add(clusterDeadline)
	last := ""
	for {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		listed, err := adm.ListTopics(ctx, topic)
		cancel()
		if err == nil {
			detail := listed[topic]
			if detail.Err == nil && len(detail.Partitions) == clusterPartitions {
				var pending []string
				for _, p := range detail.Partitions.Sorted() {
					if !done(p) {
						pending = append(pending, fmt.Sprintf("%d: leader %d replicas %v isr %v", p.Partition, p.Leader, p.Replicas, p.ISR))
					}
				}
				if len(pending) == 0 {
					return detail
				}
				last = fmt.Sprintf("partitions not yet: %v", pending)
			} else {
				last = fmt.Sprintf("%d partitions, error %v", len(detail.Partitions), detail.Err)
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s: not within %s: %s\n%s", topic, what, clusterDeadline, last, cluster.Tails())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// topicConfig is a topic config's value, from DescribeConfigs; retried while the broker asked does
// not know the topic yet (a created topic reaches each broker's metadata a moment after the
// controller commits it).
func topicConfig(t *testing.T, adm *kadm.Client, topic, name string) string {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		configs, err := adm.DescribeTopicConfigs(ctx, topic)
		cancel()
		var config kadm.ResourceConfig
		if err == nil {
			config, err = configs.On(topic, nil)
		}
		if err == nil {
			err = config.Err
		}
		if err == nil {
			for _, c := range config.Configs {
				if c.Key == name {
					return c.MaybeValue()
				}
			}
			return ""
		}
		if !errors.Is(err, kerr.UnknownTopicOrPartition) || time.Now().After(deadline) {
			t.Fatalf("DescribeTopicConfigs %s: %v", topic, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func contains(ids []int32, id int32) bool {
	for _, i := range ids {
		if i == id {
			return true
		}
	}
	return false
}

func lastOffsets(offsets map[int32][]int64) map[int32]int64 {
	last := map[int32]int64{}
	for p, o := range offsets {
		if len(o) > 0 {
			last[p] = o[len(o)-1]
		}
	}
	return last
}
