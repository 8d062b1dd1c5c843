package compat

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// waitFor bounds every wait for something the broker should do at once.
const waitFor = 15 * time.Second

// topicName is a topic name no other test uses.
func topicName(prefix string) string {
	var raw [4]byte
	_, _ = rand.Read(raw[:])
	return prefix + "-" + hex.EncodeToString(raw[:])
}

// seedsConfig is the producer configuration the seeds use, unchanged.
func seedsConfig() *sarama.Config {
	config := sarama.NewConfig()
	config.Producer.RequiredAcks = sarama.WaitForAll
	config.Producer.Partitioner = sarama.NewRandomPartitioner
	config.Producer.Return.Successes = true
	return config
}

type sent struct {
	partition int32
	offset    int64
	value     string
}

// produceAsSeedsDo sends count messages with a SyncProducer and returns where each landed; per
// partition the offsets must be consecutive from 0 in send order.
func produceAsSeedsDo(t *testing.T, topic string, count int) map[int32][]sent {
	t.Helper()
	producer, err := sarama.NewSyncProducer([]string{suiteBroker.Bootstrap()}, seedsConfig())
	if err != nil {
		t.Fatalf("NewSyncProducer: %v", err)
	}
	defer producer.Close()
	byPartition := map[int32][]sent{}
	for i := 0; i < count; i++ {
		value := fmt.Sprintf("seed message %d", i)
		partition, offset, err := producer.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(value)})
		if err != nil {
			t.Fatalf("SendMessage %d: %v", i, err)
		}
		if want := int64(len(byPartition[partition])); offset != want {
			t.Fatalf("message %d: partition %d offset %d, want %d", i, partition, offset, want)
		}
		byPartition[partition] = append(byPartition[partition], sent{partition, offset, value})
	}
	return byPartition
}

// consumeAsSeedsDo reads each partition from the oldest offset with a partition consumer and
// checks it holds exactly what was produced.
func consumeAsSeedsDo(t *testing.T, topic string, partitions int32, want map[int32][]sent) {
	t.Helper()
	consumer, err := sarama.NewConsumer([]string{suiteBroker.Bootstrap()}, seedsConfig())
	if err != nil {
		t.Fatalf("NewConsumer: %v", err)
	}
	defer consumer.Close()
	ids, err := consumer.Partitions(topic)
	if err != nil {
		t.Fatalf("Partitions: %v", err)
	}
	if int32(len(ids)) != partitions {
		t.Fatalf("topic %s has partitions %v, want %d", topic, ids, partitions)
	}
	for _, partition := range ids {
		pc, err := consumer.ConsumePartition(topic, partition, sarama.OffsetOldest)
		if err != nil {
			t.Fatalf("ConsumePartition %d: %v", partition, err)
		}
		for i, expected := range want[partition] {
			select {
			case msg := <-pc.Messages():
				if msg.Offset != expected.offset || string(msg.Value) != expected.value {
					t.Fatalf("partition %d message %d: offset %d value %q, want offset %d value %q",
						partition, i, msg.Offset, msg.Value, expected.offset, expected.value)
				}
			case err := <-pc.Errors():
				t.Fatalf("partition %d: %v", partition, err)
			case <-time.After(waitFor):
				t.Fatalf("partition %d: only %d of %d messages after %s", partition, i, len(want[partition]), waitFor)
			}
		}
		if hwm := pc.HighWaterMarkOffset(); hwm != int64(len(want[partition])) {
			t.Errorf("partition %d: high watermark %d, want %d", partition, hwm, len(want[partition]))
		}
		if err := pc.Close(); err != nil {
			t.Fatalf("closing partition consumer %d: %v", partition, err)
		}
	}
}

// TestSaramaSeedsFlow produces with the seeds' SyncProducer (WaitForAll, random partitioner,
// Return.Successes) to a three-partition topic and reads every partition back from the oldest offset.
func TestSaramaSeedsFlow(t *testing.T) {
	topic := topicName("sarama")
	admin, err := sarama.NewClusterAdmin([]string{suiteBroker.Bootstrap()}, sarama.NewConfig())
	if err != nil {
		t.Fatalf("NewClusterAdmin: %v", err)
	}
	defer admin.Close()
	if err := admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1}, false); err != nil {
		t.Fatalf("CreateTopic: %v", err)
	}
	want := produceAsSeedsDo(t, topic, 30)
	consumeAsSeedsDo(t, topic, 3, want)
}

// TestSaramaSeedsFlowOnAutoCreatedTopic does the same on a topic nobody created: the producer's
// Metadata request creates it with the broker's num.partitions (1).
func TestSaramaSeedsFlowOnAutoCreatedTopic(t *testing.T) {
	topic := topicName("sarama-auto")
	want := produceAsSeedsDo(t, topic, 5)
	if len(want[0]) != 5 {
		t.Fatalf("an auto-created topic has one partition; got %v", want)
	}
	consumeAsSeedsDo(t, topic, 1, want)
}
