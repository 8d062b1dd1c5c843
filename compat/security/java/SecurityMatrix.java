// kafka-clients 4.4.0 (target/kafka-libs) over SSL (PKCS12 truststore), mTLS (PEM keystore and
// truststore), SASL_SSL SCRAM-SHA-512 and -256 (and users managed with Describe/
// AlterUserScramCredentials), SASL_PLAINTEXT PLAIN and OAUTHBEARER (the client's unsecured login
// module, and KIP-768's client-credentials login against the runner's token endpoint, its
// tokens checked by the broker against a JWK set), KIP-368 re-authentication, and the ways each
// must fail: the exception Admin.describeCluster fails with.
//
// Run by ../run.py as a single-file program (java -cp 'target/kafka-libs/*' SecurityMatrix.java)
// against the brokers STRAND_SEC_CONFIG describes; each case appends its outcome to the results
// file, and the exit status is 1 if any failed.

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
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class SecurityMatrix {
    static final String CLIENT = "kafka-clients";
    static final List<String> RECORDS = List.of("secured-0", "secured-1", "secured-2");
    static JsonNode config;
    static int failures;

    interface Case {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        config = new ObjectMapper().readTree(Path.of(System.getenv("STRAND_SEC_CONFIG")).toFile());
        run("ssl", () -> roundTrip(listener("tls", "SSL"), ssl()));
        run("mtls", () -> roundTrip(listener("tls", "MTLS"), mtls("client-keystore.pem")));
        run("scram-sha-512", () -> roundTrip(listener("sasl", "SASL_SSL"), scram(user("scram", "password"))));
        run("scram-sha-256", () -> roundTrip(listener("sasl", "SASL_SSL"),
                scram("SCRAM-SHA-256", user("scram", "user"), user("scram", "password"))));
        run("scram-alter-credentials", SecurityMatrix::alterScramCredentials);
        run("reauth", SecurityMatrix::reauth);
        run("plain", () -> roundTrip(listener("sasl", "SASL_PLAINTEXT"), plain(user("plain", "password"))));
        run("oauthbearer", () -> roundTrip(listener("oauth", "SASL_PLAINTEXT"), oauth()));
        // A token that expired a minute ago: Kafka's validator answers {"status":"invalid_token"}.
        run("oauthbearer-expired-token", () -> refused(listener("oauth", "SASL_PLAINTEXT"),
                oauth(" unsecuredLoginLifetimeSeconds=\"-60\""), SaslAuthenticationException.class, "invalid_token"));
        // Kafka 4 fetches only the URLs this property allows.
        System.setProperty("org.apache.kafka.sasl.oauthbearer.allowed.urls", cert("oidc.token_url"));
        run("jwks", () -> roundTrip(listener("jwks", "SASL_PLAINTEXT"), clientCredentials(user("oauth", "user"))));
        // The provider signs the client id "intruder"'s token with a key outside its JWK set.
        run("jwks-untrusted-key", () -> refused(listener("jwks", "SASL_PLAINTEXT"), clientCredentials("intruder"),
                SaslAuthenticationException.class, "invalid_token"));
        run("scram-wrong-password", () -> refused(listener("sasl", "SASL_SSL"), scram("wrong"),
                SaslAuthenticationException.class,
                "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"));
        run("plain-wrong-password", () -> refused(listener("sasl", "SASL_PLAINTEXT"), plain("wrong"),
                SaslAuthenticationException.class, "Authentication failed: Invalid username or password"));
        Properties untrusted = ssl();
        untrusted.put("ssl.truststore.location", cert("untrusted-truststore.p12"));
        run("untrusted-server", () -> refused(listener("tls", "SSL"), untrusted, SslAuthenticationException.class,
                "SSL handshake failed"));
        Properties noCert = ssl();
        // TLS 1.3: the client has finished its handshake when the broker's alert arrives. Kafka (JSSE)
        // sends bad_certificate; certificate_required is TLS 1.3's own alert for it.
        run("no-client-cert", () -> refused(listener("tls", "MTLS"), noCert, SslAuthenticationException.class,
                "Received fatal alert: (bad_certificate|certificate_required)"));
        run("untrusted-client-cert", () -> refused(listener("tls", "MTLS"), mtls("untrusted-client-keystore.pem"),
                SslAuthenticationException.class, "Received fatal alert: (bad_certificate|certificate_unknown|unknown_ca)"));
        // Kafka's TLS listener answers a plaintext request with a TLS alert and closes: the Java
        // client sees disconnections until the call times out.
        run("plaintext-on-tls-port", () -> refused(listener("tls", "SSL"), new Properties(), TimeoutException.class,
                "Timed out waiting for a node assignment"));
        System.exit(failures == 0 ? 0 : 1);
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
            // A group whose broker did not start: its message alone, as the other clients report it.
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

    static Properties ssl() {
        Properties p = new Properties();
        p.put("security.protocol", "SSL");
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.location", cert("truststore.p12"));
        p.put("ssl.truststore.password", cert("password"));
        return p;
    }

    static Properties mtls(String pemKeystore) {
        Properties p = new Properties();
        p.put("security.protocol", "SSL");
        p.put("ssl.truststore.type", "PEM");
        p.put("ssl.truststore.location", cert("ca.pem"));
        p.put("ssl.keystore.type", "PEM");
        p.put("ssl.keystore.location", cert(pemKeystore));
        return p;
    }

    static Properties scram(String password) {
        return scram("SCRAM-SHA-512", user("scram", "user"), password);
    }

    static Properties scram(String mechanism, String username, String password) {
        Properties p = ssl();
        p.put("security.protocol", "SASL_SSL");
        p.put("sasl.mechanism", mechanism);
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + username + "\" password=\"" + password + "\";");
        return p;
    }

    /**
     * The users storage format seeded are described with both mechanisms; a user upserted with
     * AlterUserScramCredentials (by alice, over SASL_SSL) can then authenticate, and no longer
     * once its credential is deleted (the metadata reaches the broker a moment after the
     * controller commits it: polled with a deadline).
     */
    static void alterScramCredentials() throws Exception {
        String bootstrap = listener("sasl", "SASL_SSL");
        Properties p = scram(user("scram", "password"));
        p.put("bootstrap.servers", bootstrap);
        String bob = "bob-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(p)) {
            UserScramCredentialsDescription alice = admin.describeUserScramCredentials(List.of(user("scram", "user")))
                    .description(user("scram", "user")).get(30, TimeUnit.SECONDS);
            List<String> infos = alice.credentialInfos().stream()
                    .map(i -> i.mechanism() + "/" + i.iterations()).sorted().toList();
            if (!infos.equals(List.of("SCRAM_SHA_256/4096", "SCRAM_SHA_512/4096"))) {
                throw new AssertionError("alice's credentials: " + infos);
            }
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(bob,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), "bob-secret"))).all().get(30, TimeUnit.SECONDS);
            Properties asBob = scram("SCRAM-SHA-256", bob, "bob-secret");
            awaitAuthentication(bootstrap, asBob, true);
            admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion(bob, ScramMechanism.SCRAM_SHA_256)))
                    .all().get(30, TimeUnit.SECONDS);
            awaitAuthentication(bootstrap, asBob, false);
        }
    }

    /** Polls describeCluster with these credentials until it succeeds (or fails to authenticate). */
    static void awaitAuthentication(String bootstrap, Properties security, boolean succeeds) throws Exception {
        Properties p = new Properties();
        p.putAll(security);
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", "3000");
        p.put("default.api.timeout.ms", "5000");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Throwable last = null;
        while (System.nanoTime() < deadline) {
            try (Admin admin = Admin.create(p)) {
                admin.describeCluster().nodes().get();
                if (succeeds) {
                    return;
                }
                last = null;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof SaslAuthenticationException)) {
                    throw e;
                }
                if (!succeeds) {
                    return;
                }
                last = e.getCause();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("authentication " + (succeeds ? "never succeeded: " + last : "still succeeds"));
    }

    static Properties plain(String password) {
        Properties p = new Properties();
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                + user("plain", "user") + "\" password=\"" + password + "\";");
        return p;
    }

    static Properties oauth() {
        return oauth("");
    }

    /** The client's unsecured token (alg none); options adds login module options. */
    static Properties oauth(String options) {
        Properties p = new Properties();
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "OAUTHBEARER");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                + "unsecuredLoginStringClaim_sub=\"" + user("oauth", "user") + "\"" + options + ";");
        return p;
    }

    /** KIP-768's login: a token from the runner's token endpoint for client id {@code clientId}. */
    static Properties clientCredentials(String clientId) {
        Properties p = new Properties();
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "OAUTHBEARER");
        p.put("sasl.login.callback.handler.class",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
        p.put("sasl.oauthbearer.token.endpoint.url", cert("oidc.token_url"));
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                + "clientId=\"" + clientId + "\" clientSecret=\"compat-secret\" ssl.truststore.location=\""
                + cert("ca.pem") + "\" ssl.truststore.type=\"PEM\";");
        return p;
    }

    static void roundTrip(String bootstrap, Properties security) throws Exception {
        String topic = "sec-" + UUID.randomUUID().toString().substring(0, 10);
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
            if (!got.equals(RECORDS)) {
                throw new AssertionError("read back " + got + ", expected " + RECORDS);
            }
        }
    }

    /** Admin.describeCluster fails with expected, and pattern is found in its message or its causes'. */
    static void refused(String bootstrap, Properties security, Class<? extends Throwable> expected, String pattern)
            throws Exception {
        Properties p = new Properties();
        p.putAll(security);
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", "3000");
        p.put("default.api.timeout.ms", "5000");
        try (Admin admin = Admin.create(p)) {
            Object nodes = admin.describeCluster().nodes().get();
            throw new AssertionError("describeCluster succeeded: " + nodes);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            StringBuilder chain = new StringBuilder();
            for (Throwable t = cause; t != null; t = t.getCause()) {
                chain.append(chain.length() == 0 ? "" : " caused by ").append(t);
            }
            if (!expected.isInstance(cause) || !Pattern.compile(pattern).matcher(chain).find()) {
                throw new AssertionError("expected " + expected.getSimpleName() + " matching /" + pattern + "/, got " + chain, cause);
            }
            System.out.println(CLIENT + " refused as expected: " + chain);
        }
    }

    /**
     * KIP-368 on the REAUTH listener (sessions of reauth_ms): for 8 s a producer sends a record
     * every 250 ms (each acknowledged) while a consumer reads them. Every record arrives, never a
     * session's length apart, and both clients re-authenticated at least three times without
     * opening a connection after their first record (the broker would close a connection that
     * kept its expired session, and the client would reconnect).
     */
    static void reauth() throws Exception {
        String bootstrap = listener("sasl", "REAUTH");
        long sessionMs = config.get("reauth_ms").asLong();
        String topic = "sec-" + UUID.randomUUID().toString().substring(0, 10);
        Properties p = scram(user("scram", "password"));
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        Properties c = scram(user("scram", "password"));
        c.put("bootstrap.servers", bootstrap);
        c.put("enable.auto.commit", "false");
        c.put("auto.offset.reset", "earliest");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p);
             KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            producer.send(new ProducerRecord<>(topic, 0, null, "reauth-0")).get(30, TimeUnit.SECONDS);
            consumer.assign(List.of(tp));
            List<String> sent = new ArrayList<>(List.of("reauth-0"));
            List<String> got = new ArrayList<>();
            long lastReceipt = 0;
            long longestGapMs = 0;
            double producerConnections = 0;
            double consumerConnections = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long end = Long.MAX_VALUE;
            long nextSend = 0;
            while (got.size() < sent.size() || System.nanoTime() < end) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("read " + got + " of " + sent);
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    if (got.isEmpty()) {
                        // Both clients are connected: from now on neither may open a connection.
                        producerConnections = metric(producer.metrics(), "connection-creation-total");
                        consumerConnections = metric(consumer.metrics(), "connection-creation-total");
                        end = now + TimeUnit.SECONDS.toNanos(8);
                    } else {
                        longestGapMs = Math.max(longestGapMs, TimeUnit.NANOSECONDS.toMillis(now - lastReceipt));
                    }
                    lastReceipt = now;
                    got.add(r.value());
                }
                if (!got.isEmpty() && System.nanoTime() < end && System.nanoTime() >= nextSend) {
                    String value = "reauth-" + sent.size();
                    producer.send(new ProducerRecord<>(topic, 0, null, value)).get(10, TimeUnit.SECONDS);
                    sent.add(value);
                    nextSend = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(250);
                }
            }
            if (!got.equals(sent)) {
                throw new AssertionError("read " + got + ", sent " + sent);
            }
            if (longestGapMs >= sessionMs) {
                throw new AssertionError("no record for " + longestGapMs + " ms");
            }
            for (var client : List.of(Map.entry("producer", producer.metrics()), Map.entry("consumer", consumer.metrics()))) {
                double reauths = metric(client.getValue(), "successful-reauthentication-total");
                double failed = metric(client.getValue(), "failed-reauthentication-total");
                double connections = metric(client.getValue(), "connection-creation-total");
                double before = client.getKey().equals("producer") ? producerConnections : consumerConnections;
                System.out.printf("%s reauth: %s re-authenticated %.0f times (%.0f failed), %.0f connections "
                        + "(%.0f at the start), %d records, longest gap %d ms%n",
                        CLIENT, client.getKey(), reauths, failed, connections, before, got.size(), longestGapMs);
                if (reauths < 3 || failed > 0 || connections != before) {
                    throw new AssertionError(client.getKey() + " re-authenticated " + reauths + " times (" + failed
                            + " failed) and opened " + (connections - before) + " connections during the run");
                }
            }
        }
    }

    /** The client-level metric of that name (the "-metrics" group, not a per-node one). */
    static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().endsWith("-metrics")
                        && !e.getKey().group().contains("node"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }
}
