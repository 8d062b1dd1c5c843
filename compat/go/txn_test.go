package compat

// Transactions: franz-go's transactional client (kgo.TransactionalID) committing and aborting, as
// read_committed and read_uncommitted consumers and ListOffsets see them, with kadm's
// DescribeTransactions, ListTransactions and DescribeProducers while a transaction is open;
// franz-go's GroupTransactSession doing consume-transform-produce (classic protocol and KIP-848),
// its first session killed midway and a second one resuming, and a static member's session
// aborting after its transaction timed out and a rebalance took a partition; sarama's
// transactional SyncProducer committing and aborting, read by a read_committed sarama consumer.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// txnWaitFor bounds a transactional client's first call, which may wait for the broker to create
// __transaction_state.
const txnWaitFor = 30 * time.Second

// endOffsets is ListOffsets(latest) per partition: read_committed (the last stable offset) or not.
func endOffsets(t *testing.T, adm *kadm.Client, topic string, committed bool) map[int32]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	list := adm.ListEndOffsets
	if committed {
		list = adm.ListCommittedOffsets
	}
	listed, err := list(ctx, topic)
	if err != nil {
		t.Fatalf("list offsets: %v", err)
	}
	if err := listed.Error(); err != nil {
		t.Fatalf("list offsets: %v", err)
	}
	out := map[int32]int64{}
	listed.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out
}

