package broker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A cluster's nodes are fenced after SessionTimeoutMs without a heartbeat (every
// HeartbeatIntervalMs), lowered from Kafka's 9 s and 2 s so that a killed broker's leaderships move
// within a test's patience; the same values as the Java suite's Cluster.java.
const (
	SessionTimeoutMs    = 2000
	HeartbeatIntervalMs = 250
	clusterStopGrace    = 5 * time.Second
	clusterTailLines    = 40
)

// Cluster is a cluster of its own for one test, mirroring the Java suite's Cluster.java: size
// nodes, each broker and controller (KRaft combined mode), the controllers a static quorum
// (controller.quorum.voters), on free loopback ports, each with a data dir and stdout/stderr of its
// own under one run directory ($TMPDIR/strand-compat-go-cluster-XXXX/node-<id>/). Strand or Apache
// Kafka 4.4.0 as STRAND_COMPAT_BROKER says: Strand's nodes get their settings as --overrides and
// format their empty data dirs themselves with cluster.id; Kafka's get the shared
// compat/broker/kafka-server.properties with the keys a cluster needs replaced and their storage
// formatted with one cluster id.
//
// StartCluster returns once every node serves Metadata listing all of them; Kill is SIGKILL; Stop
// stops every node (SIGTERM to all, SIGKILL after 5 s) and deletes the run directory (kept with
// STRAND_COMPAT_KEEP_DIR=1). Nodes are started with a parent-death signal, and SIGINT or SIGTERM to
// the test binary kills them.
type Cluster struct {
	Kind    string
	runDir  string
	nodes   []*Node
	mu      sync.Mutex // guards the nodes' processes against the signal handler
	signals chan os.Signal
	unhook  sync.Once
}

// Node is one member of a Cluster.
type Node struct {
	ID             int
	Port           int
	controllerPort int
	dir            string
	command        []string
	cmd            *exec.Cmd
	exited         chan struct{}
}

// Bootstrap is "127.0.0.1:<port>".
func (n *Node) Bootstrap() string { return "127.0.0.1:" + strconv.Itoa(n.Port) }

func (n *Node) running() bool {
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.exited:
		return false
	default:
		return true
	}
}

// StartCluster starts size nodes (ids 1..size) and waits until each serves Metadata listing all.
func StartCluster(size int) (*Cluster, error) {
	return StartClusterWith(size, func(int) map[string]string { return nil })
}

