//go:build security

package security

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

const saramaClient = "sarama"

func saramaConfig(tlsConfig *tls.Config) *sarama.Config {
	c := sarama.NewConfig()
	c.Version = sarama.V3_0_0_0
	c.Net.DialTimeout = 5 * time.Second
	c.Metadata.Retry.Max = 1
	c.Metadata.Retry.Backoff = 200 * time.Millisecond
	if tlsConfig != nil {
		c.Net.TLS.Enable = true
		c.Net.TLS.Config = tlsConfig
	}
	return c
}

func saramaScram(c *sarama.Config, pass string) *sarama.Config {
	c.Net.SASL.Enable = true
	c.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512
	c.Net.SASL.User = cfg.Users["scram"].User
	c.Net.SASL.Password = pass
	c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: sha512.New} }
	return c
}

func saramaPlain(c *sarama.Config, pass string) *sarama.Config {
	c.Net.SASL.Enable = true
	c.Net.SASL.Mechanism = sarama.SASLTypePlaintext
	c.Net.SASL.User = cfg.Users["plain"].User
	c.Net.SASL.Password = pass
	return c
}

type unsecuredToken struct{ lifetime time.Duration }

func (u unsecuredToken) Token() (*sarama.AccessToken, error) {
	return &sarama.AccessToken{Token: unsecuredJWTExpiring(cfg.Users["oauth"].User, u.lifetime)}, nil
}

func saramaOauth(lifetime time.Duration) *sarama.Config {
	c := saramaConfig(nil)
	c.Net.SASL.Enable = true
	c.Net.SASL.Mechanism = sarama.SASLTypeOAuth
	c.Net.SASL.TokenProvider = unsecuredToken{lifetime}
	return c
}

func saramaRoundTrip(t *testing.T, bootstrap string, c *sarama.Config) {
	t.Helper()
	topic := topicName()
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Metadata.Retry.Max = 10
	producer, err := sarama.NewSyncProducer([]string{bootstrap}, c)
	if err != nil {
		t.Fatalf("producer: %s", errorChain(err))
	}
	for i, v := range records {
		_, offset, err := producer.SendMessage(&sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.StringEncoder(v)})
		if err != nil || offset != int64(i) {
			t.Fatalf("send %d: offset %d, %v", i, offset, err)
		}
	}
	if err := producer.Close(); err != nil {
		t.Fatal(err)
	}
	consumer, err := sarama.NewConsumer([]string{bootstrap}, c)
	if err != nil {
		t.Fatalf("consumer: %s", errorChain(err))
	}
	defer consumer.Close()
	pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	deadline := time.After(30 * time.Second)
	for i, want := range records {
		select {
		case m := <-pc.Messages():
			if string(m.Value) != want || m.Offset != int64(i) {
				t.Fatalf("read %q at %d, want %q at %d", m.Value, m.Offset, want, i)
			}
		case err := <-pc.Errors():
			t.Fatalf("consume: %v", err)
		case <-deadline:
			t.Fatalf("read %d of %d records before the deadline", i, len(records))
		}
	}
}

// saramaRefused: creating a client (which fetches Metadata) fails with an error for which want
// is true and whose message matches pattern.
func saramaRefused(t *testing.T, bootstrap string, c *sarama.Config, want func(error) bool, pattern string) {
	t.Helper()
	client, err := sarama.NewClient([]string{bootstrap}, c)
	if err == nil {
		client.Close()
		t.Fatal("the client connected")
	}
	t.Logf("%s refused with %s", saramaClient, errorChain(err))
	if !want(err) || !regexp.MustCompile(pattern).MatchString(err.Error()) {
		t.Fatalf("unexpected error: %s (want /%s/)", errorChain(err), pattern)
	}
}

func isSaramaSaslFailed(err error) bool { return errors.Is(err, sarama.ErrSASLAuthenticationFailed) }

func TestSaramaSSL(t *testing.T) {
	matrix(t, saramaClient, "ssl")
	saramaRoundTrip(t, listener(t, "tls", "SSL"), saramaConfig(tlsConfig(t, "ca.pem", "")))
}

func TestSaramaMTLS(t *testing.T) {
	matrix(t, saramaClient, "mtls")
	saramaRoundTrip(t, listener(t, "tls", "MTLS"), saramaConfig(tlsConfig(t, "ca.pem", "client")))
}

func TestSaramaScramSHA512(t *testing.T) {
	matrix(t, saramaClient, "scram-sha-512")
	saramaRoundTrip(t, listener(t, "sasl", "SASL_SSL"), saramaScram(saramaConfig(tlsConfig(t, "ca.pem", "")), password("scram")))
}

func TestSaramaScramSHA256(t *testing.T) {
	matrix(t, saramaClient, "scram-sha-256")
	c := saramaScram(saramaConfig(tlsConfig(t, "ca.pem", "")), password("scram"))
	c.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA256
	c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: sha256.New} }
	saramaRoundTrip(t, listener(t, "sasl", "SASL_SSL"), c)
}

func TestSaramaPlain(t *testing.T) {
	matrix(t, saramaClient, "plain")
	saramaRoundTrip(t, listener(t, "sasl", "SASL_PLAINTEXT"), saramaPlain(saramaConfig(nil), password("plain")))
}

