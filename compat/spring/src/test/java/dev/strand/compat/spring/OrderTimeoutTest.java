package dev.strand.compat.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strand.compat.Broker;
import dev.strand.compat.BrokerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * The seeds' order-timeout scenario on Strand's delayed delivery, with Spring Kafka unchanged: when
 * an order is placed, the application sends itself a "check payment" record delayed by the
 * payment window (30 minutes of test time, one test minute being 100 ms) with the
 * {@code strand.delay.ms} header; a {@code @KafkaListener} on the timeout topic (a classic
 * group) cancels the order if it is still unpaid. No relay topics, no timer. The paid order is
 * kept, the unpaid one cancelled, and neither check arrives before the window ends.
 *
 * <p>Apache Kafka has no delayed delivery: with STRAND_COMPAT_BROKER=kafka this test is skipped.
 */
@ExtendWith(BrokerExtension.class)
class OrderTimeoutTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** One minute of the scenario's time. */
    private static final long TEST_MINUTE_MS = 100;
    private static final long PAYMENT_WINDOW_MS = 30 * TEST_MINUTE_MS;

    @Test
    void anUnpaidOrderIsCancelledWhenItsPaymentWindowEnds(Broker broker) throws Exception {
        assumeTrue(broker.kind() == Broker.Kind.STRAND, "Apache Kafka has no delayed delivery");
        String topic = "order-timeouts-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(OrderApplication.class)
                .properties(
                    "spring.main.banner-mode=off",
                    "spring.kafka.bootstrap-servers=" + broker.bootstrap(),
                    "spring.kafka.consumer.auto-offset-reset=earliest",
                    "spring.kafka.consumer.properties.fetch.max.wait.ms=50",
                    "spring.kafka.producer.acks=all",
                    "compat.topic=" + topic,
                    "compat.group=g-" + topic)
                .run()) {
            Orders orders = app.getBean(Orders.class);
            @SuppressWarnings("unchecked")
            KafkaTemplate<String, String> template = app.getBean(KafkaTemplate.class);
            long placedAt = System.currentTimeMillis();
            for (String order : List.of("order-paid", "order-unpaid")) {
                ProducerRecord<String, String> check = new ProducerRecord<>(topic, order, "check-payment");
                check.headers().add("strand.delay.ms", Long.toString(PAYMENT_WINDOW_MS).getBytes(StandardCharsets.UTF_8));
                template.send(check).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            orders.paid.add("order-paid");

            long deadline = System.nanoTime() + WAIT.toNanos();
            while (orders.checkedAt.size() < 2) {
                if (System.nanoTime() >= deadline) {
                    fail("payment checks received: " + orders.checkedAt.keySet());
                }
                Thread.sleep(20);
            }
            for (Map.Entry<String, Long> checked : orders.checkedAt.entrySet()) {
                assertTrue(checked.getValue() >= placedAt + PAYMENT_WINDOW_MS,
                    checked.getKey() + " checked " + (checked.getValue() - placedAt) + " ms after it was placed");
            }
            assertEquals(List.of("order-unpaid"), orders.cancelled, "only the unpaid order is cancelled");
        }
    }

    /** The order service: payments seen, payment checks received, orders cancelled. */
    static class Orders {
        final Set<String> paid = ConcurrentHashMap.newKeySet();
        final Map<String, Long> checkedAt = new ConcurrentHashMap<>();
        final List<String> cancelled = new CopyOnWriteArrayList<>();

        @KafkaListener(topics = "${compat.topic}", groupId = "${compat.group}")
        public void onPaymentCheck(ConsumerRecord<String, String> record) {
            checkedAt.put(record.key(), System.currentTimeMillis());
            if (!paid.contains(record.key())) {
                cancelled.add(record.key());
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OrderApplication {
        @Bean
        Orders orders() {
            return new Orders();
        }
    }
}
