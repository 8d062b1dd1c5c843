package compat

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"strand.dev/compat/go/internal/broker"
)

const rackSelector = "org.apache.kafka.common.replica.RackAwareReplicaSelector"

// fetchBytes counts the bytes of Fetch responses franz-go reads, per broker (a kgo hook).
type fetchBytes struct {
	mu     sync.Mutex
	byNode map[int32]int
}

func (f *fetchBytes) OnBrokerRead(meta kgo.BrokerMetadata, key int16, bytesRead int, _, _ time.Duration, err error) {
	if key != 1 || err != nil { // 1: Fetch
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byNode[meta.NodeID] += bytesRead
}

func (f *fetchBytes) from(node int32) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byNode[node]
}

// TestFranzFetchFromFollowerInRack is KIP-392 with franz-go: on a three-node cluster of its own
// whose node n has broker.rack=rack-n and Kafka's RackAwareReplicaSelector, a topic of 3
// partitions replicated to every node (each node leads one) is read from the start by a group-less
// consumer with kgo.Rack("rack-<n>"). Every record arrives, and every Fetch byte comes from node n:
// it leads one partition and is the in-sync follower of the client's rack for the others. On Strand
// node n's log also names the consumer fetches it served as a follower.
func TestFranzFetchFromFollowerInRack(t *testing.T) {
	cluster, err := broker.StartClusterWith(clusterNodes, func(id int) map[string]string {
		return map[string]string{"broker.rack": fmt.Sprintf("rack-%d", id), "replica.selector.class": rackSelector}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)

	adm := kadm.NewClient(clusterClient(t, cluster))
	described, err := adm.ListBrokers(context.Background())
	if err != nil {
		t.Fatalf("ListBrokers: %v", err)
	}
	for _, b := range described {
		if b.Rack == nil || *b.Rack != fmt.Sprintf("rack-%d", b.NodeID) {
			t.Fatalf("broker %d rack %v, want rack-%d", b.NodeID, b.Rack, b.NodeID)
		}
	}
	topic := topicName("rack")
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, clusterPartitions, clusterNodes, nil, topic); err != nil {
		t.Fatalf("CreateTopic: %v", err)
	}
	awaitPartitions(t, cluster, adm, topic, "a leader and an ISR of 3", func(p kadm.PartitionDetail) bool {
		return p.Leader >= 0 && len(p.ISR) == clusterNodes
	})

	producer := clusterClient(t, cluster, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression())) // the byte counts below are the records' own
	value := strings.Repeat("v", 1000)
	const perPartition = 100
	var records []*kgo.Record
	for i := 0; i < clusterPartitions*perPartition; i++ {
		records = append(records, &kgo.Record{Topic: topic, Partition: int32(i % clusterPartitions), Value: []byte(fmt.Sprintf("%d:%s", i, value))})
	}
	if err := producer.ProduceSync(ctx, records...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}

	const rackNode = int32(2)
	counted := &fetchBytes{byNode: map[int32]int{}}
	consumer := clusterClient(t, cluster, kgo.Rack(fmt.Sprintf("rack-%d", rackNode)), kgo.WithHooks(counted),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {
			0: kgo.NewOffset().AtStart(), 1: kgo.NewOffset().AtStart(), 2: kgo.NewOffset().AtStart(),
		}}))
	got := 0
	for got < clusterPartitions*perPartition {
		fetches := consumer.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("only %d of %d records within %s\n%s", got, clusterPartitions*perPartition, waitFor, cluster.Tails())
		}
		if errs := fetches.Errors(); len(errs) > 0 {
			t.Fatalf("fetch errors: %v", errs)
		}
		got += len(fetches.Records())
	}
	total := clusterPartitions * perPartition * len(value)
	t.Logf("%s: fetch bytes by node: 1: %d, 2: %d, 3: %d", cluster.Kind, counted.from(1), counted.from(2), counted.from(3))
	if counted.from(rackNode) < total {
		t.Fatalf("node %d sent %d fetch bytes, want at least %d", rackNode, counted.from(rackNode), total)
	}
	for _, other := range []int32{1, 3} {
		if counted.from(other) >= total/clusterPartitions {
			t.Fatalf("node %d (not in the client's rack) sent %d fetch bytes", other, counted.from(other))
		}
	}
	if cluster.Kind == "strand" {
		log, err := cluster.Log(int(rackNode))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log, "serving consumer fetches of "+topic) {
			t.Fatalf("node %d's log names no consumer fetch it served as a follower\n%s", rackNode, cluster.Tails())
		}
	}
}