// awaitEndOffsets polls endOffsets until every one of the topic's partitions is at want (markers
// are written a moment after a transaction ends).
func awaitEndOffsets(t *testing.T, adm *kadm.Client, topic string, partitions int32, committed bool, want int64) {
	t.Helper()
	expected := map[int32]int64{}
	for p := int32(0); p < partitions; p++ {
		expected[p] = want
	}
	deadline := time.Now().Add(waitFor)
	for {
		got := endOffsets(t, adm, topic, committed)
		if reflect.DeepEqual(got, expected) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("end offsets (read_committed %v) of %s: %v, want %v", committed, topic, got, expected)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readFromStart reads count records of topic from offset 0 of each partition, read_committed or
// not, and checks nothing beyond them arrives; it returns "partition@offset value" sorted, or
// without the offsets ("partition value") unless withOffsets.
func readFromStart(t *testing.T, topic string, committed bool, count int, withOffsets bool) []string {
	t.Helper()
	opts := []kgo.Opt{kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	if committed {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	client := newClient(t, opts...)
	defer client.Close()
	records := pollRecords(t, client, count)
	out := make([]string, len(records))
	for i, r := range records {
		if withOffsets {
			out[i] = fmt.Sprintf("%d@%d %s", r.Partition, r.Offset, r.Value)
		} else {
			out[i] = fmt.Sprintf("%d %s", r.Partition, r.Value)
		}
	}
	sort.Strings(out)
	return out
}

// groupOffsets is the group's committed offset per partition of topic.
func groupOffsets(t *testing.T, adm *kadm.Client, group, topic string) map[int32]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	fetched, err := adm.FetchOffsets(ctx, group)
	if err == nil {
		err = fetched.Error()
	}
	if err != nil {
		t.Fatalf("FetchOffsets: %v", err)
	}
	offsets := map[int32]int64{}
	for partition, o := range fetched[topic] {
		offsets[partition] = o.At
	}
	return offsets
}

// TestFranzTransactionCommitAndAbort: a kgo transactional client commits 10 records per partition
// and aborts 10 more. While the second transaction is open, ListOffsets read_committed is 11 (the
// records and the commit marker) and read_uncommitted 21, and kadm describes the transaction
// (Ongoing, both partitions), lists it, and DescribeProducers shows its first offset (11) on each
// partition; afterwards both ends are 22, read_committed reads the 20 committed records and
// read_uncommitted all 40.
func TestFranzTransactionCommitAndAbort(t *testing.T) {
	topic := topicName("franz-txn")
	createTopic(t, topic, 2)
	txnID := topicName("franz-txn")
	producer := newClient(t, kgo.TransactionalID(txnID), kgo.TransactionTimeout(30*time.Second),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	adm := kadm.NewClient(newClient(t))
	ctx, cancel := context.WithTimeout(context.Background(), txnWaitFor)
	defer cancel()

	batch := func(prefix string) []*kgo.Record {
		var records []*kgo.Record
		for i := 0; i < 20; i++ {
			records = append(records, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprintf("%s-%d", prefix, i))})
		}
		return records
	}
	if err := producer.BeginTransaction(); err != nil {
		t.Fatalf("BeginTransaction: %v", err)
	}
	if err := producer.ProduceSync(ctx, batch("committed")...).FirstErr(); err != nil {
		t.Fatalf("ProduceSync: %v", err)
	}
	if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatalf("EndTransaction(commit): %v", err)
	}

	if err := producer.BeginTransaction(); err != nil {
		t.Fatalf("BeginTransaction: %v", err)
	}
	if err := producer.ProduceSync(ctx, batch("aborted")...).FirstErr(); err != nil {
		t.Fatalf("ProduceSync: %v", err)
	}
	awaitEndOffsets(t, adm, topic, 2, true, 11)
	awaitEndOffsets(t, adm, topic, 2, false, 21)

	described, err := adm.DescribeTransactions(ctx, txnID)
	if err != nil {
		t.Fatalf("DescribeTransactions: %v", err)
	}
	open := described[txnID]
	if open.Err != nil || open.State != "Ongoing" || open.TimeoutMillis != 30000 || open.ProducerID < 0 ||
		!open.Topics.Lookup(topic, 0) || !open.Topics.Lookup(topic, 1) {
		t.Fatalf("DescribeTransactions: %+v, want Ongoing on both partitions with a 30 s timeout", open)
	}
	listed, err := adm.ListTransactions(ctx, nil, nil)
	if err != nil {
		t.Fatalf("ListTransactions: %v", err)
	}
	if l := listed[txnID]; l.ProducerID != open.ProducerID || l.State != "Ongoing" {
		t.Fatalf("ListTransactions: %+v for %s, want producer %d Ongoing", l, txnID, open.ProducerID)
	}
	producers, err := adm.DescribeProducers(ctx, kadm.TopicsSet{topic: {0: {}, 1: {}}})
	if err != nil {
		t.Fatalf("DescribeProducers: %v", err)
	}
	for p := int32(0); p < 2; p++ {
		partition := producers[topic].Partitions[p]
		var mine []kadm.DescribedProducer
		for _, d := range partition.ActiveProducers {
			if d.ProducerID == open.ProducerID {
				mine = append(mine, d)
			}
		}
		if partition.Err != nil || len(mine) != 1 || mine[0].CurrentTxnStartOffset != 11 || mine[0].ProducerEpoch != open.ProducerEpoch {
			t.Fatalf("DescribeProducers partition %d: %+v, want producer %d epoch %d with its transaction from offset 11",
				p, partition, open.ProducerID, open.ProducerEpoch)
		}
	}

	if err := producer.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatalf("EndTransaction(abort): %v", err)
	}
	awaitEndOffsets(t, adm, topic, 2, true, 22)
	awaitEndOffsets(t, adm, topic, 2, false, 22)

	var wantCommitted, wantAll []string
	for i := 0; i < 20; i++ {
		p, o := i%2, i/2
		wantCommitted = append(wantCommitted, fmt.Sprintf("%d@%d committed-%d", p, o, i))
		wantAll = append(wantAll, fmt.Sprintf("%d@%d committed-%d", p, o, i), fmt.Sprintf("%d@%d aborted-%d", p, o+11, i))
	}
	sort.Strings(wantCommitted)
	sort.Strings(wantAll)
	if got := readFromStart(t, topic, true, 20, true); !reflect.DeepEqual(got, wantCommitted) {
		t.Fatalf("read_committed: %v\nwant %v", got, wantCommitted)
	}
	if got := readFromStart(t, topic, false, 40, true); !reflect.DeepEqual(got, wantAll) {
		t.Fatalf("read_uncommitted: %v\nwant %v", got, wantAll)
	}
}

