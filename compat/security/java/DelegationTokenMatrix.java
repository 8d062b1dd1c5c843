// kafka-clients 4.4.0 (target/kafka-libs) with delegation tokens (KIP-48) on the sasl group's
// broker (delegation.token.secret.key set): alice, over SASL_SSL SCRAM-SHA-512, creates a token
// with the Admin client; a client authenticating with the token (ScramLoginModule, username the
// token id, password its HMAC, tokenauth="true") produces and consumes with both SCRAM
// mechanisms; the token is described by owner, renewed, refused to a user who is neither owner
// nor renewer, and expired, after which the token client is refused; a token-authenticated
// Admin and a PLAINTEXT one may not create tokens.
//
// Run by ../run.py as a single-file program (java -cp 'target/kafka-libs/*'
// DelegationTokenMatrix.java) against the brokers STRAND_SEC_CONFIG describes; each case appends
// its outcome to the results file, and the exit status is 1 if any failed. The cases run in
// order and share one token: a failed case fails those after it too.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.admin.DescribeDelegationTokenOptions;
import org.apache.kafka.clients.admin.ExpireDelegationTokenOptions;
import org.apache.kafka.clients.admin.RenewDelegationTokenOptions;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.DelegationTokenNotFoundException;
import org.apache.kafka.common.errors.DelegationTokenOwnerMismatchException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedByAuthenticationException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class DelegationTokenMatrix {
    static final String CLIENT = "kafka-clients";
    static final List<String> RECORDS = List.of("token-0", "token-1", "token-2");
    static JsonNode config;
    static int failures;
    static DelegationToken token;

    interface Case {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        config = new ObjectMapper().readTree(Path.of(System.getenv("STRAND_SEC_CONFIG")).toFile());
        run("token-create-describe", DelegationTokenMatrix::createAndDescribe);
        run("token-auth-sha-512", () -> roundTrip(tokenAuth("SCRAM-SHA-512")));
        run("token-auth-sha-256", () -> roundTrip(tokenAuth("SCRAM-SHA-256")));
        run("token-auth-create-refused", DelegationTokenMatrix::tokenAuthenticatedRefused);
        run("token-plaintext-create-refused", DelegationTokenMatrix::plaintextRefused);
        run("token-renew", DelegationTokenMatrix::renew);
        run("token-renew-owner-mismatch", DelegationTokenMatrix::ownerMismatch);
        run("token-expire", DelegationTokenMatrix::expire);
        System.exit(failures == 0 ? 0 : 1);
    }

    /** alice creates a token; describing alice's tokens shows it, someone else's does not. */
    static void createAndDescribe() throws Exception {
        try (Admin admin = admin(listener("sasl", "SASL_SSL"), alice())) {
            token = admin.createDelegationToken(new CreateDelegationTokenOptions()).delegationToken()
                    .get(30, TimeUnit.SECONDS);
            var info = token.tokenInfo();
            check(info.owner().equals(aliceP()) && info.tokenRequester().equals(aliceP()),
                    "owner and requester " + info.owner() + ", " + info.tokenRequester());
            check(token.hmac().length == 64, "an HmacSHA512 of " + token.hmac().length + " bytes");
            check(info.issueTimestamp() <= info.expiryTimestamp() && info.expiryTimestamp() <= info.maxTimestamp(),
                    "timestamps " + info.issueTimestamp() + " " + info.expiryTimestamp() + " " + info.maxTimestamp());
            // Kafka answers the creation once the controller commits it; its broker's token cache
            // may learn of it a moment later (Strand answers once its image holds it).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                List<DelegationToken> mine = admin.describeDelegationToken(new DescribeDelegationTokenOptions()
                        .owners(List.of(aliceP()))).delegationTokens().get(30, TimeUnit.SECONDS);
                if (mine.stream().anyMatch(t -> t.tokenInfo().tokenId().equals(info.tokenId())
                        && java.util.Arrays.equals(t.hmac(), token.hmac()))) {
                    break;
                }
                check(System.nanoTime() < deadline, "alice's tokens " + mine);
                Thread.sleep(200);
            }
            List<DelegationToken> others = admin.describeDelegationToken(new DescribeDelegationTokenOptions()
                    .owners(List.of(new KafkaPrincipal("User", "nobody")))).delegationTokens().get(30, TimeUnit.SECONDS);
            check(others.isEmpty(), "nobody's tokens " + others);
        }
    }

    /** An Admin authenticated by the token may neither create nor renew a token. */
    static void tokenAuthenticatedRefused() throws Exception {
        try (Admin admin = admin(listener("sasl", "SASL_SSL"), tokenAuth("SCRAM-SHA-512"))) {
            expectFailure(admin.createDelegationToken().delegationToken(), UnsupportedByAuthenticationException.class);
            expectFailure(admin.renewDelegationToken(token.hmac()).expiryTimestamp(),
                    UnsupportedByAuthenticationException.class);
        }
    }

    /** An unauthenticated (PLAINTEXT) Admin may not create a token. */
    static void plaintextRefused() throws Exception {
        try (Admin admin = admin(listener("sasl", "PLAINTEXT"), new Properties())) {
            expectFailure(admin.createDelegationToken().delegationToken(), UnsupportedByAuthenticationException.class);
        }
    }

    /** A renewal moves the expiry to about now plus the period. */
    static void renew() throws Exception {
        try (Admin admin = admin(listener("sasl", "SASL_SSL"), alice())) {
            long before = System.currentTimeMillis();
            long expiry = admin.renewDelegationToken(token.hmac(), new RenewDelegationTokenOptions().renewTimePeriodMs(60_000))
                    .expiryTimestamp().get(30, TimeUnit.SECONDS);
            long after = System.currentTimeMillis();
            check(expiry >= before + 60_000 - 1000 && expiry <= after + 60_000 + 1000, "renewed to " + expiry + " at " + before);
        }
    }

    /** bob, a SCRAM user neither owner nor renewer, may not renew alice's token. */
    static void ownerMismatch() throws Exception {
        String bob = "bob-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = admin(listener("sasl", "SASL_SSL"), alice())) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(bob,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "bob-secret"))).all().get(30, TimeUnit.SECONDS);
        }
        Properties asBob = scram("SCRAM-SHA-512", bob, "bob-secret", "");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Admin admin = admin(listener("sasl", "SASL_SSL"), asBob)) {
                expectFailure(admin.renewDelegationToken(token.hmac()).expiryTimestamp(),
                        DelegationTokenOwnerMismatchException.class);
                return;
            } catch (AssertionError e) {
                // bob's credential reaches the broker a moment after the controller commits it.
                if (!String.valueOf(e.getMessage()).contains("SaslAuthentication") || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** Expired now, the token is gone: renewing it is NOT_FOUND and its client is refused. */
    static void expire() throws Exception {
        try (Admin admin = admin(listener("sasl", "SASL_SSL"), alice())) {
            admin.expireDelegationToken(token.hmac(), new ExpireDelegationTokenOptions().expiryTimePeriodMs(-1))
                    .expiryTimestamp().get(30, TimeUnit.SECONDS);
            expectFailure(admin.renewDelegationToken(token.hmac()).expiryTimestamp(), DelegationTokenNotFoundException.class);
            List<DelegationToken> left = admin.describeDelegationToken().delegationTokens().get(30, TimeUnit.SECONDS);
            check(left.stream().noneMatch(t -> t.tokenInfo().tokenId().equals(token.tokenInfo().tokenId())),
                    "still described: " + left);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Admin admin = admin(listener("sasl", "SASL_SSL"), tokenAuth("SCRAM-SHA-512"))) {
                admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof SaslAuthenticationException) {
                    return;
                }
                throw e;
            }
            check(System.nanoTime() < deadline, "the expired token still authenticates");
            Thread.sleep(200);
        }
    }

    static void expectFailure(org.apache.kafka.common.KafkaFuture<?> future, Class<? extends Throwable> expected)
            throws Exception {
        try {
            Object value = future.get(30, TimeUnit.SECONDS);
            throw new AssertionError("expected " + expected.getSimpleName() + ", got " + value);
        } catch (ExecutionException e) {
            if (!expected.isInstance(e.getCause())) {
                throw new AssertionError("expected " + expected.getSimpleName() + ", got " + e.getCause(), e.getCause());
            }
        }
    }

    static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    static KafkaPrincipal aliceP() {
        return new KafkaPrincipal("User", user("scram", "user"));
    }

    static Properties alice() {
        return scram("SCRAM-SHA-512", user("scram", "user"), user("scram", "password"), "");
    }

    static Properties tokenAuth(String mechanism) {
        if (token == null) {
            throw new IllegalStateException("no token: token-create-describe failed");
        }
        return scram(mechanism, token.tokenInfo().tokenId(), token.hmacAsBase64String(), " tokenauth=\"true\"");
    }

    static Properties scram(String mechanism, String username, String password, String options) {
        Properties p = new Properties();
        p.put("security.protocol", "SASL_SSL");
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.location", cert("truststore.p12"));
        p.put("ssl.truststore.password", cert("password"));
        p.put("sasl.mechanism", mechanism);
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + username + "\" password=\"" + password + "\"" + options + ";");
        return p;
    }

    static Admin admin(String bootstrap, Properties security) {
        Properties p = new Properties();
        p.putAll(security);
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", "10000");
        p.put("default.api.timeout.ms", "20000");
        return Admin.create(p);
    }

    static void run(String name, Case c) throws Exception {
        String outcome = "PASS";
        String detail = "";
        long start = System.nanoTime();
        try {
            c.run();
        } catch (Throwable t) {
            failures++;
            outcome = "FAIL";
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            System.out.println(trace);
            detail = (t instanceof IllegalStateException ? t.getMessage() : String.valueOf(t)).replaceAll("\\s+", " ");
        }
        System.out.printf("%s %s %s (%d ms)%n", CLIENT, name, outcome, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        Files.writeString(Path.of(config.get("results").asText()),
                String.join("\t", CLIENT, name, outcome, detail.length() > 300 ? detail.substring(0, 300) : detail) + "\n",
                StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }

    static String listener(String group, String name) {
        JsonNode g = config.get("groups").get(group);
        if (!g.get("error").isNull()) {
            throw new IllegalStateException("the " + group + " group's broker did not start: " + g.get("error_line").asText());
        }
        return g.get("listeners").get(name).asText();
    }

    static String cert(String name) {
        return config.get("certs").get(name).asText();
    }

    static String user(String kind, String field) {
        return config.get("users").get(kind).get(field).asText();
    }

    /** Produces three records to partition 0 of a new topic and reads them back from the start. */
    static void roundTrip(Properties security) throws Exception {
        String bootstrap = listener("sasl", "SASL_SSL");
        String topic = "token-" + UUID.randomUUID().toString().substring(0, 10);
        Properties p = new Properties();
        p.putAll(security);
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (String value : RECORDS) {
                producer.send(new ProducerRecord<>(topic, 0, null, value)).get(30, TimeUnit.SECONDS);
            }
        }
        Properties c = new Properties();
        c.putAll(security);
        c.put("bootstrap.servers", bootstrap);
        c.put("enable.auto.commit", "false");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (got.size() < RECORDS.size() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    got.add(r.value());
                }
            }
            check(got.equals(RECORDS), "read back " + got + ", expected " + RECORDS);
        }
    }
}
