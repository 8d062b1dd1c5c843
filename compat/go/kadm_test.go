package compat

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// TestKadmCreateListDeleteTopics creates topics with kadm, finds them in ListTopics with their
// partitions led by the one node, grows one, deletes both and waits until they are gone.
func TestKadmCreateListDeleteTopics(t *testing.T) {
	adm := kadm.NewClient(newClient(t))
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	first, second := topicName("kadm-a"), topicName("kadm-b")
	retention := "3600000"
	created, err := adm.CreateTopics(ctx, 3, 1, map[string]*string{"retention.ms": &retention}, first, second)
	if err != nil {
		t.Fatalf("CreateTopics: %v", err)
	}
	for _, topic := range []string{first, second} {
		resp := created[topic]
		if resp.Err != nil || resp.NumPartitions != 3 || resp.ReplicationFactor != 1 || resp.ID == (kadm.TopicID{}) {
			t.Fatalf("created %s: %+v", topic, resp)
		}
	}
	again, err := adm.CreateTopics(ctx, 3, 1, nil, first)
	if err != nil {
		t.Fatalf("CreateTopics again: %v", err)
	}
	if !errors.Is(again[first].Err, kerr.TopicAlreadyExists) {
		t.Fatalf("creating %s again: %v, want TOPIC_ALREADY_EXISTS", first, again[first].Err)
	}

	awaitTopic(t, adm, first, 3)
	awaitTopic(t, adm, second, 3)
	listed, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatalf("ListTopics: %v", err)
	}
	for _, topic := range []string{first, second} {
		detail, ok := listed[topic]
		if !ok {
			t.Fatalf("ListTopics does not list %s: %v", topic, listed.Names())
		}
		if detail.ID != created[topic].ID || len(detail.Partitions) != 3 {
			t.Fatalf("listed %s: id %v partitions %d", topic, detail.ID, len(detail.Partitions))
		}
		for _, p := range detail.Partitions {
			if p.Err != nil || p.Leader != 1 || len(p.Replicas) != 1 || p.Replicas[0] != 1 || len(p.ISR) != 1 {
				t.Fatalf("%s partition %d: %+v", topic, p.Partition, p)
			}
		}
	}

	grown, err := adm.UpdatePartitions(ctx, 5, first)
	if err != nil || grown[first].Err != nil {
		t.Fatalf("UpdatePartitions to 5: %v %v", err, grown[first].Err)
	}
	shrunk, err := adm.UpdatePartitions(ctx, 2, first)
	if err != nil {
		t.Fatalf("UpdatePartitions to 2: %v", err)
	}
	if !errors.Is(shrunk[first].Err, kerr.InvalidPartitions) {
		t.Fatalf("shrinking %s: %v, want INVALID_PARTITIONS", first, shrunk[first].Err)
	}
	awaitTopic(t, adm, first, 5)

	deleted, err := adm.DeleteTopics(ctx, first, second)
	if err != nil {
		t.Fatalf("DeleteTopics: %v", err)
	}
	if err := deleted.Error(); err != nil {
		t.Fatalf("DeleteTopics: %v", err)
	}
	awaitTopicsGone(t, adm, first, second)
	gone, err := adm.DeleteTopics(ctx, first)
	if err != nil {
		t.Fatalf("DeleteTopics again: %v", err)
	}
	if !errors.Is(gone[first].Err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("deleting %s again: %v, want UNKNOWN_TOPIC_OR_PARTITION", first, gone[first].Err)
	}
}

// awaitTopic polls ListTopics until topic has count partitions, each with a leader: the
// controller answers CreateTopics and CreatePartitions once the change is committed, and the
// broker's metadata has it a moment later.
func awaitTopic(t *testing.T, adm *kadm.Client, topic string, count int) kadm.TopicDetail {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		listed, err := adm.ListTopics(ctx, topic)
		cancel()
		if err != nil {
			t.Fatalf("ListTopics: %v", err)
		}
		detail := listed[topic]
		ready := detail.Err == nil && len(detail.Partitions) == count
		for _, p := range detail.Partitions {
			ready = ready && p.Err == nil && p.Leader >= 0
		}
		if ready {
			return detail
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never showed %d led partitions within %s: %+v", topic, count, waitFor, detail)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// awaitTopicsGone polls ListTopics until none of topics is listed: a deletion reaches the
// broker's metadata once the controller has committed it.
func awaitTopicsGone(t *testing.T, adm *kadm.Client, topics ...string) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		listed, err := adm.ListTopics(ctx)
		cancel()
		if err != nil {
			t.Fatalf("ListTopics: %v", err)
		}
		remaining := 0
		for _, topic := range topics {
			if listed.Has(topic) {
				remaining++
			}
		}
		if remaining == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("deleted topics still listed after %s: %v", waitFor, listed.Names())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