// transactSession is a GroupTransactSession reading input in group and writing to output, its
// producer id loaded before anything else (a restarted one fences its predecessor first).
func transactSession(t *testing.T, txnID, group, input string, serverSide bool, extra ...kgo.Opt) *kgo.GroupTransactSession {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(suiteBroker.Bootstrap()), kgo.RequestTimeoutOverhead(5 * time.Second),
		kgo.RetryTimeout(waitFor), kgo.FetchMaxWait(200 * time.Millisecond),
		kgo.TransactionalID(txnID), kgo.TransactionTimeout(30 * time.Second),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(input), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.RequireStableFetchOffsets(),
		kgo.RecordPartitioner(kgo.ManualPartitioner())}
	if serverSide {
		opts = append(opts, kgo.ServerSideBalancer())
	} else {
		opts = append(opts, kgo.HeartbeatInterval(200*time.Millisecond))
	}
	session, err := kgo.NewGroupTransactSession(append(opts, extra...)...)
	if err != nil {
		t.Fatalf("NewGroupTransactSession: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), txnWaitFor)
	defer cancel()
	if _, _, err := session.Client().ProducerID(ctx); err != nil {
		session.Close()
		t.Fatalf("ProducerID: %v", err)
	}
	return session
}

// transactOnce polls once and, if records came, copies them to output (same partition, value
// prefixed "out:") in one transaction; it ends the transaction (committing the consumed offsets)
// only if end. It returns how many records it copied (in a committed transaction, if end).
func transactOnce(t *testing.T, session *kgo.GroupTransactSession, output string, end bool) int {
	t.Helper()
	pollCtx, cancelPoll := context.WithTimeout(context.Background(), 200*time.Millisecond)
	fetches := session.PollRecords(pollCtx, 15)
	cancelPoll()
	for _, e := range fetches.Errors() {
		if !errors.Is(e.Err, context.DeadlineExceeded) {
			t.Fatalf("fetch error: %v", e)
		}
	}
	records := fetches.Records()
	if len(records) == 0 {
		return 0
	}
	if err := session.Begin(); err != nil {
		t.Fatalf("Begin: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var copies []*kgo.Record
	for _, r := range records {
		copies = append(copies, &kgo.Record{Topic: output, Partition: r.Partition, Key: r.Key, Value: append([]byte("out:"), r.Value...)})
	}
	if err := session.ProduceSync(ctx, copies...).FirstErr(); err != nil {
		t.Fatalf("ProduceSync: %v", err)
	}
	if !end {
		return len(records)
	}
	committed, err := session.End(ctx, kgo.TryCommit)
	if err != nil {
		t.Fatalf("End: %v", err)
	}
	if !committed {
		// A rebalance came first: the session aborted and rewinds to the committed offsets.
		return 0
	}
	return len(records)
}

// TestFranzGroupTransactSession: consume-transform-produce with a GroupTransactSession over a
// two-partition input of 100 records. The first session commits at least half, then dies in its
// next transaction (copies written, nothing ended, client closed); a second session with the same
// transactional id and group fences it and finishes. The output read_committed holds every input
// record exactly once, read_uncommitted also the dead session's copies, and the group's committed
// offsets are the input's end.
func TestFranzGroupTransactSession(t *testing.T) {
	for _, protocol := range []string{"classic", "consumer"} {
		t.Run(protocol, func(t *testing.T) {
			input, output := topicName("franz-ctp-in"), topicName("franz-ctp-out")
			group, txnID := topicName("franz-ctp-g"), topicName("franz-ctp")
			createTopic(t, input, 2)
			createTopic(t, output, 2)
			produceSync(t, newClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner())), input, 2, 100)

			first := transactSession(t, txnID, group, input, protocol == "consumer")
			deadline := time.Now().Add(waitFor)
			for done := 0; done < 50; done += transactOnce(t, first, output, true) {
				if time.Now().After(deadline) {
					t.Fatalf("the first session committed only %d records", done)
				}
			}
			abandoned := 0
			for abandoned == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the first session found nothing left to abandon")
				}
				abandoned = transactOnce(t, first, output, false)
			}
			first.Close()

			second := transactSession(t, txnID, group, input, protocol == "consumer")
			defer second.Close()
			adm := kadm.NewClient(newClient(t))
			deadline = time.Now().Add(waitFor)
			for !reflect.DeepEqual(groupOffsets(t, adm, group, input), map[int32]int64{0: 50, 1: 50}) {
				if time.Now().After(deadline) {
					t.Fatalf("the group's offsets are %v, want both partitions at 50", groupOffsets(t, adm, group, input))
				}
				transactOnce(t, second, output, true)
			}

			var want []string
			for i := 0; i < 100; i++ {
				want = append(want, fmt.Sprintf("%d out:franz record %d %s", i%2, i, "payload payload payload payload"))
			}
			sort.Strings(want)
			got := readFromStart(t, output, true, 100, false)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("read_committed output: %v\nwant every input record once: %v", got, want)
			}
			readFromStart(t, output, false, 100+abandoned, false)
		})
	}
}

