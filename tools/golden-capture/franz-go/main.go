// Command franz-go-client drives the twmb/franz-go Kafka client (kgo + kadm)
// against a broker so that the golden-capture recording proxy in front of it
// sees franz-go's frames.
//
// Usage: franz-go-client <bootstrap>
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	topic        = "golden-franz-go"
	classicGroup = "golden-franz-go-classic"
	nextGenGroup = "golden-franz-go-kip848"
	nRecords     = 20
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: franz-go-client <bootstrap>")
		os.Exit(2)
	}
	log.SetPrefix("[franz-go] ")
	log.SetFlags(0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Args[1]); err != nil {
		log.Fatalf("failed: %v", err)
	}
	log.Print("done")
}

func common(bootstrap, clientID string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID(clientID),
		kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }),
		kgo.RequestTimeoutOverhead(5 * time.Second),
		kgo.MetadataMinAge(100 * time.Millisecond),
	}
}

func run(ctx context.Context, bootstrap string) error {
	acl, err := kgo.NewClient(common(bootstrap, "golden-franz-go-admin")...)
	if err != nil {
		return err
	}
	defer acl.Close()
	adm := kadm.NewClient(acl)

	if _, err := adm.CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		return fmt.Errorf("create topic: %w", err)
	}
	log.Printf("created topic %s", topic)
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		return fmt.Errorf("list topics: %w", err)
	}
	log.Printf("%d topics", len(topics))
	if md, err := adm.BrokerMetadata(ctx); err == nil {
		log.Printf("cluster %s, %d brokers", md.Cluster, len(md.Brokers))
	}
	if rc, err := adm.DescribeTopicConfigs(ctx, topic); err == nil {
		log.Printf("topic configs: %d resources", len(rc))
	} else {
		log.Printf("describe configs failed: %v", err)
	}

	if err := produce(ctx, bootstrap); err != nil {
		return err
	}
	if err := consume(ctx, bootstrap, classicGroup, false); err != nil {
		return err
	}
	if err := consume(ctx, bootstrap, nextGenGroup, true); err != nil {
		return err
	}

	end, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return fmt.Errorf("list end offsets: %w", err)
	}
	start, err := adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return fmt.Errorf("list start offsets: %w", err)
	}
	end.Each(func(o kadm.ListedOffset) {
		s, _ := start.Lookup(o.Topic, o.Partition)
		log.Printf("partition %d: offsets [%d, %d)", o.Partition, s.Offset, o.Offset)
	})
	if _, err := adm.ListOffsetsAfterMilli(ctx, 0, topic); err != nil {
		log.Printf("list offsets by time failed: %v", err)
	}

	groups, err := adm.ListGroups(ctx)
	if err != nil {
		return fmt.Errorf("list groups: %w", err)
	}
	log.Printf("groups: %v", groups.Groups())
	described, err := adm.DescribeGroups(ctx, classicGroup)
	if err != nil {
		return fmt.Errorf("describe groups: %w", err)
	}
	for _, g := range described {
		log.Printf("group %s state=%s protocol=%s", g.Group, g.State, g.Protocol)
	}
	if cgs, err := adm.DescribeConsumerGroups(ctx, nextGenGroup); err == nil {
		for _, g := range cgs {
			log.Printf("consumer group %s state=%s", g.Group, g.State)
		}
	} else {
		log.Printf("describe consumer groups failed: %v", err)
	}
	for _, g := range []string{classicGroup, nextGenGroup} {
		offsets, err := adm.FetchOffsets(ctx, g)
		if err != nil {
			return fmt.Errorf("fetch offsets %s: %w", g, err)
		}
		offsets.Each(func(o kadm.OffsetResponse) {
			log.Printf("%s committed %s/%d = %d", g, o.Topic, o.Partition, o.At)
		})
	}
	return nil
}

func produce(ctx context.Context, bootstrap string) error {
	opts := append(common(bootstrap, "golden-franz-go-producer"),
		kgo.ProducerBatchCompression(kgo.ZstdCompression()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(20*time.Millisecond),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	recs := make([]*kgo.Record, 0, nRecords)
	for i := 0; i < nRecords; i++ {
		r := &kgo.Record{
			Topic:     topic,
			Partition: int32(i % 3),
			Key:       []byte(fmt.Sprintf("franz-go-key-%d", i)),
			Value:     []byte(fmt.Sprintf("franz-go value %d, zstd compressed", i)),
			Headers: []kgo.RecordHeader{
				{Key: "client", Value: []byte("franz-go")},
				{Key: "seq", Value: []byte(fmt.Sprint(i))},
			},
		}
		if i%6 == 5 {
			r.Value = nil // tombstone
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("produce: %w", err)
	}
	log.Printf("produced %d records (zstd)", nRecords)
	return nil
}

func consume(ctx context.Context, bootstrap, group string, nextGen bool) error {
	opts := append(common(bootstrap, "golden-franz-go-consumer"),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.Balancers(kgo.RangeBalancer()),
	)
	if nextGen {
		opts = append(opts, kgo.ServerSideBalancer())
	} else {
		opts = append(opts, kgo.SessionTimeout(6*time.Second), kgo.HeartbeatInterval(500*time.Millisecond))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	pollCtx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()
	seen := 0
	for seen < nRecords {
		fetches := cl.PollFetches(pollCtx)
		if pollCtx.Err() != nil {
			return fmt.Errorf("%s: consumed %d of %d records", group, seen, nRecords)
		}
		fetches.EachError(func(t string, p int32, err error) {
			log.Printf("fetch error %s/%d: %v", t, p, err)
		})
		seen += fetches.NumRecords()
	}
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		return fmt.Errorf("%s: commit: %w", group, err)
	}
	log.Printf("%s: consumed %d records, committed", group, seen)
	cl.LeaveGroup()
	return nil
}
