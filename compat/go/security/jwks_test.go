//go:build security

package security

// The jwks group (KIP-768): OAUTHBEARER tokens the runner's identity provider signed, checked by
// the broker against its JWK set, with franz-go and sarama.

import (
	"testing"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
)

// The refusal of a token the broker's validator rejects: Kafka answers with a challenge holding
// {"status":"invalid_token"}, then fails the authentication (sarama's reply to the challenge
// draws Kafka's generic message instead).
const jwksRefusal = `invalid_token|Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER`

func franzBearer(kind string) kgo.Opt {
	return kgo.SASL(oauth.Auth{Token: cfg.JwksTokens[kind]}.AsMechanism())
}

type signedToken struct{ kind string }

func (s signedToken) Token() (*sarama.AccessToken, error) {
	return &sarama.AccessToken{Token: cfg.JwksTokens[s.kind]}, nil
}

func saramaBearer(kind string) *sarama.Config {
	c := saramaConfig(nil)
	c.Net.SASL.Enable = true
	c.Net.SASL.Mechanism = sarama.SASLTypeOAuth
	c.Net.SASL.TokenProvider = signedToken{kind}
	return c
}

func TestFranzJwks(t *testing.T) {
	matrix(t, franz, "jwks")
	franzRoundTrip(t, listener(t, "jwks", "SASL_PLAINTEXT"), franzBearer("valid"))
}

func TestFranzJwksExpiredToken(t *testing.T) {
	matrix(t, franz, "jwks-expired-token")
	franzRefused(t, listener(t, "jwks", "SASL_PLAINTEXT"), isSaslFailed, jwksRefusal, franzBearer("expired"))
}

func TestFranzJwksUntrustedKey(t *testing.T) {
	matrix(t, franz, "jwks-untrusted-key")
	franzRefused(t, listener(t, "jwks", "SASL_PLAINTEXT"), isSaslFailed, jwksRefusal, franzBearer("untrusted-key"))
}

func TestSaramaJwks(t *testing.T) {
	matrix(t, saramaClient, "jwks")
	saramaRoundTrip(t, listener(t, "jwks", "SASL_PLAINTEXT"), saramaBearer("valid"))
}

func TestSaramaJwksExpiredToken(t *testing.T) {
	matrix(t, saramaClient, "jwks-expired-token")
	saramaRefused(t, listener(t, "jwks", "SASL_PLAINTEXT"), saramaBearer("expired"), isSaramaSaslFailed, jwksRefusal)
}

func TestSaramaJwksUntrustedKey(t *testing.T) {
	matrix(t, saramaClient, "jwks-untrusted-key")
	saramaRefused(t, listener(t, "jwks", "SASL_PLAINTEXT"), saramaBearer("untrusted-key"), isSaramaSaslFailed, jwksRefusal)
}
