package compat

// Consumer groups and committed offsets (issue 5): sarama's ConsumerGroup as the seeds use it (a
// handler with Setup/ConsumeClaim/Cleanup that marks each message, then a commit), and franz-go's
// group consumer (kgo.ConsumerGroup) with the classic protocol and with KIP-848's server-side
// balancer. Each test uses a topic and group of its own.

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

// groupHandler is a sarama.ConsumerGroupHandler as the seeds write one: Setup and Cleanup around
// each session, ConsumeClaim marking every message it hands on, and (with commitEach) committing
// it at once.
type groupHandler struct {
	commitEach bool
	messages   chan *sarama.ConsumerMessage

	mu       sync.Mutex
	claims   map[string][]int32 // the current session's claims; nil between sessions
	sessions int
}

func newGroupHandler(commitEach bool) *groupHandler {
	return &groupHandler{commitEach: commitEach, messages: make(chan *sarama.ConsumerMessage, 1000)}
}

func (h *groupHandler) Setup(session sarama.ConsumerGroupSession) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.claims = session.Claims()
	h.sessions++
	return nil
}

func (h *groupHandler) Cleanup(sarama.ConsumerGroupSession) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.claims = nil
	return nil
}

func (h *groupHandler) ConsumeClaim(session sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for {
		select {
		case msg, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			session.MarkMessage(msg, "")
			if h.commitEach {
				session.Commit()
			}
			h.messages <- msg
		case <-session.Context().Done():
			return nil
		}
	}
}

// claimed is the partitions of topic the current session claims, sorted.
func (h *groupHandler) claimed(topic string) []int32 {
	h.mu.Lock()
	defer h.mu.Unlock()
	partitions := append([]int32(nil), h.claims[topic]...)
	sort.Slice(partitions, func(i, j int) bool { return partitions[i] < partitions[j] })
	return partitions
}

// saramaGroupMember runs one sarama ConsumerGroup member until the test ends: Consume in a loop
// (it returns at each rebalance), as sarama's documentation and the seeds do.
type saramaGroupMember struct {
	group   sarama.ConsumerGroup
	handler *groupHandler
	cancel  context.CancelFunc
	done    chan error
}

func groupConfig(initial int64, autoCommit bool) *sarama.Config {
	config := seedsConfig()
	config.Consumer.Offsets.Initial = initial
	config.Consumer.Offsets.AutoCommit.Enable = autoCommit
	config.Consumer.Offsets.AutoCommit.Interval = 100 * time.Millisecond
	config.Consumer.Return.Errors = true
	config.Consumer.MaxWaitTime = 100 * time.Millisecond
	// A member learns of a rebalance from its heartbeat: beat often so the group settles at once.
	config.Consumer.Group.Heartbeat.Interval = 200 * time.Millisecond
	return config
}