// saramaTxnConfig is a transactional sarama producer's configuration (idempotent, acks=all, one
// request in flight, as sarama requires).
func saramaTxnConfig(txnID string) *sarama.Config {
	config := sarama.NewConfig()
	config.Producer.RequiredAcks = sarama.WaitForAll
	config.Producer.Return.Successes = true
	config.Producer.Idempotent = true
	config.Producer.Transaction.ID = txnID
	config.Producer.Transaction.Timeout = 30 * time.Second
	config.Producer.Partitioner = sarama.NewManualPartitioner
	config.Net.MaxOpenRequests = 1
	return config
}

// saramaRead reads count messages from each partition's oldest offset with a sarama consumer at
// the given isolation level and checks no more arrive; it returns "partition@offset value" sorted.
func saramaRead(t *testing.T, topic string, partitions int32, isolation sarama.IsolationLevel, count int) []string {
	t.Helper()
	config := sarama.NewConfig()
	config.Consumer.IsolationLevel = isolation
	config.Consumer.MaxWaitTime = 100 * time.Millisecond
	consumer, err := sarama.NewConsumer([]string{suiteBroker.Bootstrap()}, config)
	if err != nil {
		t.Fatalf("NewConsumer: %v", err)
	}
	defer consumer.Close()
	messages := make(chan *sarama.ConsumerMessage, count+100)
	for p := int32(0); p < partitions; p++ {
		pc, err := consumer.ConsumePartition(topic, p, sarama.OffsetOldest)
		if err != nil {
			t.Fatalf("ConsumePartition %d: %v", p, err)
		}
		defer pc.Close()
		go func() {
			for m := range pc.Messages() {
				messages <- m
			}
		}()
	}
	var got []string
	timeout := time.After(waitFor)
	for len(got) < count {
		select {
		case m := <-messages:
			got = append(got, fmt.Sprintf("%d@%d %s", m.Partition, m.Offset, m.Value))
		case <-timeout:
			t.Fatalf("only %d of %d messages: %v", len(got), count, got)
		}
	}
	select {
	case m := <-messages:
		t.Fatalf("a message beyond the %d expected: %d@%d %s", count, m.Partition, m.Offset, m.Value)
	case <-time.After(300 * time.Millisecond):
	}
	sort.Strings(got)
	return got
}

// TestSaramaTransactionalProducer: sarama's transactional SyncProducer commits 5 messages per
// partition, then aborts 5 more; a read_committed sarama consumer reads exactly the committed 10,
// a read_uncommitted one all 20 (the aborted ones after the commit marker), and the last stable
// offset ends past the abort marker.
func TestSaramaTransactionalProducer(t *testing.T) {
	topic := topicName("sarama-txn")
	createTopic(t, topic, 2)
	producer, err := sarama.NewSyncProducer([]string{suiteBroker.Bootstrap()}, saramaTxnConfig(topicName("sarama-txn")))
	if err != nil {
		t.Fatalf("NewSyncProducer: %v", err)
	}
	defer producer.Close()
	if !producer.IsTransactional() {
		t.Fatalf("the producer is not transactional")
	}
	send := func(prefix string) {
		if err := producer.BeginTxn(); err != nil {
			t.Fatalf("BeginTxn: %v", err)
		}
		for i := 0; i < 10; i++ {
			message := &sarama.ProducerMessage{Topic: topic, Partition: int32(i % 2), Value: sarama.StringEncoder(fmt.Sprintf("%s-%d", prefix, i))}
			if _, _, err := producer.SendMessage(message); err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
		}
	}
	send("committed")
	if err := producer.CommitTxn(); err != nil {
		t.Fatalf("CommitTxn: %v", err)
	}
	send("aborted")
	if status := producer.TxnStatus(); status&sarama.ProducerTxnFlagInTransaction == 0 {
		t.Fatalf("TxnStatus %v: not in a transaction", status)
	}
	adm := kadm.NewClient(newClient(t))
	awaitEndOffsets(t, adm, topic, 2, true, 6)
	if err := producer.AbortTxn(); err != nil {
		t.Fatalf("AbortTxn: %v", err)
	}
	awaitEndOffsets(t, adm, topic, 2, true, 12)

	var wantCommitted, wantAll []string
	for i := 0; i < 10; i++ {
		p, o := i%2, i/2
		wantCommitted = append(wantCommitted, fmt.Sprintf("%d@%d committed-%d", p, o, i))
		wantAll = append(wantAll, fmt.Sprintf("%d@%d committed-%d", p, o, i), fmt.Sprintf("%d@%d aborted-%d", p, o+6, i))
	}
	sort.Strings(wantCommitted)
	sort.Strings(wantAll)
	if got := saramaRead(t, topic, 2, sarama.ReadCommitted, 10); !reflect.DeepEqual(got, wantCommitted) {
		t.Fatalf("read_committed: %v\nwant %v", got, wantCommitted)
	}
	if got := saramaRead(t, topic, 2, sarama.ReadUncommitted, 20); !reflect.DeepEqual(got, wantAll) {
		t.Fatalf("read_uncommitted: %v\nwant %v", got, wantAll)
	}
}

