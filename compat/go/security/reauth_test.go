//go:build security

package security

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The reauth case (KIP-368) on the REAUTH listener, whose sessions last cfg.ReauthMs: for 8 s
// after the first record arrives, a producer sends a record every 250 ms (each acknowledged
// before the next) while a consumer reads them. Every record arrives in order, never a session's
// length apart, and no connection was opened or closed after the first record: the clients
// re-authenticated on the connections they had (the broker closes a connection that sends a
// request on an expired session, and the client would reconnect).
//
// reauths is how many times the clients re-authenticated (from their debug logs), at least three
// more than they have connections.
func reauthRun(t *testing.T, send func(string) error, poll func() ([]string, error), connections func() string,
	reauths func() (int64, error)) {
	t.Helper()
	var sent, got []string
	sendNext := func() {
		v := fmt.Sprintf("reauth-%d", len(sent))
		if err := send(v); err != nil {
			t.Fatalf("send %s: %s", v, errorChain(err))
		}
		sent = append(sent, v)
	}
	sendNext()
	session := time.Duration(cfg.ReauthMs) * time.Millisecond
	deadline := time.Now().Add(30 * time.Second)
	var first, last, end, nextSend time.Time
	var longest time.Duration
	var atStart string
	for end.IsZero() || time.Now().Before(end) || len(got) < len(sent) {
		if time.Now().After(deadline) {
			t.Fatalf("read %d of %d records before the deadline", len(got), len(sent))
		}
		values, err := poll()
		if err != nil {
			t.Fatalf("consume: %s", errorChain(err))
		}
		for _, v := range values {
			now := time.Now()
			if first.IsZero() {
				first, end, nextSend = now, now.Add(8*time.Second), now
				// Every connection is up; the first session expires 2 s after the first connection.
				atStart = connections()
			} else if gap := now.Sub(last); gap > longest {
				longest = gap
			}
			last = now
			got = append(got, v)
		}
		if !end.IsZero() && time.Now().Before(end) && !time.Now().Before(nextSend) {
			sendNext()
			nextSend = time.Now().Add(250 * time.Millisecond)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(sent) {
		t.Fatalf("read %q, sent %q", got, sent)
	}
	if longest >= session {
		t.Fatalf("no record for %v", longest)
	}
	if atEnd := connections(); atEnd != atStart {
		t.Fatalf("connections went from %s to %s during the run", atStart, atEnd)
	}
	n, err := reauths()
	if err != nil || n < 3 {
		t.Fatalf("%d re-authentications (%v)", n, err)
	}
	t.Logf("reauth: %d records, longest gap %v, connections %s, %d re-authentications", len(got), longest, atStart, n)
}

// franzConnections counts the connections a franz-go client opened and closed.
type franzConnections struct{ opened, closed atomic.Int64 }

func (c *franzConnections) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err == nil {
		c.opened.Add(1)
	}
}

func (c *franzConnections) OnBrokerDisconnect(kgo.BrokerMetadata, net.Conn) { c.closed.Add(1) }

func (c *franzConnections) String() string {
	return fmt.Sprintf("%d opened, %d closed", c.opened.Load(), c.closed.Load())
}

// franzReauths counts franz-go's debug log lines about re-authentication.
type franzReauths struct{ started, failed atomic.Int64 }

func (*franzReauths) Level() kgo.LogLevel { return kgo.LogLevelDebug }

func (r *franzReauths) Log(_ kgo.LogLevel, msg string, _ ...any) {
	switch {
	case strings.HasPrefix(msg, "sasl expiry limit reached") && strings.HasSuffix(msg, "reauthenticating"):
		r.started.Add(1)
	case strings.HasPrefix(msg, "sasl reauth failed"):
		r.failed.Add(1)
	}
}

func (r *franzReauths) count() (int64, error) {
	if failed := r.failed.Load(); failed > 0 {
		return r.started.Load(), fmt.Errorf("%d failed", failed)
	}
	return r.started.Load(), nil
}

func TestFranzReauth(t *testing.T) {
	matrix(t, franz, "reauth")
	bootstrap := listener(t, "sasl", "REAUTH")
	topic := topicName()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	security := []kgo.Opt{kgo.SeedBrokers(bootstrap), franzTLS(tlsConfig(t, "ca.pem", "")), franzScram(password("scram"))}
	var producerConns, consumerConns franzConnections
	var logged franzReauths
	security = append(security, kgo.WithLogger(&logged))
	producer, err := kgo.NewClient(append([]kgo.Opt{kgo.AllowAutoTopicCreation(), kgo.WithHooks(&producerConns),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.AllISRAcks())}, security...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	consumer, err := kgo.NewClient(append([]kgo.Opt{kgo.WithHooks(&consumerConns), kgo.FetchMaxWait(100 * time.Millisecond),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}})}, security...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	send := func(v string) error {
		return producer.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(v)}).FirstErr()
	}
	poll := func() ([]string, error) {
		pollCtx, pollCancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer pollCancel()
		fetches := consumer.PollFetches(pollCtx)
		for _, fe := range fetches.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) {
				return nil, fe.Err
			}
		}
		var values []string
		fetches.EachRecord(func(r *kgo.Record) { values = append(values, string(r.Value)) })
		return values, nil
	}
	reauthRun(t, send, poll, func() string {
		return fmt.Sprintf("producer %v, consumer %v", &producerConns, &consumerConns)
	}, logged.count)
}