func TestSaramaOauthbearer(t *testing.T) {
	matrix(t, saramaClient, "oauthbearer")
	saramaRoundTrip(t, listener(t, "oauth", "SASL_PLAINTEXT"), saramaOauth(time.Hour))
}

func TestSaramaOauthbearerExpiredToken(t *testing.T) {
	matrix(t, saramaClient, "oauthbearer-expired-token")
	// Kafka answers an invalid token with a challenge holding {"status":"invalid_token"}; sarama
	// replies with the four characters `\x01` (a Go raw string) instead of the byte 0x01, which
	// Kafka fails with its generic message.
	saramaRefused(t, listener(t, "oauth", "SASL_PLAINTEXT"), saramaOauth(-time.Minute), isSaramaSaslFailed,
		`Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER|invalid_token`)
}

func TestSaramaScramWrongPassword(t *testing.T) {
	matrix(t, saramaClient, "scram-wrong-password")
	saramaRefused(t, listener(t, "sasl", "SASL_SSL"), saramaScram(saramaConfig(tlsConfig(t, "ca.pem", "")), "wrong"),
		isSaramaSaslFailed, `Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512`)
}

func TestSaramaPlainWrongPassword(t *testing.T) {
	matrix(t, saramaClient, "plain-wrong-password")
	saramaRefused(t, listener(t, "sasl", "SASL_PLAINTEXT"), saramaPlain(saramaConfig(nil), "wrong"),
		isSaramaSaslFailed, `Authentication failed: Invalid username or password`)
}

func TestSaramaUntrustedServer(t *testing.T) {
	matrix(t, saramaClient, "untrusted-server")
	saramaRefused(t, listener(t, "tls", "SSL"), saramaConfig(tlsConfig(t, "untrusted-ca.pem", "")),
		isUnknownAuthority, `certificate signed by unknown authority`)
}

func TestSaramaNoClientCert(t *testing.T) {
	matrix(t, saramaClient, "no-client-cert")
	saramaRefused(t, listener(t, "tls", "MTLS"), saramaConfig(tlsConfig(t, "ca.pem", "")),
		isRemoteTLSAlert, `remote error: tls: (bad certificate|certificate required)`)
}

func TestSaramaUntrustedClientCert(t *testing.T) {
	matrix(t, saramaClient, "untrusted-client-cert")
	saramaRefused(t, listener(t, "tls", "MTLS"), saramaConfig(tlsConfig(t, "ca.pem", "untrusted-client")),
		isRemoteTLSAlert, `remote error: tls: (bad certificate|unknown certificate authority|unknown certificate)`)
}

func TestSaramaPlaintextOnTLSPort(t *testing.T) {
	matrix(t, saramaClient, "plaintext-on-tls-port")
	saramaRefused(t, listener(t, "tls", "SSL"), saramaConfig(nil), anyError, `EOF|connection reset`)
}

// scramClient is the SCRAM client sarama leaves to its user (RFC 5802; hash is SHA-256 or SHA-512).
type scramClient struct {
	hash                               func() hash.Hash
	user, pass, nonce, clientFirstBare string
	serverSignature                    []byte
	step                               int
	done                               bool
}

func (s *scramClient) Begin(user, pass, _ string) error {
	nonce := make([]byte, 24)
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	s.user, s.pass, s.nonce = user, pass, base64.RawStdEncoding.EncodeToString(nonce)
	escaped := strings.NewReplacer("=", "=3D", ",", "=2C").Replace(user)
	s.clientFirstBare = "n=" + escaped + ",r=" + s.nonce
	return nil
}

func (s *scramClient) Step(challenge string) (string, error) {
	s.step++
	switch s.step {
	case 1:
		return "n,," + s.clientFirstBare, nil
	case 2:
		attrs := map[string]string{}
		for _, kv := range strings.Split(challenge, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				attrs[k] = v
			}
		}
		salt, err := base64.StdEncoding.DecodeString(attrs["s"])
		if err != nil {
			return "", fmt.Errorf("scram: salt: %w", err)
		}
		iterations, err := strconv.Atoi(attrs["i"])
		if err != nil || !strings.HasPrefix(attrs["r"], s.nonce) {
			return "", fmt.Errorf("scram: bad server-first-message %q", challenge)
		}
		salted, err := pbkdf2.Key(s.hash, s.pass, salt, iterations, s.hash().Size())
		if err != nil {
			return "", err
		}
		mac := func(key []byte, msg string) []byte {
			h := hmac.New(s.hash, key)
			h.Write([]byte(msg))
			return h.Sum(nil)
		}
		clientKey := mac(salted, "Client Key")
		h := s.hash()
		h.Write(clientKey)
		storedKey := h.Sum(nil)
		withoutProof := "c=biws,r=" + attrs["r"]
		authMessage := s.clientFirstBare + "," + challenge + "," + withoutProof
		proof := mac(storedKey, authMessage)
		for i := range proof {
			proof[i] ^= clientKey[i]
		}
		s.serverSignature = mac(mac(salted, "Server Key"), authMessage)
		return withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof), nil
	default:
		if challenge != "v="+base64.StdEncoding.EncodeToString(s.serverSignature) {
			return "", fmt.Errorf("scram: server signature mismatch in %q", challenge)
		}
		s.done = true
		return "", nil
	}
}

func (s *scramClient) Done() bool { return s.done }