// StartClusterWith is StartCluster, node id also with the settings nodeSettings(id) (broker.rack,
// say), on Strand and Kafka alike.
func StartClusterWith(size int, nodeSettings func(id int) map[string]string) (*Cluster, error) {
	kind := os.Getenv("STRAND_COMPAT_BROKER")
	if kind == "" {
		kind = "strand"
	}
	if kind != "strand" && kind != "kafka" {
		return nil, fmt.Errorf("STRAND_COMPAT_BROKER must be 'strand' or 'kafka', not %q", kind)
	}
	runDir, err := os.MkdirTemp("", "strand-compat-go-cluster-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Kind: kind, runDir: runDir}
	c.stopOnSignal()
	if err := c.prepareAndLaunch(repoRoot(), size, nodeSettings); err != nil {
		c.Stop()
		return nil, err
	}
	timeout := startTimeout(kind)
	for _, node := range c.nodes {
		if err := c.awaitServing(node, timeout); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

func (c *Cluster) prepareAndLaunch(repo string, size int, nodeSettings func(id int) map[string]string) error {
	taken := map[int]bool{}
	port := func() (int, error) {
		for {
			p, err := freePort()
			if err != nil || !taken[p] {
				taken[p] = true
				return p, err
			}
		}
	}
	var voters []string
	for id := 1; id <= size; id++ {
		dir := filepath.Join(c.runDir, fmt.Sprintf("node-%d", id))
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
			return err
		}
		clientPort, err := port()
		if err != nil {
			return err
		}
		controllerPort, err := port()
		if err != nil {
			return err
		}
		c.nodes = append(c.nodes, &Node{ID: id, Port: clientPort, controllerPort: controllerPort, dir: dir})
		voters = append(voters, fmt.Sprintf("%d@127.0.0.1:%d", id, controllerPort))
	}
	clusterID := clusterID()
	for _, node := range c.nodes {
		own := sortedSettings(nodeSettings(node.ID))
		if c.Kind == "strand" {
			node.command = strandClusterCommand(repo, node, strings.Join(voters, ","), clusterID, own)
		} else {
			command, err := kafkaClusterCommand(repo, node, strings.Join(voters, ","), clusterID, own)
			if err != nil {
				return err
			}
			node.command = command
		}
	}
	// Every voter must run before any can serve: launch all, then wait for each.
	for _, node := range c.nodes {
		if err := c.launch(node); err != nil {
			return err
		}
	}
	return nil
}

// sortedSettings is settings as key=value pairs in key order.
func sortedSettings(settings map[string]string) [][2]string {
	var pairs [][2]string
	for key, value := range settings {
		pairs = append(pairs, [2]string{key, value})
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	return pairs
}

func strandClusterCommand(repo string, node *Node, voters, clusterID string, own [][2]string) []string {
	bin := os.Getenv("STRAND_BIN")
	if bin == "" {
		bin = "target/release/strand"
	}
	if !filepath.IsAbs(bin) {
		bin = filepath.Join(repo, bin)
	}
	command := []string{bin, "server"}
	for _, setting := range []string{
		fmt.Sprintf("node.id=%d", node.ID),
		"process.roles=broker,controller",
		fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", node.Port, node.controllerPort),
		fmt.Sprintf("advertised.listeners=PLAINTEXT://127.0.0.1:%d", node.Port),
		"controller.listener.names=CONTROLLER",
		"controller.quorum.voters=" + voters,
		"cluster.id=" + clusterID,
		"log.dirs=" + filepath.Join(node.dir, "data"),
		fmt.Sprintf("broker.session.timeout.ms=%d", SessionTimeoutMs),
		fmt.Sprintf("broker.heartbeat.interval.ms=%d", HeartbeatIntervalMs),
		// As the suite's single broker is started (compat/README.md, the launcher contract).
		"group.initial.rebalance.delay.ms=0",
		"group.consumer.heartbeat.interval.ms=500",
		"group.consumer.min.heartbeat.interval.ms=500",
		// No metrics listener: three nodes would all take the default localhost:8080.
		"http.listeners=",
	} {
		command = append(command, "--override", setting)
	}
	for _, setting := range own {
		command = append(command, "--override", setting[0]+"="+setting[1])
	}
	return command
}

// Log is what node id has written to its stderr so far (Strand logs there).
func (c *Cluster) Log(id int) (string, error) {
	text, err := os.ReadFile(filepath.Join(c.nodes[id-1].dir, "stderr"))
	return string(text), err
}

// kafkaClusterCommand writes the node's server.properties (the shared one-node template with its
// placeholders substituted and the keys a cluster needs replaced, as Cluster.java does) and
// formats its data dir with the cluster's id.
func kafkaClusterCommand(repo string, node *Node, voters, clusterID string, own [][2]string) ([]string, error) {
	replaced := [][2]string{
		{"node.id", strconv.Itoa(node.ID)},
		{"controller.quorum.voters", voters},
		{"broker.session.timeout.ms", strconv.Itoa(SessionTimeoutMs)},
		{"broker.heartbeat.interval.ms", strconv.Itoa(HeartbeatIntervalMs)},
		// Kafka's own defaults, which the one-node template lowers to 1.
		{"offsets.topic.replication.factor", "3"},
		{"transaction.state.log.replication.factor", "3"},
		{"transaction.state.log.min.isr", "2"},
		{"share.coordinator.state.topic.replication.factor", "3"},
		{"share.coordinator.state.topic.min.isr", "2"},
	}
	replaced = append(replaced, own...)
	template, err := os.ReadFile(filepath.Join(repo, "compat/broker/kafka-server.properties"))
	if err != nil {
		return nil, err
	}
	text := strings.NewReplacer("@PORT@", strconv.Itoa(node.Port), "@CONTROLLER_PORT@", strconv.Itoa(node.controllerPort),
		"@LOG_DIRS@", filepath.Join(node.dir, "data")).Replace(string(template))
	var properties strings.Builder
	for _, line := range strings.Split(text, "\n") {
		keep := true
		if key, _, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			for _, r := range replaced {
				if strings.TrimSpace(key) == r[0] {
					keep = false
				}
			}
		}
		if keep {
			properties.WriteString(line + "\n")
		}
	}
	fmt.Fprintf(&properties, "# compat/go cluster: node %d of a cluster\n", node.ID)
	for _, r := range replaced {
		fmt.Fprintf(&properties, "%s=%s\n", r[0], r[1])
	}
	path := filepath.Join(node.dir, "server.properties")
	if err := os.WriteFile(path, []byte(properties.String()), 0o644); err != nil {
		return nil, err
	}
	java := javaCommand(repo)
	format := append(append([]string{}, java...), "kafka.tools.StorageTool", "format", "-t", clusterID, "-c", path)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, format[0], format[1:]...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("compat: formatting Kafka's storage failed (%v): %s\n%s", err, strings.Join(format, " "), out)
	}
	return append(append([]string{}, java...), "kafka.Kafka", path), nil
}

func (c *Cluster) launch(node *Node) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	stdout, stderr := filepath.Join(node.dir, "stdout"), filepath.Join(node.dir, "stderr")
	cmd, done, err := startLogged(node.command, stdout, stderr, false)
	if err != nil {
		return fmt.Errorf("compat: cannot start %s cluster node %d %q: %w", c.Kind, node.ID, node.command[0], err)
	}
	exited := make(chan struct{})
	node.cmd, node.exited = cmd, exited
	go func() {
		<-done
		close(exited)
	}()
	return nil
}