// countingDialer counts the connections a sarama client dialled.
type countingDialer struct {
	net.Dialer
	dialled atomic.Int64
}

func (d *countingDialer) Dial(network, address string) (net.Conn, error) {
	d.dialled.Add(1)
	return d.Dialer.Dial(network, address)
}

// saramaAuthentications counts sarama's debug log line about each authentication's session.
type saramaAuthentications struct{ n atomic.Int64 }

func (a *saramaAuthentications) count(s string) {
	if strings.HasPrefix(s, "Session expiration in ") {
		a.n.Add(1)
	}
}
func (a *saramaAuthentications) Print(v ...any)                 { a.count(fmt.Sprint(v...)) }
func (a *saramaAuthentications) Printf(format string, v ...any) { a.count(fmt.Sprintf(format, v...)) }
func (a *saramaAuthentications) Println(v ...any)               { a.count(fmt.Sprintln(v...)) }

func TestSaramaReauth(t *testing.T) {
	matrix(t, saramaClient, "reauth")
	var authentications saramaAuthentications
	previous := sarama.DebugLogger
	sarama.DebugLogger = &authentications
	t.Cleanup(func() { sarama.DebugLogger = previous })
	bootstrap := listener(t, "sasl", "REAUTH")
	topic := topicName()
	dialer := &countingDialer{Dialer: net.Dialer{Timeout: 5 * time.Second}}
	c := saramaScram(saramaConfig(tlsConfig(t, "ca.pem", "")), password("scram"))
	c.Net.Proxy.Enable = true // the only way to give sarama a dialer of our own
	c.Net.Proxy.Dialer = dialer
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Consumer.MaxWaitTime = 100 * time.Millisecond
	c.Metadata.Retry.Max = 10
	client, err := sarama.NewClient([]string{bootstrap}, c)
	if err != nil {
		t.Fatalf("client: %s", errorChain(err))
	}
	defer client.Close()
	producer, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	send := func(v string) error {
		_, _, err := producer.SendMessage(&sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.StringEncoder(v)})
		return err
	}
	var pc sarama.PartitionConsumer
	poll := func() ([]string, error) {
		if pc == nil {
			consumer, err := sarama.NewConsumerFromClient(client)
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { consumer.Close() })
			if pc, err = consumer.ConsumePartition(topic, 0, sarama.OffsetOldest); err != nil {
				return nil, err
			}
			t.Cleanup(func() { pc.Close() })
		}
		select {
		case m := <-pc.Messages():
			return []string{string(m.Value)}, nil
		case err := <-pc.Errors():
			return nil, err
		case <-time.After(100 * time.Millisecond):
			return nil, nil
		}
	}
	reauthRun(t, send, poll, func() string { return fmt.Sprintf("%d dialled", dialer.dialled.Load()) },
		func() (int64, error) { return authentications.n.Load() - dialer.dialled.Load(), nil })
}
