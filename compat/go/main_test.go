// Package compat runs Go Kafka clients (sarama, franz-go and its kadm admin package) against one
// broker started for the whole test binary (internal/broker, compat/README.md).
package compat

import (
	"fmt"
	"os"
	"testing"

	"strand.dev/compat/go/internal/broker"
)

// suiteBroker is the broker every test in this package talks to.
var suiteBroker *broker.Broker

func TestMain(m *testing.M) {
	b, err := broker.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	suiteBroker = b
	code := m.Run()
	b.Stop()
	os.Exit(code)
}