// TestFranzGroupTransactSessionAbortAfterTimeout: a GroupTransactSession (a static member) opens a
// transaction that outlives its 1 s transaction timeout, so the coordinator aborts it (under a
// new epoch, within its 10 s sweep); a second member joins and takes one of the session's two
// partitions. The session's End then aborts: under transactions V2 its EndTxn (the old epoch) is
// a retry of the coordinator's abort, answered with the new epoch (Kafka 4.4; Strand answered
// PRODUCER_FENCED, which is fatal to the client), and both members go on: the output
// read_committed holds every input record once and the group's offsets reach the end. Both group
// protocols, in parallel.
func TestFranzGroupTransactSessionAbortAfterTimeout(t *testing.T) {
	for _, protocol := range []string{"classic", "consumer"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			serverSide := protocol == "consumer"
			input, output := topicName("franz-tmo-in"), topicName("franz-tmo-out")
			group, txnID := topicName("franz-tmo-g"), topicName("franz-tmo")
			createTopic(t, input, 2)
			createTopic(t, output, 2)
			produceSync(t, newClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner())), input, 2, 20)

			revoked := make(chan struct{})
			var once sync.Once
			onRevoked := kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
				if len(lost) > 0 {
					once.Do(func() { close(revoked) })
				}
			})
			first := transactSession(t, txnID, group, input, serverSide,
				kgo.TransactionTimeout(time.Second), kgo.InstanceID(txnID), onRevoked)
			defer first.Close()
			var records []*kgo.Record
			deadline := time.Now().Add(waitFor)
			for len(records) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the first session polled nothing")
				}
				pollCtx, cancelPoll := context.WithTimeout(context.Background(), 200*time.Millisecond)
				records = first.PollRecords(pollCtx, 5).Records()
				cancelPoll()
			}
			if err := first.Begin(); err != nil {
				t.Fatalf("Begin: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*txnWaitFor)
			defer cancel()
			var copies []*kgo.Record
			for _, r := range records {
				copies = append(copies, &kgo.Record{Topic: output, Partition: r.Partition, Value: append([]byte("out:"), r.Value...)})
			}
			if err := first.ProduceSync(ctx, copies...).FirstErr(); err != nil {
				t.Fatalf("ProduceSync: %v", err)
			}

			// The coordinator aborts the transaction once it is older than its timeout.
			adm := kadm.NewClient(newClient(t))
			for {
				described, err := adm.DescribeTransactions(ctx, txnID)
				if err != nil {
					t.Fatalf("DescribeTransactions: %v", err)
				}
				if state := described[txnID].State; state == "CompleteAbort" {
					break
				} else if ctx.Err() != nil {
					t.Fatalf("the transaction is %s, never aborted on its timeout", state)
				}
				time.Sleep(100 * time.Millisecond)
			}
			second := transactSession(t, topicName("franz-tmo"), group, input, serverSide)
			defer second.Close()
			select {
			case <-revoked:
			case <-ctx.Done():
				t.Fatalf("the first session lost no partition to the second")
			}
			committed, err := first.End(ctx, kgo.TryCommit)
			if err != nil || committed {
				t.Fatalf("End after the timeout abort: committed %v, %v; want an abort", committed, err)
			}

			deadline = time.Now().Add(waitFor)
			for !reflect.DeepEqual(groupOffsets(t, adm, group, input), map[int32]int64{0: 10, 1: 10}) {
				if time.Now().After(deadline) {
					t.Fatalf("the group's offsets are %v, want both partitions at 10", groupOffsets(t, adm, group, input))
				}
				transactOnce(t, first, output, true)
				transactOnce(t, second, output, true)
			}
			var want []string
			for i := 0; i < 20; i++ {
				want = append(want, fmt.Sprintf("%d out:franz record %d %s", i%2, i, "payload payload payload payload"))
			}
			sort.Strings(want)
			if got := readFromStart(t, output, true, 20, false); !reflect.DeepEqual(got, want) {
				t.Fatalf("read_committed output: %v\nwant every input record once: %v", got, want)
			}
		})
	}
}
