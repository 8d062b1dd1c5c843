package compat

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// batchCodecs records the codec of every batch a franz-go consumer reads (its FetchBatchRead hook).
type batchCodecs struct {
	mu     sync.Mutex
	codecs map[uint8]int
}

func (h *batchCodecs) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.FetchBatchMetrics) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.codecs[m.CompressionType]++
}

// TestBrokerRecompression: a topic whose compression.type differs from the producer's codec
// stores the batches in the topic's codec (issue 19), which franz-go reads (the batches' codec
// seen by its fetch hook) and sarama reads, record for record.
func TestBrokerRecompression(t *testing.T) {
	ids := map[string]uint8{"uncompressed": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
	for _, target := range []string{"uncompressed", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(target, func(t *testing.T) {
			topic := topicName("recompress-" + target)
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			adm := kadm.NewClient(newClient(t))
			resp, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"compression.type": kadm.StringPtr(target)}, topic)
			if err == nil {
				err = resp.Err
			}
			if err != nil {
				t.Fatalf("create topic %s: %v", topic, err)
			}
			awaitTopic(t, adm, topic, 1)
			sentCodec := kgo.NoCompression()
			if target == "uncompressed" {
				sentCodec = kgo.GzipCompression()
			}
			producer := newClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(sentCodec))
			sent := produceSync(t, producer, topic, 1, 20)

			hook := &batchCodecs{codecs: map[uint8]int{}}
			consumer := newClient(t, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
				kgo.WithHooks(hook))
			var got []*kgo.Record
			for len(got) < len(sent) {
				fetches := consumer.PollFetches(ctx)
				if ctx.Err() != nil {
					t.Fatalf("only %d of %d records", len(got), len(sent))
				}
				if errs := fetches.Errors(); len(errs) > 0 {
					t.Fatalf("fetch errors: %v", errs)
				}
				got = append(got, fetches.Records()...)
			}
			for i := range sent {
				sameRecord(t, got[i], sent[i])
			}
			hook.mu.Lock()
			seen := fmt.Sprint(hook.codecs)
			only := len(hook.codecs) == 1 && hook.codecs[ids[target]] > 0
			hook.mu.Unlock()
			if !only {
				t.Fatalf("batch codecs read (id: batches) %s, want only %d (%s)", seen, ids[target], target)
			}
			saramaReadsBack(t, topic, sent)
		})
	}
}

// saramaReadsBack reads partition 0 from the oldest offset with sarama and compares values.
func saramaReadsBack(t *testing.T, topic string, sent []*kgo.Record) {
	t.Helper()
	config := sarama.NewConfig()
	config.Version = sarama.V2_1_0_0 // zstd needs Fetch v10+
	consumer, err := sarama.NewConsumer([]string{suiteBroker.Bootstrap()}, config)
	if err != nil {
		t.Fatalf("NewConsumer: %v", err)
	}
	defer consumer.Close()
	pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatalf("ConsumePartition: %v", err)
	}
	defer pc.Close()
	deadline := time.After(waitFor)
	for i, want := range sent {
		select {
		case msg := <-pc.Messages():
			if msg.Offset != int64(i) || string(msg.Value) != string(want.Value) || string(msg.Key) != string(want.Key) {
				t.Fatalf("sarama read @%d %q=%q, want @%d %q=%q", msg.Offset, msg.Key, msg.Value, i, want.Key, want.Value)
			}
		case err := <-pc.Errors():
			t.Fatalf("sarama consumer: %v", err)
		case <-deadline:
			t.Fatalf("sarama read only %d of %d records (%s)", i, len(sent), strings.TrimSpace(topic))
		}
	}
}