func startSaramaMember(t *testing.T, group, topic string, config *sarama.Config, handler *groupHandler) *saramaGroupMember {
	t.Helper()
	cg, err := sarama.NewConsumerGroup([]string{suiteBroker.Bootstrap()}, group, config)
	if err != nil {
		t.Fatalf("NewConsumerGroup: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &saramaGroupMember{group: cg, handler: handler, cancel: cancel, done: make(chan error, 1)}
	go func() {
		for ctx.Err() == nil {
			if err := cg.Consume(ctx, []string{topic}, handler); err != nil {
				if !errors.Is(err, sarama.ErrClosedConsumerGroup) {
					m.done <- err
				}
				break
			}
		}
		close(m.done)
	}()
	go func() {
		for err := range cg.Errors() {
			t.Logf("sarama consumer group %s: %v", group, err)
		}
	}()
	t.Cleanup(m.stop)
	return m
}

// failed fails the test if the member's Consume loop has stopped on an error.
func (m *saramaGroupMember) failed(t *testing.T) {
	t.Helper()
	select {
	case err, ok := <-m.done:
		if ok {
			t.Fatalf("Consume: %v", err)
		}
		t.Fatalf("consumer group stopped")
	default:
	}
}

// stop ends the member's session (its marked offsets are committed when auto-commit is on) and
// closes it, leaving the group.
func (m *saramaGroupMember) stop() {
	if m.cancel == nil {
		return
	}
	m.cancel()
	m.cancel = nil
	_ = m.group.Close()
	<-m.done
}

// receive collects count messages, failing on a Consume error or after waitFor; then waits a
// moment more to check nothing else arrives.
func (m *saramaGroupMember) receive(t *testing.T, count int) []*sarama.ConsumerMessage {
	t.Helper()
	var got []*sarama.ConsumerMessage
	timeout := time.After(waitFor)
	for len(got) < count {
		select {
		case msg := <-m.handler.messages:
			got = append(got, msg)
		case err, ok := <-m.done:
			if ok {
				t.Fatalf("Consume: %v", err)
			}
			t.Fatalf("consumer group stopped after %d of %d messages", len(got), count)
		case <-timeout:
			t.Fatalf("only %d of %d messages after %s", len(got), count, waitFor)
		}
	}
	select {
	case msg := <-m.handler.messages:
		t.Fatalf("message beyond the %d expected: partition %d offset %d %q", count, msg.Partition, msg.Offset, msg.Value)
	case <-time.After(300 * time.Millisecond):
	}
	return got
}

// sameAsProduced checks that got holds exactly want's messages, each partition's in offset order.
func sameAsProduced(t *testing.T, got []*sarama.ConsumerMessage, want map[int32][]sent) {
	t.Helper()
	byPartition := map[int32][]sent{}
	for _, msg := range got {
		byPartition[msg.Partition] = append(byPartition[msg.Partition], sent{msg.Partition, msg.Offset, string(msg.Value)})
	}
	for partition := range want {
		if len(want[partition]) == 0 {
			delete(want, partition)
		}
	}
	if !reflect.DeepEqual(byPartition, want) {
		t.Fatalf("consumed %v, want %v", byPartition, want)
	}
}

// saramaCommitted is the group's committed offset of each partition of topic (OffsetFetch through
// sarama's ClusterAdmin); -1 where none.
func saramaCommitted(t *testing.T, group, topic string, partitions int32) map[int32]int64 {
	t.Helper()
	admin, err := sarama.NewClusterAdmin([]string{suiteBroker.Bootstrap()}, sarama.NewConfig())
	if err != nil {
		t.Fatalf("NewClusterAdmin: %v", err)
	}
	defer admin.Close()
	ids := make([]int32, partitions)
	for i := range ids {
		ids[i] = int32(i)
	}
	resp, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: ids})
	if err != nil {
		t.Fatalf("ListConsumerGroupOffsets: %v", err)
	}
	offsets := map[int32]int64{}
	for _, id := range ids {
		block := resp.GetBlock(topic, id)
		if block == nil {
			t.Fatalf("no offset block for partition %d", id)
		}
		if block.Err != sarama.ErrNoError {
			t.Fatalf("partition %d: %v", id, block.Err)
		}
		offsets[id] = block.Offset
	}
	return offsets
}

// TestSaramaConsumerGroupCommitsAndResumes: a sarama ConsumerGroup member reads every message
// from the oldest offset, marking and committing each; the group's committed offsets are then
// each partition's end; a new member of the group (with OffsetNewest, so only a commit can place
// it) reads exactly the messages produced since.
func TestSaramaConsumerGroupCommitsAndResumes(t *testing.T) {
	topic := topicName("sarama-group")
	group := topicName("sarama-g")
	createTopic(t, topic, 3)
	first := produceAsSeedsDo(t, topic, 30)

	member := startSaramaMember(t, group, topic, groupConfig(sarama.OffsetOldest, false), newGroupHandler(true))
	sameAsProduced(t, member.receive(t, 30), first)
	if claimed := member.handler.claimed(topic); !reflect.DeepEqual(claimed, []int32{0, 1, 2}) {
		t.Fatalf("the only member claims %v, want [0 1 2]", claimed)
	}
	want := map[int32]int64{}
	for p := int32(0); p < 3; p++ {
		want[p] = int64(len(first[p]))
	}
	if got := saramaCommitted(t, group, topic, 3); !reflect.DeepEqual(got, want) {
		t.Fatalf("committed offsets %v, want %v (the end of each partition)", got, want)
	}
	member.stop()

	second := produceMoreAsSeedsDo(t, topic, first, 9)
	resumed := startSaramaMember(t, group, topic, groupConfig(sarama.OffsetNewest, true), newGroupHandler(false))
	sameAsProduced(t, resumed.receive(t, 9), second)
	resumed.stop()
	// Auto-commit committed what the resumed member marked, at the latest when it closed.
	for p := int32(0); p < 3; p++ {
		want[p] += int64(len(second[p]))
	}
	if got := saramaCommitted(t, group, topic, 3); !reflect.DeepEqual(got, want) {
		t.Fatalf("committed offsets after the auto-committing member %v, want %v", got, want)
	}
}

