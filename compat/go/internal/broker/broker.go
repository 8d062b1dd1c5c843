// Package broker starts and stops the broker a Go compatibility suite runs against, as
// compat/README.md ("The launcher contract") says: Strand (STRAND_COMPAT_BROKER=strand, the
// default) or Apache Kafka 4.4.0 from target/kafka-libs (kafka), on free loopback ports, with a
// fresh temporary run directory holding its data dir and its stdout/stderr.
//
// Start returns once the port accepts connections and a Metadata request lists a broker, or an
// error carrying the broker's stderr; Stop sends SIGTERM, then SIGKILL after 15 s, and deletes the
// run directory. A suite calls both from TestMain.
package broker

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// NodeID is the node id both brokers are started with.
const NodeID = 1

const (
	stopGrace      = 15 * time.Second
	stderrTailSize = 60
)

// Broker is a running broker process.
type Broker struct {
	Kind    string // "strand" or "kafka"
	Port    int
	runDir  string
	command []string
	mu      sync.Mutex // guards cmd against the signal handler
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

// Bootstrap is "127.0.0.1:<port>", for a client's seed brokers.
func (b *Broker) Bootstrap() string { return "127.0.0.1:" + strconv.Itoa(b.Port) }

// Start starts the broker selected by the environment and waits until it serves Metadata.
func Start() (*Broker, error) {
	kind := os.Getenv("STRAND_COMPAT_BROKER")
	if kind == "" {
		kind = "strand"
	}
	if kind != "strand" && kind != "kafka" {
		return nil, fmt.Errorf("STRAND_COMPAT_BROKER must be 'strand' or 'kafka', not %q", kind)
	}
	repo := repoRoot()
	runDir, err := os.MkdirTemp("", "strand-compat-go-")
	if err != nil {
		return nil, err
	}
	b := &Broker{Kind: kind, runDir: runDir, exited: make(chan struct{})}
	b.stopOnSignal()
	if err := b.prepareAndLaunch(repo); err != nil {
		b.Stop()
		return nil, err
	}
	if err := b.awaitReady(startTimeout(kind)); err != nil {
		b.Stop()
		return nil, err
	}
	return b, nil
}

func (b *Broker) prepareAndLaunch(repo string) error {
	dataDir := filepath.Join(b.runDir, "data")
	if err := os.Mkdir(dataDir, 0o755); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	b.Port = port
	if b.Kind == "strand" {
		b.command = strandCommand(repo, port, dataDir)
	} else if b.command, err = kafkaCommand(repo, b.runDir, port, dataDir); err != nil {
		return err
	}
	return b.launch()
}

func (b *Broker) launch() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	stdout, stderr := filepath.Join(b.runDir, "broker.stdout"), filepath.Join(b.runDir, "broker.stderr")
	cmd, done, err := startLogged(b.command, stdout, stderr, true)
	if err != nil {
		return fmt.Errorf("compat: cannot start %s broker %q: %w", b.Kind, b.command[0], err)
	}
	b.cmd = cmd
	go func() {
		b.waitErr = <-done
		close(b.exited)
	}()
	return nil
}

func (b *Broker) awaitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !accepts(b.Port) {
		if err := b.checkAlive(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return b.notReady(fmt.Sprintf("was not ready after %s (its port never accepted a connection)", timeout))
		}
		time.Sleep(100 * time.Millisecond)
	}
	client, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap()), kgo.RequestRetries(0),
		kgo.RetryTimeout(2*time.Second), kgo.DialTimeout(2*time.Second))
	if err != nil {
		return err
	}
	defer client.Close()
	lastErr := errors.New("no Metadata answer")
	for time.Now().Before(deadline) {
		if err := b.checkAlive(); err != nil {
			return err
		}
		if lastErr = metadataListsABroker(client); lastErr == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return b.notReady(fmt.Sprintf("was not ready after %s (port open, Metadata failed: %v)", timeout, lastErr))
}

func metadataListsABroker(client *kgo.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, client)
	if err != nil {
		return err
	}
	if len(resp.Brokers) == 0 {
		return errors.New("Metadata listed no broker")
	}
	return nil
}

func (b *Broker) checkAlive() error {
	select {
	case <-b.exited:
		how := "exited"
		if b.cmd.ProcessState != nil {
			how = "exited with " + b.cmd.ProcessState.String()
		}
		return b.notReady(how + " before it was ready")
	default:
		return nil
	}
}

func (b *Broker) notReady(what string) error {
	return fmt.Errorf("compat: %s broker %s\ncommand: %s\n--- last %d lines of its stderr ---\n%s--- last %d lines of its stdout ---\n%s",
		b.Kind, what, strings.Join(b.command, " "), stderrTailSize, b.tail("broker.stderr"),
		stderrTailSize, b.tail("broker.stdout"))
}

