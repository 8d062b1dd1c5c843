//go:build security

// Package security holds the security suite's Go clients (compat/security/README.md): franz-go
// and sarama over SSL, mTLS, SASL_SSL SCRAM-SHA-512, SASL_PLAINTEXT PLAIN and OAUTHBEARER
// (unsecured), and the ways each must fail. It is built only with -tags security, by
// compat/security/run.py, against the brokers STRAND_SEC_CONFIG describes; the go suite's
// `go test ./...` skips it.
package security

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// records is what every round trip produces to partition 0 of a new topic and reads back.
var records = []string{"secured-0", "secured-1", "secured-2"}

type group struct {
	Listeners map[string]string `json:"listeners"`
	Error     *string           `json:"error"`
	ErrorLine *string           `json:"error_line"`
}

type user struct {
	User     string  `json:"user"`
	Password *string `json:"password"`
}

type config struct {
	Certs   map[string]string `json:"certs"`
	Users   map[string]user   `json:"users"`
	Groups  map[string]group  `json:"groups"`
	Results string            `json:"results"`
	// ReauthMs is the REAUTH listener's connections.max.reauth.ms.
	ReauthMs int64 `json:"reauth_ms"`
	// JwksTokens are the jwks group's tokens, signed by the runner's identity provider, by kind:
	// valid, expired, untrusted-key, wrong-audience.
	JwksTokens map[string]string `json:"jwks_tokens"`
}

var (
	cfg       config
	resultsMu sync.Mutex
	details   = map[string]string{} // test name -> why it failed, for the matrix (under resultsMu)
)

func TestMain(m *testing.M) {
	path := os.Getenv("STRAND_SEC_CONFIG")
	if path == "" {
		fmt.Fprintln(os.Stderr, "STRAND_SEC_CONFIG is not set: run this through compat/run.sh security")
		os.Exit(2)
	}
	raw, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(raw, &cfg)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "reading %s: %v\n", path, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// matrix records the test's outcome as client/case in the runner's results file when it ends.
func matrix(t *testing.T, client, name string) {
	t.Helper()
	t.Cleanup(func() {
		resultsMu.Lock()
		defer resultsMu.Unlock()
		outcome, detail := "PASS", ""
		if t.Failed() {
			outcome, detail = "FAIL", details[t.Name()]
			if detail == "" {
				detail = "see the go test output"
			}
		}
		f, err := os.OpenFile(cfg.Results, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Errorf("results file: %v", err)
			return
		}
		defer f.Close()
		fmt.Fprintf(f, "%s\t%s\t%s\t%s\n", client, name, outcome, detail)
	})
}

// listener is a group's listener address; the test fails with the broker's startup error if
// that group's broker did not start.
func listener(t *testing.T, groupName, name string) string {
	t.Helper()
	g := cfg.Groups[groupName]
	if g.Error != nil {
		resultsMu.Lock()
		details[t.Name()] = fmt.Sprintf("the %s group's broker did not start: %s", groupName, *g.ErrorLine)
		resultsMu.Unlock()
		t.Fatalf("the %s group's broker did not start: %s\n%s", groupName, *g.ErrorLine, *g.Error)
	}
	return g.Listeners[name]
}

func password(kind string) string { return *cfg.Users[kind].Password }

// tlsConfig trusts caFile and, if certName is set, presents <certName>.pem/.key.
func tlsConfig(t *testing.T, caFile, certName string) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(cfg.Certs[caFile])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", caFile)
	}
	c := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	if certName != "" {
		pair, err := tls.LoadX509KeyPair(cfg.Certs[certName+".pem"], cfg.Certs[certName+".key"])
		if err != nil {
			t.Fatal(err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c
}

// unsecuredJWT is a token Kafka's unsecured OAUTHBEARER validator accepts (alg none, sub).
func unsecuredJWT(subject string) string { return unsecuredJWTExpiring(subject, time.Hour) }

// unsecuredJWTExpiring is an unsecured token expiring after lifetime (expired if negative).
func unsecuredJWTExpiring(subject string, lifetime time.Duration) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now()
	claims := map[string]any{"sub": subject, "iat": now.Add(min(lifetime, 0) - time.Minute).Unix(), "exp": now.Add(lifetime).Unix()}
	return enc(map[string]string{"alg": "none"}) + "." + enc(claims) + "."
}

func topicName() string { return fmt.Sprintf("sec-%d", time.Now().UnixNano()) }

// errorChain is err's message and the types in its wrap chain, for failure messages.
func errorChain(err error) string {
	var parts []string
	for e := err; e != nil; {
		parts = append(parts, fmt.Sprintf("%T", e))
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	return fmt.Sprintf("%v (%s)", err, strings.Join(parts, " > "))
}
