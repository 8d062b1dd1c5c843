// Command sarama-client drives the IBM/sarama Kafka client against a broker so
// that the golden-capture recording proxy in front of it sees sarama's frames.
//
// Usage: sarama-client <bootstrap>
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

const (
	topic    = "golden-sarama"
	group    = "golden-sarama-group"
	nRecords = 20
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: sarama-client <bootstrap>")
		os.Exit(2)
	}
	log.SetPrefix("[sarama] ")
	log.SetFlags(0)
	if err := run([]string{os.Args[1]}); err != nil {
		log.Fatalf("failed: %v", err)
	}
	log.Print("done")
}

func baseConfig(clientID string) *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.ClientID = clientID
	cfg.Version = sarama.V4_3_1_0
	cfg.Net.DialTimeout = 5 * time.Second
	cfg.Net.ReadTimeout = 10 * time.Second
	cfg.Net.WriteTimeout = 5 * time.Second
	cfg.Metadata.Retry.Backoff = 100 * time.Millisecond
	cfg.Admin.Retry.Backoff = 100 * time.Millisecond
	cfg.Admin.Timeout = 10 * time.Second
	return cfg
}

func run(addrs []string) error {
	admin, err := sarama.NewClusterAdmin(addrs, baseConfig("golden-sarama-admin"))
	if err != nil {
		return fmt.Errorf("admin: %w", err)
	}
	defer admin.Close()

	if err := admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1}, false); err != nil {
		return fmt.Errorf("create topic: %w", err)
	}
	log.Printf("created topic %s", topic)
	if err := waitForLeaders(addrs); err != nil {
		return err
	}
	topics, err := admin.ListTopics()
	if err != nil {
		return fmt.Errorf("list topics: %w", err)
	}
	log.Printf("%d topics", len(topics))
	if md, err := admin.DescribeTopics([]string{topic}); err == nil {
		log.Printf("describe: %d partitions", len(md[0].Partitions))
	} else {
		log.Printf("describe topics failed: %v", err)
	}
	if brokers, controller, err := admin.DescribeCluster(); err == nil {
		log.Printf("cluster: %d brokers, controller %d", len(brokers), controller)
	} else {
		log.Printf("describe cluster failed: %v", err)
	}
	if entries, err := admin.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic}); err == nil {
		log.Printf("topic config: %d entries", len(entries))
	} else {
		log.Printf("describe config failed: %v", err)
	}

	if err := produce(addrs); err != nil {
		return err
	}
	if err := consume(addrs); err != nil {
		return err
	}
	if err := listOffsets(addrs); err != nil {
		return err
	}

	groups, err := admin.ListConsumerGroups()
	if err != nil {
		return fmt.Errorf("list groups: %w", err)
	}
	log.Printf("groups: %v", groups)
	descs, err := admin.DescribeConsumerGroups([]string{group})
	if err != nil {
		return fmt.Errorf("describe groups: %w", err)
	}
	for _, d := range descs {
		log.Printf("group %s state=%s protocol=%s members=%d", d.GroupId, d.State, d.Protocol, len(d.Members))
	}
	offsets, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0, 1, 2}})
	if err != nil {
		return fmt.Errorf("list group offsets: %w", err)
	}
	for p := int32(0); p < 3; p++ {
		if b := offsets.GetBlock(topic, p); b != nil {
			log.Printf("committed %s/%d = %d", topic, p, b.Offset)
		}
	}
	return nil
}

// waitForLeaders polls metadata until every partition of the topic has a leader.
func waitForLeaders(addrs []string) error {
	client, err := sarama.NewClient(addrs, baseConfig("golden-sarama-metadata"))
	if err != nil {
		return err
	}
	defer client.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := client.RefreshMetadata(topic); err == nil {
			ok := true
			for p := int32(0); p < 3; p++ {
				if _, err := client.Leader(topic, p); err != nil {
					ok = false
				}
			}
			if ok {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("topic partitions have no leader")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func produce(addrs []string) error {
	cfg := baseConfig("golden-sarama-producer")
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Compression = sarama.CompressionLZ4
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Idempotent = true
	cfg.Net.MaxOpenRequests = 1
	cfg.Producer.Retry.Backoff = 100 * time.Millisecond
	// Batch several records per partition so the lz4 batches hold more than one record.
	cfg.Producer.Flush.Frequency = 20 * time.Millisecond
	cfg.Producer.Flush.Messages = nRecords
	producer, err := sarama.NewSyncProducer(addrs, cfg)
	if err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	msgs := make([]*sarama.ProducerMessage, 0, nRecords)
	for i := 0; i < nRecords; i++ {
		m := &sarama.ProducerMessage{
			Topic:     topic,
			Partition: int32(i % 3),
			Key:       sarama.StringEncoder(fmt.Sprintf("sarama-key-%d", i)),
			Value:     sarama.StringEncoder(fmt.Sprintf("sarama value %d, lz4 compressed", i)),
			Headers: []sarama.RecordHeader{
				{Key: []byte("client"), Value: []byte("sarama")},
				{Key: []byte("seq"), Value: []byte(fmt.Sprint(i))},
			},
		}
		if i%5 == 4 {
			m.Key = nil // keyless record
		}
		msgs = append(msgs, m)
	}
	if err := producer.SendMessages(msgs); err != nil {
		producer.Close()
		return fmt.Errorf("produce: %w", err)
	}
	log.Printf("produced %d records (lz4, idempotent)", nRecords)
	return producer.Close()
}

type handler struct {
	mu     sync.Mutex
	seen   int
	cancel context.CancelFunc
}

func (h *handler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *handler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for {
		select {
		case msg, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			sess.MarkMessage(msg, "")
			h.mu.Lock()
			h.seen++
			done := h.seen >= nRecords
			h.mu.Unlock()
			if done {
				sess.Commit()
				h.cancel()
			}
		case <-sess.Context().Done():
			return nil
		}
	}
}

func consume(addrs []string) error {
	cfg := baseConfig("golden-sarama-consumer")
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Enable = false
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRange()}
	cfg.Consumer.Group.Session.Timeout = 6 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	cfg.Consumer.MaxWaitTime = 200 * time.Millisecond
	cg, err := sarama.NewConsumerGroup(addrs, group, cfg)
	if err != nil {
		return fmt.Errorf("consumer group: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	h := &handler{cancel: cancel}
	for ctx.Err() == nil {
		if err := cg.Consume(ctx, []string{topic}, h); err != nil && !errors.Is(err, sarama.ErrClosedConsumerGroup) {
			log.Printf("consume: %v", err)
		}
	}
	if err := cg.Close(); err != nil {
		return fmt.Errorf("close consumer group: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen < nRecords {
		return fmt.Errorf("consumed %d of %d records", h.seen, nRecords)
	}
	log.Printf("consumed %d records, committed", h.seen)
	return nil
}

func listOffsets(addrs []string) error {
	client, err := sarama.NewClient(addrs, baseConfig("golden-sarama-offsets"))
	if err != nil {
		return err
	}
	defer client.Close()
	for p := int32(0); p < 3; p++ {
		newest, err := client.GetOffset(topic, p, sarama.OffsetNewest)
		if err != nil {
			return fmt.Errorf("list offsets: %w", err)
		}
		oldest, err := client.GetOffset(topic, p, sarama.OffsetOldest)
		if err != nil {
			return fmt.Errorf("list offsets: %w", err)
		}
		log.Printf("partition %d: offsets [%d, %d)", p, oldest, newest)
	}
	return nil
}