// produceMoreAsSeedsDo sends count more messages like produceAsSeedsDo, to a topic that already
// holds before; each partition's offsets must continue from its end.
func produceMoreAsSeedsDo(t *testing.T, topic string, before map[int32][]sent, count int) map[int32][]sent {
	t.Helper()
	producer, err := sarama.NewSyncProducer([]string{suiteBroker.Bootstrap()}, seedsConfig())
	if err != nil {
		t.Fatalf("NewSyncProducer: %v", err)
	}
	defer producer.Close()
	byPartition := map[int32][]sent{}
	for i := 0; i < count; i++ {
		value := fmt.Sprintf("later message %d", i)
		partition, offset, err := producer.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(value)})
		if err != nil {
			t.Fatalf("SendMessage %d: %v", i, err)
		}
		if want := int64(len(before[partition]) + len(byPartition[partition])); offset != want {
			t.Fatalf("message %d: partition %d offset %d, want %d", i, partition, offset, want)
		}
		byPartition[partition] = append(byPartition[partition], sent{partition, offset, value})
	}
	return byPartition
}

// TestSaramaConsumerGroupTwoMembersSplitPartitions: two members of one group (the range
// strategy) split a four-partition topic two and two, and each gets the messages of its own
// partitions only.
func TestSaramaConsumerGroupTwoMembersSplitPartitions(t *testing.T) {
	topic := topicName("sarama-split")
	group := topicName("sarama-g")
	createTopic(t, topic, 4)
	a := startSaramaMember(t, group, topic, groupConfig(sarama.OffsetOldest, true), newGroupHandler(false))
	b := startSaramaMember(t, group, topic, groupConfig(sarama.OffsetOldest, true), newGroupHandler(false))

	deadline := time.Now().Add(waitFor)
	var claimedA, claimedB []int32
	for {
		claimedA, claimedB = a.handler.claimed(topic), b.handler.claimed(topic)
		union := append(append([]int32(nil), claimedA...), claimedB...)
		sort.Slice(union, func(i, j int) bool { return union[i] < union[j] })
		if len(claimedA) == 2 && len(claimedB) == 2 && reflect.DeepEqual(union, []int32{0, 1, 2, 3}) {
			break
		}
		a.failed(t)
		b.failed(t)
		if time.Now().After(deadline) {
			t.Fatalf("members claim %v and %v after %s, want two partitions each", claimedA, claimedB, waitFor)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The range strategy gives each member two adjacent partitions.
	for _, claimed := range [][]int32{claimedA, claimedB} {
		if claimed[1] != claimed[0]+1 {
			t.Fatalf("range strategy: claims %v and %v, want [0 1] and [2 3]", claimedA, claimedB)
		}
	}

	producer, err := sarama.NewSyncProducer([]string{suiteBroker.Bootstrap()}, func() *sarama.Config {
		config := seedsConfig()
		config.Producer.Partitioner = sarama.NewManualPartitioner
		return config
	}())
	if err != nil {
		t.Fatalf("NewSyncProducer: %v", err)
	}
	defer producer.Close()
	for i := 0; i < 8; i++ {
		if _, _, err := producer.SendMessage(&sarama.ProducerMessage{Topic: topic, Partition: int32(i % 4),
			Value: sarama.StringEncoder(fmt.Sprintf("split %d", i))}); err != nil {
			t.Fatalf("SendMessage %d: %v", i, err)
		}
	}
	for name, m := range map[string]*saramaGroupMember{"a": a, "b": b} {
		claimed := m.handler.claimed(topic)
		for _, msg := range m.receive(t, 4) {
			if msg.Partition != claimed[0] && msg.Partition != claimed[1] {
				t.Fatalf("member %s claims %v but got a message of partition %d", name, claimed, msg.Partition)
			}
		}
	}
}

// franzGroupMember is a kgo client in a consumer group reading topic.
func franzGroupMember(t *testing.T, group, topic string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	base := []kgo.Opt{kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.HeartbeatInterval(200 * time.Millisecond)}
	client, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(suiteBroker.Bootstrap()),
		kgo.RequestTimeoutOverhead(5 * time.Second), kgo.RetryTimeout(waitFor), kgo.FetchMaxWait(200 * time.Millisecond)},
		append(base, opts...)...)...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(client.Close)
	return client
}

