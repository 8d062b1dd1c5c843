package compat

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func newClient(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	base := []kgo.Opt{kgo.SeedBrokers(suiteBroker.Bootstrap()), kgo.RequestTimeoutOverhead(5 * time.Second),
		kgo.RetryTimeout(waitFor), kgo.FetchMaxWait(200 * time.Millisecond)}
	client, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(client.Close)
	return client
}

func createTopic(t *testing.T, topic string, partitions int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	adm := kadm.NewClient(newClient(t))
	resp, err := adm.CreateTopic(ctx, partitions, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	awaitTopic(t, adm, topic, int(partitions))
}

// produceSync sends count records to topic, record i to partition i % partitions (manual
// partitioner), and checks each partition's offsets are consecutive from 0.
func produceSync(t *testing.T, client *kgo.Client, topic string, partitions, count int) []*kgo.Record {
	t.Helper()
	records := make([]*kgo.Record, count)
	for i := range records {
		records[i] = &kgo.Record{
			Topic:     topic,
			Partition: int32(i % partitions),
			Key:       []byte(fmt.Sprintf("k%d", i)),
			Value:     []byte(fmt.Sprintf("franz record %d %s", i, "payload payload payload payload")),
			Headers:   []kgo.RecordHeader{{Key: "i", Value: []byte(fmt.Sprint(i))}},
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := client.ProduceSync(ctx, records...).FirstErr(); err != nil {
		t.Fatalf("ProduceSync: %v", err)
	}
	for i, r := range records {
		if want := int64(i / partitions); r.Offset != want {
			t.Fatalf("record %d: partition %d offset %d, want %d", i, r.Partition, r.Offset, want)
		}
	}
	return records
}

// consumePartitions reads count records with a direct (group-less) partition consumer.
func consumePartitions(t *testing.T, offsets map[string]map[int32]kgo.Offset, count int) []*kgo.Record {
	t.Helper()
	client := newClient(t, kgo.ConsumePartitions(offsets))
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var got []*kgo.Record
	for len(got) < count {
		fetches := client.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("only %d of %d records after %s", len(got), count, waitFor)
		}
		if errs := fetches.Errors(); len(errs) > 0 {
			t.Fatalf("fetch errors: %v", errs)
		}
		got = append(got, fetches.Records()...)
	}
	if len(got) != count {
		t.Fatalf("consumed %d records, want %d", len(got), count)
	}
	return got
}

func sameRecord(t *testing.T, got, want *kgo.Record) {
	t.Helper()
	if got.Partition != want.Partition || got.Offset != want.Offset || string(got.Key) != string(want.Key) ||
		string(got.Value) != string(want.Value) || len(got.Headers) != 1 ||
		string(got.Headers[0].Value) != string(want.Headers[0].Value) {
		t.Fatalf("consumed p%d@%d %q=%q %v, want p%d@%d %q=%q %v", got.Partition, got.Offset, got.Key, got.Value,
			got.Headers, want.Partition, want.Offset, want.Key, want.Value, want.Headers)
	}
}

// TestFranzProduceSyncConsumeByPartition produces synchronously to two partitions and reads both
// back from the start with ConsumePartitions (no group).
func TestFranzProduceSyncConsumeByPartition(t *testing.T) {
	topic := topicName("franz")
	createTopic(t, topic, 2)
	producer := newClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	sent := produceSync(t, producer, topic, 2, 20)
	got := consumePartitions(t, map[string]map[int32]kgo.Offset{topic: {
		0: kgo.NewOffset().AtStart(), 1: kgo.NewOffset().AtStart()}}, 20)
	byPartition := map[int32][]*kgo.Record{}
	for _, r := range got {
		byPartition[r.Partition] = append(byPartition[r.Partition], r)
	}
	for i, want := range sent {
		sameRecord(t, byPartition[want.Partition][i/2], want)
	}
}

// TestFranzCodecs produces a batch in each codec and reads it back intact.
func TestFranzCodecs(t *testing.T) {
	codecs := map[string]kgo.CompressionCodec{
		"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
		"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
	}
	for _, name := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(name, func(t *testing.T) {
			topic := topicName("franz-" + name)
			createTopic(t, topic, 1)
			producer := newClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()),
				kgo.ProducerBatchCompression(codecs[name]))
			sent := produceSync(t, producer, topic, 1, 25)
			got := consumePartitions(t, map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}, 25)
			for i := range sent {
				sameRecord(t, got[i], sent[i])
			}
		})
	}
}

// TestFranzConsumeFromOffsetAndTime starts partition consumers at an exact offset and at a
// timestamp (ListOffsets by time: the first record stamped at or after it).
func TestFranzConsumeFromOffsetAndTime(t *testing.T) {
	topic := topicName("franz-from")
	createTopic(t, topic, 1)
	producer := newClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	hourAgo := time.Now().Add(-time.Hour)
	records := make([]*kgo.Record, 10)
	for i := range records {
		// Records 0-4 are two hours old, 5-9 half an hour old.
		age := 2 * time.Hour
		if i >= 5 {
			age = 30 * time.Minute
		}
		records[i] = &kgo.Record{Topic: topic, Value: []byte(fmt.Sprint(i)), Timestamp: time.Now().Add(-age)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := producer.ProduceSync(ctx, records...).FirstErr(); err != nil {
		t.Fatalf("ProduceSync: %v", err)
	}
	fromOffset := consumePartitions(t, map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(7)}}, 3)
	fromTime := consumePartitions(t, map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AfterMilli(hourAgo.UnixMilli())}}, 5)
	for i, r := range fromOffset {
		if r.Offset != int64(7+i) || string(r.Value) != fmt.Sprint(7+i) {
			t.Fatalf("from offset 7, record %d: offset %d value %q", i, r.Offset, r.Value)
		}
	}
	for i, r := range fromTime {
		if r.Offset != int64(5+i) || string(r.Value) != fmt.Sprint(5+i) {
			t.Fatalf("from an hour ago, record %d: offset %d value %q", i, r.Offset, r.Value)
		}
		if !r.Timestamp.Equal(records[5+i].Timestamp.Truncate(time.Millisecond)) {
			t.Fatalf("record %d timestamp %v, want %v", 5+i, r.Timestamp, records[5+i].Timestamp)
		}
	}
}