func (b *Broker) tail(name string) string {
	data, err := os.ReadFile(filepath.Join(b.runDir, name))
	if err != nil {
		return fmt.Sprintf("(unreadable: %v)\n", err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > stderrTailSize+1 {
		lines = lines[len(lines)-stderrTailSize-1:]
	}
	return strings.Join(lines, "")
}

// stopOnSignal makes SIGINT and SIGTERM (Ctrl-C, run.sh's timeout) kill the broker at once and
// delete its run directory before the test binary exits, also while Start is still waiting.
func (b *Broker) stopOnSignal() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-signals
		b.mu.Lock()
		if b.cmd != nil && b.cmd.Process != nil {
			_ = b.cmd.Process.Kill()
			<-b.exited
		}
		if os.Getenv("STRAND_COMPAT_KEEP_DIR") != "1" {
			_ = os.RemoveAll(b.runDir)
		}
		fmt.Fprintf(os.Stderr, "compat: %v: broker killed\n", sig)
		os.Exit(1)
	}()
}

// Stop stops the broker (SIGTERM, SIGKILL after 15 s) and deletes its run directory, unless
// STRAND_COMPAT_KEEP_DIR=1. It is safe to call more than once.
func (b *Broker) Stop() {
	if b.cmd != nil && b.cmd.Process != nil {
		_ = b.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-b.exited:
		case <-time.After(stopGrace):
			fmt.Fprintf(os.Stderr, "compat: broker did not stop within %s of SIGTERM; killing it\n", stopGrace)
			_ = b.cmd.Process.Kill()
			<-b.exited
		}
	}
	if os.Getenv("STRAND_COMPAT_KEEP_DIR") == "1" {
		fmt.Fprintf(os.Stderr, "compat: broker run directory kept: %s\n", b.runDir)
		return
	}
	_ = os.RemoveAll(b.runDir)
}

func strandCommand(repo string, port int, dataDir string) []string {
	bin := os.Getenv("STRAND_BIN")
	if bin == "" {
		bin = "target/release/strand"
	}
	if !filepath.IsAbs(bin) {
		bin = filepath.Join(repo, bin)
	}
	listener := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", port)
	return []string{bin, "server",
		"--override", fmt.Sprintf("node.id=%d", NodeID),
		"--override", "listeners=" + listener,
		"--override", "advertised.listeners=" + listener,
		"--override", "log.dirs=" + dataDir,
		"--override", "group.initial.rebalance.delay.ms=0",
		"--override", "group.consumer.heartbeat.interval.ms=500",
		"--override", "group.consumer.min.heartbeat.interval.ms=500",
		"--override", "http.listeners="}
}

// kafkaCommand writes server.properties from the shared template and formats the data dir.
func kafkaCommand(repo, runDir string, port int, dataDir string) ([]string, error) {
	controllerPort, err := freePort()
	for err == nil && controllerPort == port {
		controllerPort, err = freePort()
	}
	if err != nil {
		return nil, err
	}
	template, err := os.ReadFile(filepath.Join(repo, "compat/broker/kafka-server.properties"))
	if err != nil {
		return nil, err
	}
	properties := filepath.Join(runDir, "server.properties")
	text := strings.NewReplacer("@PORT@", strconv.Itoa(port), "@CONTROLLER_PORT@", strconv.Itoa(controllerPort),
		"@LOG_DIRS@", dataDir).Replace(string(template))
	if err := os.WriteFile(properties, []byte(text), 0o644); err != nil {
		return nil, err
	}
	java := javaCommand(repo)
	format := append(append([]string{}, java...), "kafka.tools.StorageTool", "format", "-t", clusterID(), "-c", properties)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, format[0], format[1:]...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("compat: formatting Kafka's storage failed (%v): %s\n%s", err, strings.Join(format, " "), out)
	}
	return append(append([]string{}, java...), "kafka.Kafka", properties), nil
}

func javaCommand(repo string) []string {
	java := "java"
	if home := os.Getenv("JAVA_HOME"); home != "" {
		java = filepath.Join(home, "bin", "java")
	}
	libs := os.Getenv("STRAND_KAFKA_LIBS")
	if libs == "" {
		libs = "target/kafka-libs"
	}
	if !filepath.IsAbs(libs) {
		libs = filepath.Join(repo, libs)
	}
	return []string{java, "-Xms256m", "-Xmx1g",
		"-Dlog4j2.configurationFile=" + filepath.Join(repo, "compat/kafka/log4j2.properties"),
		"-cp", libs + "/*"}
}

// clusterID is a random Kafka Uuid in its base64 form; like Kafka's Uuid.randomUuid it never
// starts with '-', which a command line would take for an option.
func clusterID() string {
	for {
		var raw [16]byte
		_, _ = rand.Read(raw[:])
		id := base64.RawURLEncoding.EncodeToString(raw[:])
		if !strings.HasPrefix(id, "-") {
			return id
		}
	}
}

func accepts(port int) bool {
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

func freePort() (int, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer listener.Close()
	return listener.Addr().(*net.TCPAddr).Port, nil
}

func startTimeout(kind string) time.Duration {
	if value := os.Getenv("STRAND_COMPAT_START_TIMEOUT_S"); value != "" {
		if seconds, err := strconv.Atoi(value); err == nil {
			return time.Duration(seconds) * time.Second
		}
	}
	if kind == "strand" {
		return 20 * time.Second
	}
	return 90 * time.Second
}

// repoRoot is four levels above this file: compat/go/internal/broker/broker.go.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", "..", ".."))
}