// pollRecords polls until count records have arrived (failing on a fetch error or after waitFor),
// then once more briefly to check nothing beyond them arrives.
func pollRecords(t *testing.T, client *kgo.Client, count int) []*kgo.Record {
	t.Helper()
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
	short, cancelShort := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancelShort()
	if extra := client.PollFetches(short).Records(); len(extra) > 0 {
		t.Fatalf("%d records beyond the %d expected, first p%d@%d", len(extra), count, extra[0].Partition, extra[0].Offset)
	}
	if len(got) != count {
		t.Fatalf("consumed %d records, want %d", len(got), count)
	}
	return got
}

// franzCommitted is the group's committed offset per partition of topic (kadm FetchOffsets).
func franzCommitted(t *testing.T, group, topic string) map[int32]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	fetched, err := kadm.NewClient(newClient(t)).FetchOffsets(ctx, group)
	if err != nil {
		t.Fatalf("FetchOffsets: %v", err)
	}
	if err := fetched.Error(); err != nil {
		t.Fatalf("FetchOffsets: %v", err)
	}
	offsets := map[int32]int64{}
	for partition, o := range fetched[topic] {
		offsets[partition] = o.At
	}
	return offsets
}

func positions(records []*kgo.Record) []string {
	out := make([]string, len(records))
	for i, r := range records {
		out[i] = fmt.Sprintf("%d@%d", r.Partition, r.Offset)
	}
	sort.Strings(out)
	return out
}

// TestFranzGroupCommitsResumeAfterRestart: a kgo group member (auto-commit off) reads two
// partitions from the start and commits with CommitUncommittedOffsets; the group's offsets are
// the partitions' ends; a restarted member of the group (resetting to the end, so only the commit
// can place it) reads exactly the records written since, and its autocommit-on-close commits them.
func TestFranzGroupCommitsResumeAfterRestart(t *testing.T) {
	topic := topicName("franz-group")
	group := topicName("franz-g")
	createTopic(t, topic, 2)
	producer := newClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	sent := produceSync(t, producer, topic, 2, 10)

	first := franzGroupMember(t, group, topic, kgo.DisableAutoCommit())
	got := pollRecords(t, first, 10)
	if want := positions(sent); !reflect.DeepEqual(positions(got), want) {
		t.Fatalf("consumed %v, want %v", positions(got), want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := first.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("CommitUncommittedOffsets: %v", err)
	}
	if got := franzCommitted(t, group, topic); !reflect.DeepEqual(got, map[int32]int64{0: 5, 1: 5}) {
		t.Fatalf("committed %v, want both partitions at 5", got)
	}
	first.Close()

	later := make([]*kgo.Record, 6)
	for i := range later {
		later[i] = &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprintf("later %d", i))}
	}
	if err := producer.ProduceSync(ctx, later...).FirstErr(); err != nil {
		t.Fatalf("ProduceSync: %v", err)
	}
	restarted := franzGroupMember(t, group, topic, kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()))
	resumed := pollRecords(t, restarted, 6)
	if want := []string{"0@5", "0@6", "0@7", "1@5", "1@6", "1@7"}; !reflect.DeepEqual(positions(resumed), want) {
		t.Fatalf("the restarted member read %v, want %v", positions(resumed), want)
	}
	// Autocommit commits what was polled before; a final synchronous commit, then leave.
	if err := restarted.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("CommitUncommittedOffsets: %v", err)
	}
	restarted.Close()
	if got := franzCommitted(t, group, topic); !reflect.DeepEqual(got, map[int32]int64{0: 8, 1: 8}) {
		t.Fatalf("committed %v after the restarted member, want both partitions at 8", got)
	}
}