// awaitServing waits until node's port accepts connections and a Metadata request sent to it
// alone lists every node of the cluster.
func (c *Cluster) awaitServing(node *Node, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !accepts(node.Port) {
		if !node.running() {
			return c.notReady(node, "exited before it was ready")
		}
		if time.Now().After(deadline) {
			return c.notReady(node, fmt.Sprintf("was not ready after %s (its port never accepted a connection)", timeout))
		}
		time.Sleep(100 * time.Millisecond)
	}
	client, err := kgo.NewClient(kgo.SeedBrokers(node.Bootstrap()), kgo.RequestRetries(0),
		kgo.RetryTimeout(2*time.Second), kgo.DialTimeout(2*time.Second))
	if err != nil {
		return err
	}
	defer client.Close()
	last := errors.New("no Metadata answer")
	for time.Now().Before(deadline) {
		if !node.running() {
			return c.notReady(node, "exited before it was ready")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		// Straight to this node: a Metadata request on the client would go to any broker it knows.
		resp, err := client.SeedBrokers()[0].Request(ctx, kmsg.NewPtrMetadataRequest())
		cancel()
		if err == nil {
			var listed []int
			for _, b := range resp.(*kmsg.MetadataResponse).Brokers {
				listed = append(listed, int(b.NodeID))
			}
			sort.Ints(listed)
			if len(listed) == len(c.nodes) {
				return nil
			}
			err = fmt.Errorf("it listed nodes %v", listed)
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return c.notReady(node, fmt.Sprintf("did not list all %d nodes within %s (%v)", len(c.nodes), timeout, last))
}

func (c *Cluster) notReady(node *Node, what string) error {
	return fmt.Errorf("compat: %s cluster node %d %s\ncommand: %s\n%s", c.Kind, node.ID, what,
		strings.Join(node.command, " "), c.Tails())
}

// Bootstrap lists every node's address: clients find a live one when one is down.
func (c *Cluster) Bootstrap() []string {
	var seeds []string
	for _, node := range c.nodes {
		seeds = append(seeds, node.Bootstrap())
	}
	return seeds
}

// Kill sends SIGKILL to node id and waits for its exit; it returns the time the exit was seen.
func (c *Cluster) Kill(id int) (time.Time, error) {
	node := c.nodes[id-1]
	if !node.running() {
		return time.Time{}, fmt.Errorf("node %d is not running", id)
	}
	c.mu.Lock()
	err := node.cmd.Process.Kill()
	c.mu.Unlock()
	if err != nil {
		return time.Time{}, err
	}
	select {
	case <-node.exited:
	case <-time.After(clusterStopGrace):
		return time.Time{}, fmt.Errorf("node %d did not exit after SIGKILL", id)
	}
	dead := time.Now()
	mark(node, fmt.Sprintf("--- compat: node %d killed with SIGKILL at %s ---\n", id, dead.Format(time.RFC3339Nano)))
	return dead, nil
}

// Tails is the last lines of every node's stderr (Strand logs there) and stdout, for failure
// messages.
func (c *Cluster) Tails() string {
	var out strings.Builder
	for _, node := range c.nodes {
		state := ""
		if !node.running() {
			state = " (not running)"
		}
		fmt.Fprintf(&out, "--- node %d%s: last %d lines of stderr (%s) ---\n%s", node.ID, state, clusterTailLines,
			filepath.Join(node.dir, "stderr"), tailFile(filepath.Join(node.dir, "stderr"), clusterTailLines))
		fmt.Fprintf(&out, "--- node %d: last %d lines of stdout ---\n%s", node.ID, clusterTailLines,
			tailFile(filepath.Join(node.dir, "stdout"), clusterTailLines))
	}
	return out.String()
}

// Stop stops every node (SIGTERM to all at once, SIGKILL after 5 s) and deletes the run
// directory, unless STRAND_COMPAT_KEEP_DIR=1. It is safe to call more than once.
func (c *Cluster) Stop() {
	c.unhook.Do(func() {
		signal.Stop(c.signals)
		close(c.signals)
	})
	c.mu.Lock()
	for _, node := range c.nodes {
		if node.running() {
			_ = node.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	c.mu.Unlock()
	grace := time.After(clusterStopGrace)
	for _, node := range c.nodes {
		if node.cmd == nil {
			continue
		}
		select {
		case <-node.exited:
		case <-grace:
			fmt.Fprintf(os.Stderr, "compat: cluster node %d did not stop within %s of SIGTERM; killing it\n", node.ID, clusterStopGrace)
			_ = node.cmd.Process.Kill()
			<-node.exited
		}
	}
	if os.Getenv("STRAND_COMPAT_KEEP_DIR") == "1" {
		fmt.Fprintf(os.Stderr, "compat: cluster run directory kept: %s\n", c.runDir)
		return
	}
	_ = os.RemoveAll(c.runDir)
}

// stopOnSignal makes SIGINT and SIGTERM (Ctrl-C, run.sh's timeout) kill every node at once and
// delete the run directory before the test binary exits. (The suite broker's handler may exit the
// process first: the nodes' parent-death signal kills them then.)
func (c *Cluster) stopOnSignal() {
	c.signals = make(chan os.Signal, 1)
	signal.Notify(c.signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig, ok := <-c.signals
		if !ok {
			return
		}
		c.mu.Lock()
		for _, node := range c.nodes {
			if node.running() {
				_ = node.cmd.Process.Kill()
				<-node.exited
			}
		}
		c.mu.Unlock()
		if os.Getenv("STRAND_COMPAT_KEEP_DIR") != "1" {
			_ = os.RemoveAll(c.runDir)
		}
		fmt.Fprintf(os.Stderr, "compat: %v: cluster killed\n", sig)
		os.Exit(1)
	}()
}

func mark(node *Node, marker string) {
	for _, name := range []string{"stdout", "stderr"} {
		if f, err := os.OpenFile(filepath.Join(node.dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			_, _ = f.WriteString(marker)
			f.Close()
		}
	}
}

func tailFile(path string, count int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(unreadable: %v)\n", err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > count+1 {
		lines = lines[len(lines)-count-1:]
	}
	return strings.Join(lines, "")
}
