//go:build security

package security

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

const franz = "franz-go"

func franzTLS(c *tls.Config) kgo.Opt {
	return kgo.Dialer((&tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: c}).DialContext)
}

func franzScram(pass string) kgo.Opt {
	return kgo.SASL(scram.Auth{User: cfg.Users["scram"].User, Pass: pass}.AsSha512Mechanism())
}

func franzPlain(pass string) kgo.Opt {
	return kgo.SASL(plain.Auth{User: cfg.Users["plain"].User, Pass: pass}.AsMechanism())
}

func franzOauth() sasl.Mechanism {
	return oauth.Auth{Token: unsecuredJWT(cfg.Users["oauth"].User)}.AsMechanism()
}

func franzRoundTrip(t *testing.T, bootstrap string, security ...kgo.Opt) {
	t.Helper()
	topic := topicName()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	producer, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.AllowAutoTopicCreation(),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.AllISRAcks())}, security...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	for _, v := range records {
		if err := producer.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatalf("produce: %s", errorChain(err))
		}
	}
	consumer, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}})}, security...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	var got []string
	for len(got) < len(records) {
		fetches := consumer.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read back %q before the deadline", got)
		}
		for _, fe := range fetches.Errors() {
			t.Fatalf("fetch: %s", errorChain(fe.Err))
		}
		fetches.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	if len(got) != len(records) || got[0] != records[0] || got[1] != records[1] || got[2] != records[2] {
		t.Fatalf("read back %q, want %q", got, records)
	}
}

// franzRefused sends one Metadata request, which must fail with an error for which want is
// true and whose message matches pattern.
func franzRefused(t *testing.T, bootstrap string, want func(error) bool, pattern string, security ...kgo.Opt) {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.RetryTimeout(3 * time.Second),
		kgo.RequestRetries(1)}, security...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	_, err = kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err == nil {
		t.Fatal("Metadata succeeded")
	}
	t.Logf("%s refused with %s", franz, errorChain(err))
	if !want(err) || !regexp.MustCompile(pattern).MatchString(err.Error()) {
		t.Fatalf("unexpected error: %s (want /%s/)", errorChain(err), pattern)
	}
}

func isSaslFailed(err error) bool { return errors.Is(err, kerr.SaslAuthenticationFailed) }

func isUnknownAuthority(err error) bool {
	var unknown x509.UnknownAuthorityError
	return errors.As(err, &unknown)
}

// isRemoteTLSAlert: the broker ended the handshake with an alert (crypto/tls's alert type is
// unexported; its message is "remote error: tls: <alert>").
func isRemoteTLSAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error" && strings.HasPrefix(op.Err.Error(), "tls: ")
}

func anyError(error) bool { return true }

func TestFranzSSL(t *testing.T) {
	matrix(t, franz, "ssl")
	franzRoundTrip(t, listener(t, "tls", "SSL"), franzTLS(tlsConfig(t, "ca.pem", "")))
}

func TestFranzMTLS(t *testing.T) {
	matrix(t, franz, "mtls")
	franzRoundTrip(t, listener(t, "tls", "MTLS"), franzTLS(tlsConfig(t, "ca.pem", "client")))
}

func TestFranzScramSHA512(t *testing.T) {
	matrix(t, franz, "scram-sha-512")
	franzRoundTrip(t, listener(t, "sasl", "SASL_SSL"), franzTLS(tlsConfig(t, "ca.pem", "")), franzScram(password("scram")))
}

func TestFranzScramSHA256(t *testing.T) {
	matrix(t, franz, "scram-sha-256")
	franzRoundTrip(t, listener(t, "sasl", "SASL_SSL"), franzTLS(tlsConfig(t, "ca.pem", "")),
		kgo.SASL(scram.Auth{User: cfg.Users["scram"].User, Pass: password("scram")}.AsSha256Mechanism()))
}

func TestFranzPlain(t *testing.T) {
	matrix(t, franz, "plain")
	franzRoundTrip(t, listener(t, "sasl", "SASL_PLAINTEXT"), franzPlain(password("plain")))
}

func TestFranzOauthbearer(t *testing.T) {
	matrix(t, franz, "oauthbearer")
	franzRoundTrip(t, listener(t, "oauth", "SASL_PLAINTEXT"), kgo.SASL(franzOauth()))
}

func TestFranzScramWrongPassword(t *testing.T) {
	matrix(t, franz, "scram-wrong-password")
	franzRefused(t, listener(t, "sasl", "SASL_SSL"), isSaslFailed,
		`SASL_AUTHENTICATION_FAILED: .*Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512`,
		franzTLS(tlsConfig(t, "ca.pem", "")), franzScram("wrong"))
}

func TestFranzPlainWrongPassword(t *testing.T) {
	matrix(t, franz, "plain-wrong-password")
	franzRefused(t, listener(t, "sasl", "SASL_PLAINTEXT"), isSaslFailed,
		`SASL_AUTHENTICATION_FAILED: .*Authentication failed: Invalid username or password`, franzPlain("wrong"))
}

func TestFranzUntrustedServer(t *testing.T) {
	matrix(t, franz, "untrusted-server")
	franzRefused(t, listener(t, "tls", "SSL"), isUnknownAuthority, `certificate signed by unknown authority`,
		franzTLS(tlsConfig(t, "untrusted-ca.pem", "")))
}

func TestFranzNoClientCert(t *testing.T) {
	matrix(t, franz, "no-client-cert")
	// Kafka (JSSE) sends bad_certificate; certificate_required is TLS 1.3's own alert for it.
	franzRefused(t, listener(t, "tls", "MTLS"), isRemoteTLSAlert, `remote error: tls: (bad certificate|certificate required)`,
		franzTLS(tlsConfig(t, "ca.pem", "")))
}

func TestFranzUntrustedClientCert(t *testing.T) {
	matrix(t, franz, "untrusted-client-cert")
	franzRefused(t, listener(t, "tls", "MTLS"), isRemoteTLSAlert, `remote error: tls: (bad certificate|unknown certificate authority|unknown certificate)`,
		franzTLS(tlsConfig(t, "ca.pem", "untrusted-client")))
}

func TestFranzPlaintextOnTLSPort(t *testing.T) {
	matrix(t, franz, "plaintext-on-tls-port")
	// Kafka's TLS listener answers with a TLS alert record, which franz-go recognises.
	franzRefused(t, listener(t, "tls", "SSL"), anyError, `tls alert record|EOF|connection reset`)
}

func TestFranzOauthbearerExpiredToken(t *testing.T) {
	matrix(t, franz, "oauthbearer-expired-token")
	// Kafka answers an invalid token with a challenge holding {"status":"invalid_token"}; franz-go
	// replies 0x01 (RFC 7628 3.2.2) and Kafka fails the authentication with that JSON as its message.
	expired := oauth.Auth{Token: unsecuredJWTExpiring(cfg.Users["oauth"].User, -time.Minute)}.AsMechanism()
	franzRefused(t, listener(t, "oauth", "SASL_PLAINTEXT"), isSaslFailed,
		`SASL_AUTHENTICATION_FAILED: .*\{"status":"invalid_token"\}`, kgo.SASL(expired))
}