// TestFranzGroupServerSideBalancer: two kgo members using KIP-848 (ServerSideBalancer, the
// broker assigns) split a four-partition topic, each reading only its own partitions' records;
// kadm describes the group with both members and their assignments.
func TestFranzGroupServerSideBalancer(t *testing.T) {
	topic := topicName("franz-848")
	group := topicName("franz-g848")
	createTopic(t, topic, 4)
	type assignment struct {
		mu         sync.Mutex
		partitions map[int32]bool
	}
	members := make([]*kgo.Client, 2)
	assigned := make([]*assignment, 2)
	for i := range members {
		a := &assignment{partitions: map[int32]bool{}}
		assigned[i] = a
		members[i] = franzGroupMember(t, group, topic, kgo.ServerSideBalancer(),
			kgo.Balancers(kgo.RangeBalancer()),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				a.mu.Lock()
				defer a.mu.Unlock()
				for _, p := range m[topic] {
					a.partitions[p] = true
				}
			}),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				a.mu.Lock()
				defer a.mu.Unlock()
				for _, p := range m[topic] {
					delete(a.partitions, p)
				}
			}))
	}
	owned := func(i int) []int32 {
		a := assigned[i]
		a.mu.Lock()
		defer a.mu.Unlock()
		var out []int32
		for p := range a.partitions {
			out = append(out, p)
		}
		sort.Slice(out, func(x, y int) bool { return out[x] < out[y] })
		return out
	}
	// Polling drives the members' rebalance callbacks; nothing is written yet.
	deadline := time.Now().Add(waitFor)
	for {
		a, b := owned(0), owned(1)
		if len(a) == 2 && len(b) == 2 {
			union := append(append([]int32(nil), a...), b...)
			sort.Slice(union, func(x, y int) bool { return union[x] < union[y] })
			if !reflect.DeepEqual(union, []int32{0, 1, 2, 3}) {
				t.Fatalf("members own %v and %v: overlapping", a, b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("members own %v and %v after %s, want two partitions each", a, b, waitFor)
		}
		for i, m := range members {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			fetches := m.PollFetches(ctx)
			cancel()
			if records := fetches.Records(); len(records) > 0 {
				t.Fatalf("records before any were written: %d", len(records))
			}
			for _, e := range fetches.Errors() {
				if !errors.Is(e.Err, context.DeadlineExceeded) {
					t.Fatalf("member %d: %v", i, e.Err)
				}
			}
		}
	}

	// The group is Stable once both members have acknowledged their assignments (their next
	// heartbeat after the callback): describe it until then.
	adm := kadm.NewClient(newClient(t))
	deadline = time.Now().Add(waitFor)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		described, err := adm.DescribeConsumerGroups(ctx, group)
		cancel()
		if err != nil {
			t.Fatalf("DescribeConsumerGroups: %v", err)
		}
		d := described[group]
		if d.Err == nil && d.State == "Stable" && len(d.Members) == 2 && len(d.AssignedPartitions()[topic]) == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("described %s: err %v, state %q, %d members, assigned %v; want Stable with 2 members holding all 4",
				group, d.Err, d.State, len(d.Members), d.AssignedPartitions())
		}
		time.Sleep(50 * time.Millisecond)
	}

	producer := newClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	produceSync(t, producer, topic, 4, 8)
	for i, m := range members {
		mine := owned(i)
		for _, r := range pollRecords(t, m, 4) {
			if r.Partition != mine[0] && r.Partition != mine[1] {
				t.Fatalf("member %d owns %v but read a record of partition %d", i, mine, r.Partition)
			}
		}
	}
}
